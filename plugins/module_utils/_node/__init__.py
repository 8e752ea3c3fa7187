# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Node facts (read only): what rt_node_facts returns, and the readiness checklist.

``gather``     read one host tree through HostReader into the rt_node dictionary
``parsing``    pure parsers of the text the kernel writes
``readiness``  the real-time readiness checklist computed from the facts
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
