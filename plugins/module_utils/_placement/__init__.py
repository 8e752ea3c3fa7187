# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""CPU, NUMA, hugepage and VF placement of real-time domains (pure functions).

The entry point is :func:`plan_domains` in ``_plan``; ``PlacementError``
names the variable, the value and the fix.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
