# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters of the hugepages role."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.collections import is_sequence, is_string

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._hugepages.plan import facts_after, hugepage_plan, planned_targets
from ansible_collections.realtime.virt.plugins.module_utils._hugepages.undo import domain_pages, fstab_written


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


def _dicts(name, value, what, fix):
    if value is None:
        return []
    if not is_sequence(value) or not all(isinstance(item, Mapping) for item in value):
        raise AnsibleFilterError("%s: %r is not a list of %s. Fix: %s" % (name, value, what, fix))
    return list(value)


def hugepages_domain_pages(domains):
    """libvirt_rt_domain_info's domains -> ``"name (2M pages)"`` each, in order."""
    return domain_pages(_dicts("hugepages_domain_pages", domains, "domains",
                               "pass libvirt_rt_domain_info's domains"))


def hugepages_fstab_written(text, mounts):
    """/etc/fstab's text -> the paths of ``mounts`` it has a line for, written as the role writes it."""
    if text is not None and not is_string(text):
        raise AnsibleFilterError("hugepages_fstab_written: the input is %r, not the text of /etc/fstab. "
                                 "Fix: pass its content (slurp's content | b64decode)" % (text,))
    mounts = _dicts("hugepages_fstab_written", mounts, "mounts", "pass hugepages_plan's mounts")
    for index, mount in enumerate(mounts):
        if not is_string(mount.get("path")) or not is_string(mount.get("opts")):
            raise AnsibleFilterError("hugepages_fstab_written: mounts[%d]=%r has no path and opts strings. "
                                     "Fix: pass hugepages_plan's mounts" % (index, mount))
    return fstab_written(text or "", mounts)


class FilterModule(object):
    """Hugepage planning filters."""

    def filters(self):
        return {"hugepages_plan": hugepages_plan, "hugepages_after": hugepages_after,
                "hugepages_domain_pages": hugepages_domain_pages, "hugepages_fstab_written": hugepages_fstab_written}
