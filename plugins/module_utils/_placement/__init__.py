# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""CPU, NUMA, hugepage and VF placement of real-time domains (pure functions).

``plan``       plan_domains, the entry point, and the summary line
``inputs``     the entries of rt_domain_domains: checked and merged
``host``       the host's CPUs and NUMA nodes as sets
``cpus``       cpus: auto, explicit CPUs, the emulator CPUs
``hugepages``  free pages on each domain's node
``vfs``        free QAT VFs per node, and attaching the chosen ones
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
