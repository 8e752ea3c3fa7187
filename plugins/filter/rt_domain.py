# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters of the rt_domain role: CPU/NUMA/hugepage/VF placement."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError, parse_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError, RealtimeVirtError
from ansible_collections.realtime.virt.plugins.module_utils._hugepages.plan import facts_after, mounts_after, planned_targets
from ansible_collections.realtime.virt.plugins.module_utils._placement.host import isolated_after
from ansible_collections.realtime.virt.plugins.module_utils._placement.hugepages import hugepage_sizes
from ansible_collections.realtime.virt.plugins.module_utils._placement.plan import plan_domains, summary
from ansible_collections.realtime.virt.plugins.module_utils._placement.vfs import attach_vfs, free_vfs_per_node


def rt_domain_placement(node, domains, defined=None, allow_unisolated=False, defaults=None,
                        hugepages="fail", vf_free=None):
    """Place rt_domain_domains on the host described by rt_node facts."""
    try:
        return plan_domains(node, domains, defined=defined, allow_unisolated=allow_unisolated,
                            defaults=defaults, hugepages=hugepages, vf_free=vf_free)
    except OptionError as error:
        raise AnsibleFilterError("rt_domain_placement: %s" % error)


def rt_domain_node_after(node, pools=None, isolated=None, housekeeping=None, mounts=None):
    """rt_node facts as the domains will find them: pools resized, hugetlbfs mounted and, when given, the CPUs isolated."""
    try:
        after = mounts_after(facts_after(node, {"targets": planned_targets(pools or [])}), mounts)
        if isolated:
            after = isolated_after(after, _cpus("isolated", isolated), _cpus("housekeeping", housekeeping))
        return after
    except RealtimeVirtError as error:
        raise AnsibleFilterError("rt_domain_node_after: %s" % error)


def _cpus(option, value):
    try:
        return parse_cpuset(value or "", allow_exclusion=False)
    except CpusetError as error:
        raise OptionError(option, value, str(error),
                          "pass rt_host's rt_host_%s_cpuset, a CPU list such as '2-7'" % option)


def rt_domain_attach_vfs(plan, selection):
    """Add the QAT VFs chosen per domain to the placed domains' hostdevs."""
    try:
        return attach_vfs(plan, selection)
    except OptionError as error:
        raise AnsibleFilterError("rt_domain_attach_vfs: %s" % error)


def rt_domain_vf_free(vfs, defined=None, keep=None, nodes=None):
    """Free assignable QAT VFs per NUMA node, for rt_domain_placement's vf_free."""
    try:
        return free_vfs_per_node(vfs, defined=defined, keep=keep, nodes=nodes)
    except OptionError as error:
        raise AnsibleFilterError("rt_domain_vf_free: %s" % error)


def rt_domain_hugepage_sizes(domains):
    """Page sizes (KiB) the placed domains back their memory with."""
    return hugepage_sizes(domains or [])


def rt_domain_summary(domains):
    """One readable line per placed domain."""
    return summary(domains or [])


class FilterModule(object):
    """rt_domain placement filters."""

    def filters(self):
        return {
            "rt_domain_placement": rt_domain_placement,
            "rt_domain_attach_vfs": rt_domain_attach_vfs,
            "rt_domain_hugepage_sizes": rt_domain_hugepage_sizes,
            "rt_domain_node_after": rt_domain_node_after,
            "rt_domain_summary": rt_domain_summary,
            "rt_domain_vf_free": rt_domain_vf_free,
        }
