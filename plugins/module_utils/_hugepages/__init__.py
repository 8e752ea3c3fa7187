# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Hugepages per NUMA node: the plan (pure) and its application.

``plan``   requested pools checked against the host: targets, boot arguments, mounts
``apply``  write the pools, retry, read back what the kernel gave
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
