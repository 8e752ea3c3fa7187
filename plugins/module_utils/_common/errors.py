# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one exception of the planning functions."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class PlanError(ValueError):
    """An option value the plan cannot use.

    The message always reads ``<option>=<value>: <problem>. Fix: <fix>`` so a
    failed task tells the operator which variable to change and how.
    """

    def __init__(self, option, value, problem, fix):
        self.option = option
        self.value = value
        self.problem = problem
        self.fix = fix
        super(PlanError, self).__init__("%s=%r: %s. Fix: %s" % (option, value, problem, fix))
