# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Verification: what the kernel and libvirt really do, judged and reported (pure).

``checks``      one verdict per domain setting (scheduling, pinning, hugepages, VF drivers)
``cyclictest``  cyclictest output parsed, a run judged against the threshold
``guests``      cyclictest inside the inventory's guests: plan, next step, verdict
``report``      a host's counts, table and failures

What is looked at comes from ``_libvirt.observe`` (libvirt_rt_domain_info).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
