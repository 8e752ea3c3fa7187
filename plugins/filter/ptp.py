# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filter of the ptp role: ptp4l's configuration and the daemons' command lines."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.module_utils._ptp.plan import PtpPlanError, plan


def ptp_plan(time_sync, interfaces, **options):
    """rt_node_facts' ``time_sync`` and the role's options -> what the role writes, or every problem at once."""
    if not isinstance(time_sync, Mapping) or not isinstance(time_sync.get("interfaces"), list):
        raise AnsibleFilterError("ptp_plan: the input is %r, not rt_node_facts' time_sync. Fix: pass "
                                 "ansible_facts.rt_node.time_sync" % (time_sync,))
    try:
        return plan(time_sync["interfaces"], interfaces, **options)
    except PtpPlanError as error:
        raise AnsibleFilterError("realtime.virt.ptp: %d problem(s), nothing was changed: %s"
                                 % (len(error.problems), "; ".join(error.problems)))
    except TypeError as error:
        raise AnsibleFilterError("ptp_plan: %s. Fix: pass only the options ptp_plan documents" % error)


class FilterModule(object):
    """PTP filters."""

    def filters(self):
        return {"ptp_plan": ptp_plan}
