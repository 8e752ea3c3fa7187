# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Planning: pure functions from ``rt_node`` facts and role options to wanted state.

Nothing here reads or writes the host.  Every function takes plain
dictionaries shaped like ``ansible_facts.rt_node`` and raises
:class:`PlanError` for input it cannot use, naming the option, the value
and the fix.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
