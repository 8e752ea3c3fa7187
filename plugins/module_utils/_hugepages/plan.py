# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Hugepage plan: how many pages of which size on which NUMA node.

A request is a list of ``{size, count, node}``; ``node`` omitted means "any
node" and is served by the system-wide pool file.  The plan refuses, before
anything is written, sizes the host lacks, nodes it does not have, negative
or non-integer counts, one size asked both per node and system-wide, and
requests larger than the memory of the node (or of the host).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._common.plain import plain_copy
from ansible_collections.realtime.virt.plugins.module_utils._common.units import page_size_kib, size_label

NODE_DIR = "/sys/devices/system/node/node%d/hugepages/hugepages-%dkB/nr_hugepages"
GLOBAL_DIR = "/sys/kernel/mm/hugepages/hugepages-%dkB/nr_hugepages"
# Sizes the kernel can only hand out reliably at boot (contiguous 1G blocks).
BOOT_ONLY_KB = 1024 * 1024
# ``hugepages=<node>:<count>,...`` after ``hugepagesz=`` (Linux 5.16, commit
# b5389086ad7b "hugetlbfs: extend the definition of hugepages parameter to
# support node allocation"); older kernels take only a total they spread.
# On a host with one NUMA node the total is the same reservation and is
# written instead: x86's KASLR (arch/x86/boot/compressed/kaslr.c) reads
# only the total form and keeps that many free 1G blocks out of the random
# placement of the kernel image; it reads "0:8" as 0, and the image may
# then take the block the page needs (seen in the lab VM: 9 of 20 boots
# reserved nothing with "hugepages=0:1", 16 of 16 did with "hugepages=1").
NODE_FORM_SINCE = (5, 16)


def size_kb(size, option="hugepages_pages[].size"):
    """``2M`` / ``1G`` / ``2048kB`` / ``2048`` (kB) -> size in kB."""
    kb = page_size_kib(size)
    if kb is None:
        raise OptionError(option, size, "not a hugepage size", "write 2M or 1G (or the size in kB such as 2048kB)")
    return kb


def _mib(kb):
    return "%d MiB" % (kb // 1024)


def host_sizes(rt_node):
    """Hugepage sizes (kB) this host supports, from ``rt_node.hugepages.sizes``."""
    sizes = ((rt_node or {}).get("hugepages") or {}).get("sizes") or {}
    return sorted(entry.get("size_kb") for entry in sizes.values() if entry.get("size_kb"))


def _nodes(rt_node):
    return dict((node.get("id"), node) for node in ((rt_node or {}).get("numa") or {}).get("nodes") or [])


def _count(item, index, option):
    count = item.get("count")
    if isinstance(count, str) and count.strip().isdigit():
        count = int(count.strip())
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise OptionError("%s[%d].count" % (option, index), count, "a page count must be an integer >= 0",
                          "give the number of pages, e.g. count: 512 (0 frees them)")
    return count


def _current(rt_node, node, kb):
    key = "%dkB" % kb
    if node is None:
        entry = (((rt_node or {}).get("hugepages") or {}).get("sizes") or {}).get(key) or {}
    else:
        entry = (_nodes(rt_node).get(node) or {}).get("hugepages", {}).get(key) or {}
    return entry.get("total")


def _size_on_host(option, value, kb, sizes):
    if kb not in sizes:
        offered = ", ".join(size_label(s) for s in sizes)
        raise OptionError(option, value, "this host has no %s hugepages (it supports %s)" % (size_label(kb), offered),
                          "choose one of %s" % offered)


def _node_id(where, item, nodes):
    node = item.get("node")
    if isinstance(node, str) and node.strip().isdigit():
        node = int(node.strip())
    if node is not None and (isinstance(node, bool) or not isinstance(node, int) or node not in nodes):
        raise OptionError(
            where + ".node", item.get("node"),
            "this host has no NUMA node %r (its nodes: %s)" % (node, ", ".join(str(n) for n in sorted(nodes)) or "none"),
            "use one of those node ids, or leave node out to let the kernel spread the pages",
        )
    return node


def _target(rt_node, index, item, option, sizes, nodes, seen):
    """One checked request: the pool file to write and the count it should hold."""
    where = "%s[%d]" % (option, index)
    if not isinstance(item, dict):
        raise OptionError(where, item, "not a dictionary", "write {size: 2M, count: 512, node: 0}")
    unknown = sorted(set(item) - set(("size", "count", "node")))
    if unknown:
        raise OptionError(where, item, "unknown key(s) %s" % ", ".join(unknown), "use only size, count and node")
    kb = size_kb(item.get("size"), option=where + ".size")
    _size_on_host(where + ".size", item.get("size"), kb, sizes)
    count = _count(item, index, option)
    node = _node_id(where, item, nodes)
    key = (node, kb)
    if key in seen:
        raise OptionError(where, item, "%s pages on %s are already requested by %s[%d]"
                          % (size_label(kb), "any node" if node is None else "node %d" % node, option, seen[key]),
                          "give each size and node once")
    if (None, kb) in seen and node is not None or node is None and any(k[1] == kb and k[0] is not None for k in seen):
        raise OptionError(where, item, "%s pages are requested both per NUMA node and without a node" % size_label(kb),
                          "either give node on every %s entry or on none" % size_label(kb))
    seen[key] = index
    current = _current(rt_node, node, kb)
    return {
        "node": node,
        "size": size_label(kb),
        "size_kb": kb,
        "count": count,
        "current": current,
        "changed": current != count,
        "path": (GLOBAL_DIR % kb) if node is None else (NODE_DIR % (node, kb)),
    }


def _default_size(rt_node, default_size, default_option, sizes):
    """``(default size kB, given explicitly?)``."""
    if default_size in (None, ""):
        return ((rt_node or {}).get("hugepages") or {}).get("default_size_kb"), False
    default_kb = size_kb(default_size, option=default_option)
    _size_on_host(default_option, default_size, default_kb, sizes)
    return default_kb, True


def kernel_version(rt_node):
    """``(major, minor)`` of the running kernel's release, or None."""
    release = (((rt_node or {}).get("kernel") or {}).get("release") or "")
    parts = release.split(".")
    try:
        return int(parts[0]), int("".join(c for c in parts[1] if c.isdigit()) if len(parts) > 1 else 0)
    except (ValueError, IndexError):
        return None


def _boot_args(rt_node, targets, in_use, default_kb, explicit_default, warnings):
    """Boot arguments: a chosen default size, and the sizes only a boot can give.

    Pages asked per NUMA node are reserved on those nodes at boot
    (``hugepages=0:8,1:2``) where the kernel takes that form and the host
    has more than one node; an older kernel spreads a total over every
    node, which a warning says. A one-node host gets the total.
    """
    args = []
    if explicit_default:
        args.append("default_hugepagesz=%s" % size_label(default_kb))
    version = kernel_version(rt_node)
    several_nodes = len(_nodes(rt_node)) > 1
    for kb in in_use:
        if kb < BOOT_ONLY_KB:
            continue
        pools = [t for t in targets if t["size_kb"] == kb]
        total = sum(t["count"] for t in pools)
        per_node = all(t["node"] is not None for t in pools)
        if per_node and version is not None and version >= NODE_FORM_SINCE and several_nodes:
            count = ",".join("%d:%d" % (t["node"], t["count"]) for t in sorted(pools, key=lambda t: t["node"]))
        else:
            count = "%d" % total
            if per_node and several_nodes:
                warnings.append(
                    "kernel %s takes only a total of %s pages at boot (the per-node form needs Linux %d.%d): "
                    "hugepages=%d is spread over every NUMA node, not put where hugepages_pages asks"
                    % (((rt_node or {}).get("kernel") or {}).get("release"), size_label(kb), NODE_FORM_SINCE[0],
                       NODE_FORM_SINCE[1], total))
        args.extend(["hugepagesz=%s" % size_label(kb), "hugepages=%s" % count])
    return args


def _mounts(in_use, default_kb):
    """One hugetlbfs mount per size in use; the default size at /dev/hugepages."""
    mounts = []
    for kb in in_use:
        path = "/dev/hugepages" if kb == default_kb else "/dev/hugepages%s" % size_label(kb)
        mounts.append({"path": path, "size_kb": kb, "size": size_label(kb), "opts": "pagesize=%s" % size_label(kb)})
    return mounts


def hugepage_plan(rt_node, pages, default_size=None, option="hugepages_pages", default_option="hugepages_default_size"):
    """Validate ``pages`` against the host and return the plan.

    Result keys: ``targets`` (one per node and size: ``node``, ``size``,
    ``size_kb``, ``count``, ``current``, ``path``, ``changed``),
    ``default_size_kb``, ``kernel_args`` (boot-time arguments: 1G pages and a
    non-default default size), ``sizes_in_use`` and ``mounts`` (one hugetlbfs
    mount per size in use).
    """
    if pages is None:
        pages = []
    if not isinstance(pages, (list, tuple)):
        raise OptionError(option, pages, "not a list", "give a list such as [{size: 2M, count: 512, node: 0}]")
    sizes = host_sizes(rt_node)
    nodes = _nodes(rt_node)
    if not sizes:
        raise OptionError(option, pages, "the facts list no hugepage size for this host (no /sys/kernel/mm/hugepages)",
                          "use a kernel with CONFIG_HUGETLBFS, and pass ansible_facts.rt_node from realtime.virt.rt_node_facts")
    seen = {}
    targets = [_target(rt_node, index, item, option, sizes, nodes, seen) for index, item in enumerate(pages)]
    _check_memory(rt_node, targets, nodes, option)
    default_kb, explicit_default = _default_size(rt_node, default_size, default_option, sizes)
    in_use = sorted(set(t["size_kb"] for t in targets if t["count"] > 0))
    warnings = []
    kernel_args = _boot_args(rt_node, targets, in_use, default_kb, explicit_default, warnings)
    return {
        "targets": sorted(targets, key=lambda t: (t["size_kb"], -1 if t["node"] is None else t["node"])),
        "changed": any(t["changed"] for t in targets),
        "default_size_kb": default_kb,
        "default_size": size_label(default_kb) if default_kb else None,
        "kernel_args": kernel_args,
        "sizes_in_use": [size_label(kb) for kb in in_use],
        "mounts": _mounts(in_use, default_kb),
        "warnings": warnings,
    }


def _check_memory(rt_node, targets, nodes, option):
    per_node = {}
    anywhere = 0
    for target in targets:
        amount = target["count"] * target["size_kb"]
        if target["node"] is None:
            anywhere += amount
        else:
            per_node[target["node"]] = per_node.get(target["node"], 0) + amount
    for node, wanted_kb in sorted(per_node.items()):
        total = nodes[node].get("memory_total_kb")
        if total is not None and wanted_kb > total:
            asked = ", ".join("%d x %s" % (t["count"], t["size"]) for t in targets if t["node"] == node)
            raise OptionError(
                option, asked,
                "NUMA node %d is asked for %s of hugepages (%s) but has only %s of memory"
                % (node, _mib(wanted_kb), asked, _mib(total)),
                "lower the counts for node %d or spread the pages over other nodes; nothing was changed" % node,
            )
    host_total = ((rt_node or {}).get("memory") or {}).get("total_kb")
    if host_total is None and nodes:
        host_total = sum(node.get("memory_total_kb") or 0 for node in nodes.values()) or None
    wanted_total = anywhere + sum(per_node.values())
    if host_total is not None and wanted_total > host_total:
        raise OptionError(
            option, ", ".join("%d x %s" % (t["count"], t["size"]) for t in targets),
            "the host is asked for %s of hugepages but has only %s of memory" % (_mib(wanted_total), _mib(host_total)),
            "lower the counts; nothing was changed",
        )


def _pool_entry(rt_node, node, key):
    """The ``{total, free}`` entry of one pool in ``rt_node`` (system-wide when ``node`` is None), or None."""
    if node is None:
        return (((rt_node.get("hugepages") or {}).get("sizes")) or {}).get(key)
    return ((_nodes(rt_node).get(node) or {}).get("hugepages") or {}).get(key)


def _set_pool(entry, count):
    """Resize one pool to ``count`` pages: pages in use stay in use, the rest are free."""
    total = entry.get("total") or 0
    free = entry.get("free") or 0
    entry["total"] = count
    entry["free"] = max(0, min(count, count - (total - free)))


def _spread(rt_node, key, delta):
    """A system-wide pool changed by ``delta`` pages: an estimate of the change per node.

    The kernel hands out (and takes back) the pages of a pool without a node
    one node after the other; which node comes first is its own state. The
    estimate goes round the nodes in id order: a gain is shared out evenly,
    a loss takes free pages only (pages in use cannot be freed).
    """
    entries = [entry for _id, entry in sorted((nid, (node.get("hugepages") or {}).get(key))
                                              for nid, node in _nodes(rt_node).items())
               if isinstance(entry, dict)]
    if not entries or not delta:
        return
    if delta > 0:
        share, extra = divmod(delta, len(entries))
        for index, entry in enumerate(entries):
            gain = share + (1 if index < extra else 0)
            entry["total"] = (entry.get("total") or 0) + gain
            entry["free"] = (entry.get("free") or 0) + gain
        return
    loss = -delta
    while loss > 0:
        holders = [entry for entry in entries if (entry.get("free") or 0) > 0]
        if not holders:
            return
        for entry in holders:
            if loss == 0:
                break
            entry["total"] = (entry.get("total") or 0) - 1
            entry["free"] = entry["free"] - 1
            loss -= 1


def facts_after(rt_node, plan):
    """``rt_node`` as it will read once ``plan`` is applied: pools at their targets.

    ``plan`` is a hugepage plan, or any dictionary whose ``targets`` list
    ``node`` (None for the system-wide pool), ``size_kb`` and ``count``.
    Per pool: the total becomes ``count``; the pages in use now
    (total - free) stay in use, so free = count - in use, at least 0 and
    at most count. A per-node pool also moves the system-wide numbers; a
    system-wide pool is shared out over the nodes as :func:`_spread`
    estimates. Used to plan what later stages (domain placement) will find
    before the hugepages stage has run (site plan, check mode).
    """
    after = plain_copy(rt_node or {})
    for target in plan.get("targets") or []:
        key = "%dkB" % target["size_kb"]
        entry = _pool_entry(after, target["node"], key)
        if not entry:
            continue
        before = entry.get("total") or 0
        _set_pool(entry, target["count"])
        if target["node"] is None:
            _spread(after, key, entry["total"] - before)
            continue
        overall = _pool_entry(after, None, key)
        if overall:
            overall["total"] = (overall.get("total") or 0) + entry["total"] - before
            overall["free"] = sum((((node.get("hugepages") or {}).get(key) or {}).get("free") or 0)
                                  for node in _nodes(after).values())
    return after


def mounts_after(rt_node, mounts):
    """``rt_node`` with the hugetlbfs ``mounts`` of a plan (``path``, ``size_kb``) added where missing.

    Used with :func:`facts_after` where a later stage checks the page sizes
    it needs against the mounts before the hugepages stage has run (rt_domain
    in check mode). Changes ``rt_node`` in place and returns it.
    """
    section = rt_node.setdefault("hugepages", {})
    present = section.get("mounts") or []
    paths = set(mount.get("path") for mount in present)
    section["mounts"] = present + [{"path": mount["path"], "pagesize_kb": mount["size_kb"]}
                                   for mount in mounts or [] if mount["path"] not in paths]
    return rt_node


def planned_targets(pools, option="hugepages_result.pages"):
    """Pools to come, as :func:`facts_after` takes them.

    ``pools`` lists ``node`` (None or left out: the system-wide pool),
    ``size_kb`` (or ``size``) and ``count`` (or ``requested``, as
    hugepages_alloc returns its rows, check mode included).
    """
    if pools is None:
        return []
    if not isinstance(pools, (list, tuple)):
        raise OptionError(option, pools, "not a list of pools",
                          "pass hugepages_alloc's pages, such as [{node: 0, size_kb: 2048, requested: 64}]")
    targets = []
    for index, pool in enumerate(pools):
        where = "%s[%d]" % (option, index)
        if not isinstance(pool, dict):
            raise OptionError(where, pool, "not a dictionary", "write {node: 0, size_kb: 2048, requested: 64}")
        kb = pool.get("size_kb") or size_kb(pool.get("size"), option=where + ".size")
        count = pool.get("requested", pool.get("count"))
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise OptionError(where + ".requested", count, "a page count must be an integer >= 0",
                              "give the number of pages the pool will hold")
        targets.append({"node": pool.get("node"), "size_kb": int(kb), "count": count})
    return targets
