# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Intel QuickAssist (QAT): device table, sysfs gathering and VF placement.

``devices``   the generations, their PCI ids, drivers, modules and firmware
``gather``    read every QAT physical and virtual function through HostReader
``services``  validate a 4xxx/420xx ``cfg_services`` string
``placement`` give free, NUMA-local VFs to domains, never one VF twice
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
