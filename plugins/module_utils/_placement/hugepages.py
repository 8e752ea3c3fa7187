# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Hugepages in placement: does each domain's node have the pages it needs (pure)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._common.units import page_size_kib
from ansible_collections.realtime.virt.plugins.module_utils._placement.inputs import hugepage_need

HUGEPAGE_MODES = ("fail", "warn", "ignore")


def check_hugepages(plans, host, running, mode, warnings):
    if mode == "ignore":
        return
    need = {}
    for plan in plans:
        if plan["mode"] == "absent" or plan["name"] in running:
            continue
        wanted = hugepage_need(plan["options"])
        node_id = plan["numa_node"]
        if wanted is None or node_id is None:
            continue
        key = (node_id, wanted[0])
        need.setdefault(key, []).append((plan, wanted[1]))
    for (node_id, size), items in sorted(need.items(), key=lambda item: item[0]):
        free = host.hugepages.get(node_id, {}).get(size, 0)
        total = 0
        for plan, pages in items:
            total += pages
            if total > free:
                message = (
                    "domain %s needs %d hugepages of %d KiB on NUMA node %d (%d for the domains placed there before "
                    "it and not running yet), the node has %d free; short by %d"
                    % (plan["name"], pages, size, node_id, total - pages, free, total - free))
                if mode == "fail":
                    size_given = plan["options"].get("memory_mib")
                    raise OptionError(plan["where"] + ".memory.hugepages",
                                      plan["options"].get("memory_kib") if size_given is None else size_given,
                                      message, "allocate more pages on node %d (realtime.virt.hugepages role), "
                                      "lower memory_mib (or memory_kib), or set rt_domain_hugepage_check: warn"
                                      % node_id)
                warnings.append(message)


def hugepage_sizes(domains):
    """Sorted page sizes (KiB) used by the placed domains that are not absent."""
    sizes = set()
    for dom in domains:
        options = dom.get("options") or {}
        if options.get("state") == "absent":
            continue
        wanted = hugepage_need(options)
        if wanted:
            sizes.add(wanted[0])
        elif isinstance((options.get("memory") or {}).get("hugepages"), dict):
            size = page_size_kib((options["memory"]["hugepages"] or {}).get("page_size") or "2M")
            if size:
                sizes.add(size)
    return sorted(sizes)
