# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared vocabulary, no I/O: CPU sets, sizes and units, the error types.

``cpuset``  CPU set syntax of libvirt, KubeVirt and the kernel
``units``   the one size parser (libvirt units, kernel page sizes)
``errors``  the one error base class and its message format
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
