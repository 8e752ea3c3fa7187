# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters of the hugepages role."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._hugepages.plan import facts_after, hugepage_plan, planned_targets


def hugepages_plan(rt_node, pages, default_size=None):
    """``ansible_facts.rt_node`` + requested pages -> validated plan per node and size."""
    try:
        return hugepage_plan(rt_node, pages, default_size=default_size)
    except OptionError as error:
        raise AnsibleFilterError("hugepages_plan: %s" % error)


def hugepages_after(rt_node, pools):
    """``ansible_facts.rt_node`` as it will read once ``pools`` (hugepages_alloc's rows) are allocated."""
    try:
        return facts_after(rt_node, {"targets": planned_targets(pools)})
    except OptionError as error:
        raise AnsibleFilterError("hugepages_after: %s" % error)


class FilterModule(object):
    """Hugepage planning filters."""

    def filters(self):
        return {"hugepages_plan": hugepages_plan, "hugepages_after": hugepages_after}
