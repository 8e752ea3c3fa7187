# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kernel files and directories that more than one reader names, each written once (pure).

A path one file alone reads stays beside its reader; PCI's are in ``pci``.
Every path is as the live host has it: ``HostReader`` puts ``root`` in front.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# /sys/devices/system/cpu/{online,possible,present,isolated,nohz_full,...}
CPU = "/sys/devices/system/cpu"
CMDLINE = "/proc/cmdline"
CPUINFO = "/proc/cpuinfo"
MOUNTS = "/proc/mounts"
DEFAULT_IRQ_AFFINITY = "/proc/irq/default_smp_affinity"
# The CPUs unbound workqueues may run on (a hexadecimal mask).
WORKQUEUE_CPUMASK = "/sys/devices/virtual/workqueue/cpumask"
