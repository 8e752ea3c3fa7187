# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The host as placement sees it: CPUs and NUMA nodes of ``rt_node`` facts, as sets."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError


class Host(object):
    """The CPUs and NUMA nodes of ``rt_node`` facts, as sets."""

    def __init__(self, node):
        if not isinstance(node, dict) or not isinstance(node.get("cpus"), dict):
            raise OptionError("ansible_facts.rt_node", type(node).__name__, "not rt_node facts",
                              "run realtime.virt.rt_node_facts first and pass ansible_facts.rt_node")
        cpus = node["cpus"]
        self.online = set(cpus.get("online") or [])
        self.isolated = set(cpus.get("isolated") or []) & self.online
        housekeeping = cpus.get("housekeeping")
        self.housekeeping = (set(housekeeping) if housekeeping is not None else self.online - self.isolated) & self.online
        self.nodes = {}
        self.hugepages = {}
        for entry in (node.get("numa") or {}).get("nodes") or []:
            self.nodes[int(entry["id"])] = set(entry.get("cpus") or []) & self.online
            free = {}
            for info in (entry.get("hugepages") or {}).values():
                if isinstance(info, dict) and info.get("size_kb"):
                    free[int(info["size_kb"])] = int(info.get("free") or 0)
            self.hugepages[int(entry["id"])] = free
        if not self.nodes:
            self.nodes = {0: set(self.online)}
            self.hugepages = {0: {}}

    def node_of(self, cpus):
        """The one node holding every CPU of ``cpus``, or None."""
        for node_id, node_cpus in sorted(self.nodes.items()):
            if cpus and set(cpus) <= node_cpus:
                return node_id
        return None


def isolated_after(node, isolated, housekeeping):
    """A copy of ``rt_node`` facts as the kernel reads them once booted with ``isolated`` CPUs.

    ``isolated`` and ``housekeeping`` are CPU lists (rt_host's plan); only
    the ``cpus`` section changes. Used where a later stage is planned before
    the reboot that isolates the CPUs (site plan, rt_domain in check mode).
    """
    after = copy.deepcopy(node or {})
    section = after.setdefault("cpus", {})
    section["isolated"] = sorted(isolated)
    section["housekeeping"] = sorted(housekeeping)
    return after
