# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kernel layer: the only code that reads or writes /proc and /sys.

``reader``  HostReader, every read, resolved under a ``root`` (live host or a captured tree)
``writer``  SysfsWriter and write_atomic, every write
``pci``     PCI functions under /sys/bus/pci: ids, drivers, IOMMU groups, SR-IOV links
``proc``    processes and threads under /proc: vCPU threads, scheduling, hugetlb use
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
