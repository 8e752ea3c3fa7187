# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Intel QuickAssist (QAT): device table, sysfs facts, VF selection, services.

``devices``    the generations, their PCI ids, drivers, modules and firmware
``gather``     every QAT physical and virtual function (facts)
``placement``  give free, NUMA-local VFs to domains, never one VF twice (plan)
``services``   4xxx/420xx ``cfg_services``: check, write, verify (apply)
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
