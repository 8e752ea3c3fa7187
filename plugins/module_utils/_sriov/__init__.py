# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Generic SR-IOV: one physical function's VF count, VF driver and boot state.

``manager``    facts (read_pf), plan, apply and verify of one PF's VFs
``statefile``  the boot-time state file the boot unit reads
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
