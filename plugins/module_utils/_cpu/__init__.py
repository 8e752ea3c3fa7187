# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""CPU isolation plan and the kernel command line of a real-time host (pure).

``plan``         isolated and housekeeping CPUs (auto or given)
``kernel_args``  the wanted boot arguments and how a command line compares
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
