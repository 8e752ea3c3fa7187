# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""``cachetune`` and ``memorytune`` options checked against the host's Intel RDT (pure).

``rdt`` is the ``resctrl`` section of the host facts (_node/resctrl.py), or
None on a remote URI (then only the options' own shape is checked).  A
request the kernel cannot give fails here, before libvirt is called:

* resctrl is not mounted, or the CPU has no cache allocation;
* no resctrl resource for the cache's level and type (``L3``; with CDP
  ``L3CODE``/``L3DATA`` for ``code``/``data``), no cache of that id;
* a size that is not a whole number of ways (cache size / bits of
  ``cbm_mask``), below ``min_cbm_bits`` ways, or more than the cache less
  the ``min_cbm_bits`` ways the default group keeps;
* more groups than ``num_closids`` less the default group's;
* a bandwidth that is not a multiple of ``bandwidth_gran``, below
  ``min_bandwidth`` or above 100, on a node (an L3 id) the host lacks.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError, parse_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._common.units import unit_bytes

CACHE_TYPES = ("both", "code", "data")
RESOURCE = {"both": "", "code": "CODE", "data": "DATA"}
MOUNT_FIX = ("mount resctrl (mount -t resctrl resctrl /sys/fs/resctrl) on a CPU with cat_l3 (rt_node_facts' "
             "cache_allocation check says how), or remove %s")


def class_limit(rdt):
    """How many cachetune groups the host can give (its classes of service less the default group's), or None.

    None when resctrl is not mounted or shows no cache resource.  With CDP
    the code and data resources each have a count; the smaller one holds.
    """
    if not isinstance(rdt, dict) or not rdt.get("mounted"):
        return None
    counts = [r.get("num_closids") for r in (rdt.get("resources") or {}).values()
              if isinstance(r, dict) and "cbm_mask" in r and r.get("num_closids")]
    return min(counts) - 1 if counts else None


def _vcpus(option, text, vcpus, taken):
    try:
        chosen = parse_cpuset(str(text or ""), allow_exclusion=True, maximum=vcpus - 1)
    except CpusetError as error:
        raise OptionError(option, text, str(error), "name vCPUs from 0 to %d, such as 0-1" % (vcpus - 1))
    if not chosen:
        raise OptionError(option, text, "selects no vCPU", "name the vCPUs the group is for")
    clash = sorted(set(chosen) & taken)
    if clash:
        raise OptionError(option, text, "vCPUs %s are in another group already; libvirt allows each vCPU in one "
                          "group" % ",".join(str(v) for v in clash), "give every vCPU to one group at most")
    taken.update(chosen)
    return chosen


def _host_ready(option, value, rdt, what):
    if rdt is None:
        return False
    if not rdt.get("mounted"):
        flags = rdt.get("cpu_flags") or {}
        why = ("resctrl (Intel RDT) is not mounted on this host" if flags.get("cat_l3") or flags.get("cat_l2") or
               flags.get("mba") else "this host's CPU offers no %s (no %s flag) and resctrl is not mounted"
               % (what, "mba" if what == "memory bandwidth allocation" else "cat_l3 or cat_l2"))
        raise OptionError(option, value, why + ", so libvirt cannot give the domain %s" % what, MOUNT_FIX % option)
    return True


def check_cachetune(entries, vcpus, rdt):
    """``[{vcpus, caches: [{id, level, type, size_kib}]}]`` of the ``cachetune`` option."""
    result, taken = [], set()
    if entries and _host_ready("cachetune", entries, rdt, "cache allocation"):
        limit = class_limit(rdt)
        if limit is not None and len(entries) > limit:
            raise OptionError("cachetune", len(entries), "%d groups, but the host has %d classes of service and "
                              "the default group keeps one" % (len(entries), limit + 1),
                              "merge groups, or give fewer vCPU sets their own cache ways")
    for index, entry in enumerate(entries or []):
        option = "cachetune[%d]" % index
        chosen = _vcpus(option + ".vcpus", entry.get("vcpus"), vcpus, taken)
        caches = []
        for number, cache in enumerate(entry.get("caches") or []):
            caches.append(_cache("%s.caches[%d]" % (option, number), cache, rdt))
        if not caches:
            raise OptionError(option + ".caches", entry.get("caches"), "asks no cache", "give at least one cache")
        result.append({"vcpus": chosen, "caches": caches})
    return result


def _cache(option, cache, rdt):
    level, kind = cache.get("level") or 3, cache.get("type") or "both"
    factor = unit_bytes(cache.get("unit") or "KiB")
    size = cache.get("size")
    if factor is None or size is None or size < 1 or (size * factor) % 1024:
        raise OptionError(option + ".size", size, "needs a positive size in KiB, MiB...", "write size: 2 and unit: MiB")
    size_kib = size * factor // 1024
    planned = {"id": cache.get("id"), "level": level, "type": kind, "size_kib": size_kib}
    if rdt is None or not rdt.get("mounted"):
        return planned
    name = "L%d%s" % (level, RESOURCE[kind])
    resource = rdt["resources"].get(name)
    if resource is None:
        have = ", ".join(sorted(r for r in rdt["resources"] if r.startswith("L"))) or "none"
        raise OptionError(option + ".type" if kind != "both" else option + ".level", kind if kind != "both" else level,
                          "resctrl has no %s resource (it has: %s)" % (name, have),
                          "ask a level and type the host allocates (type code/data needs CDP: rdt=cdp_l3)")
    found = [c for c in rdt.get("caches") or [] if c["level"] == level and c["type"] in ("both", kind)
             and c["id"] == cache.get("id")]
    if not found:
        ids = sorted(set(c["id"] for c in rdt.get("caches") or [] if c["level"] == level))
        raise OptionError(option + ".id", cache.get("id"), "the host has no level %d cache with that id (ids: %s)"
                          % (level, ", ".join(str(i) for i in ids) or "none"), "use an id of the cache the vCPUs "
                          "run under (/sys/devices/system/cpu/cpu*/cache/index*/id)")
    ways, minimum = resource.get("ways") or 0, resource.get("min_cbm_bits") or 1
    way_kib = found[0]["size_kb"] // ways if ways and found[0]["size_kb"] else None
    if not way_kib:
        return planned
    if size_kib % way_kib:
        raise OptionError(option + ".size", size, "%d KiB is not a whole number of %d KiB ways (L%d cache %d: %d KiB "
                          "in %d ways)" % (size_kib, way_kib, level, cache.get("id"), found[0]["size_kb"], ways),
                          "ask a multiple of %d KiB" % way_kib)
    wanted = size_kib // way_kib
    most = ways - minimum
    if wanted < minimum or wanted > most:
        raise OptionError(option + ".size", size, "%d ways of %d KiB, but the host gives from %d to %d (the default "
                          "group keeps %d of the %d ways)" % (wanted, way_kib, minimum, most, minimum, ways),
                          "ask from %d to %d KiB" % (minimum * way_kib, most * way_kib))
    return planned


def check_memorytune(entries, vcpus, rdt):
    """``[{vcpus, nodes: [{id, bandwidth}]}]`` of the ``memorytune`` option."""
    result, taken = [], set()
    ready = bool(entries) and _host_ready("memorytune", entries, rdt, "memory bandwidth allocation")
    resource = (rdt or {}).get("resources", {}).get("MB") if ready else None
    if ready and resource is None:
        raise OptionError("memorytune", entries, "resctrl has no MB resource, so the host cannot limit memory "
                          "bandwidth", "remove memorytune, or boot with rdt=mba on a CPU with the mba flag")
    l3_ids = sorted(set(c["id"] for c in (rdt or {}).get("caches") or [] if c["level"] == 3))
    for index, entry in enumerate(entries or []):
        option = "memorytune[%d]" % index
        chosen = _vcpus(option + ".vcpus", entry.get("vcpus"), vcpus, taken)
        nodes = []
        for number, node in enumerate(entry.get("nodes") or []):
            where = "%s.nodes[%d]" % (option, number)
            bandwidth = node.get("bandwidth")
            if bandwidth is None or bandwidth < 1 or bandwidth > 100:
                raise OptionError(where + ".bandwidth", bandwidth, "is a percentage from 1 to 100",
                                  "write the share of the node's bandwidth, such as 50")
            if resource:
                gran, low = resource.get("bandwidth_gran") or 1, resource.get("min_bandwidth") or 0
                if bandwidth < low or bandwidth % gran:
                    raise OptionError(where + ".bandwidth", bandwidth, "the host allocates %d%% and up in steps of "
                                      "%d%%" % (low, gran), "ask a multiple of %d from %d to 100" % (gran, low))
                if l3_ids and node.get("id") not in l3_ids:
                    raise OptionError(where + ".id", node.get("id"), "no memory bandwidth domain of that id (the L3 "
                                      "cache ids: %s)" % ", ".join(str(i) for i in l3_ids), "use an L3 cache id")
            nodes.append({"id": node.get("id"), "bandwidth": bandwidth})
        if not nodes:
            raise OptionError(option + ".nodes", entry.get("nodes"), "asks no node", "give at least one node")
        result.append({"vcpus": chosen, "nodes": nodes})
    return result
