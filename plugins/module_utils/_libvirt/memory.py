# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A domain's memory options, checked (pure): hugepages, locking, page sharing, the balloon, numatune, guest NUMA cells.

spec.build_spec calls ``check_memory`` and ``check_numa`` once the vCPUs are planned.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import format_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._common.units import page_size_kib
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.vcpus import cpuset_option

NUMATUNE_MODES = ("strict", "preferred", "interleave", "restrictive")


def parse_page_size(option, value):
    """``2M``, ``1G``, ``1Gi``, ``2048k`` -> size in KiB."""
    size = page_size_kib(value)
    if size is None:
        raise OptionError(option, value, "not a page size; use 2M or 1G")
    return size


def check_memory(memory, plan, host):
    """Hugepages, locking, page sharing, the balloon and numatune, into ``plan``."""
    hugepages = memory.get("hugepages")
    plan["hugepages"] = None
    if hugepages is not None:
        size = parse_page_size("memory.hugepages.page_size", hugepages.get("page_size") or "2M")
        sizes = host.get("hugepage_sizes_kib")
        if sizes is not None and size not in sizes:
            raise OptionError("memory.hugepages.page_size", hugepages.get("page_size"),
                              "the host offers no %d KiB hugepages (it has %s)"
                              % (size, ", ".join("%d KiB" % s for s in sorted(sizes)) or "none"),
                              "use a size listed under /sys/kernel/mm/hugepages")
        if plan["memory_kib"] % size:
            kib = plan["memory_option"] == "memory_kib"
            raise OptionError(plan["memory_option"], plan["memory_kib"] // (1 if kib else 1024),
                              "is not a whole number of %d KiB hugepages" % size)
        nodeset = None
        if hugepages.get("nodeset") not in (None, ""):
            nodeset = cpuset_option("memory.hugepages.nodeset", hugepages.get("nodeset"))
            _check_nodes("memory.hugepages.nodeset", hugepages.get("nodeset"), nodeset, host.get("numa_nodes"))
        plan["hugepages"] = {"size_kib": size, "nodeset": nodeset}
    locked = memory.get("locked")
    plan["locked_given"] = locked is not None
    if locked is None:
        locked = plan["realtime"] is not None
    plan["locked"] = bool(locked)
    plan["nosharepages"] = plan["realtime"] is not None and plan["hugepages"] is not None
    plan["memballoon_none"] = plan["realtime"] is not None
    numatune = memory.get("numatune")
    plan["numatune"] = None
    if numatune is not None:
        nmode = numatune.get("mode") or "strict"
        if nmode not in NUMATUNE_MODES:
            raise OptionError("memory.numatune.mode", nmode, "must be one of %s" % ", ".join(NUMATUNE_MODES))
        nodes = cpuset_option("memory.numatune.nodeset", numatune.get("nodeset"))
        if not nodes:
            raise OptionError("memory.numatune.nodeset", numatune.get("nodeset"),
                              "is required and must name host NUMA nodes")
        _check_nodes("memory.numatune.nodeset", numatune.get("nodeset"), nodes, host.get("numa_nodes"))
        plan["numatune"] = {"mode": nmode, "nodeset": nodes}


def _check_nodes(option, value, nodes, numa_nodes):
    if numa_nodes is None:
        return
    missing = [n for n in nodes if n not in numa_nodes]
    if missing:
        raise OptionError(option, value, "the host has no NUMA node %s (nodes: %s)" % (format_cpuset(missing), format_cpuset(sorted(numa_nodes)) or "none"),
                          "name only nodes listed under /sys/devices/system/node")


def check_numa(numa, plan, numa_nodes):
    """Guest NUMA cells and their memnode bindings."""
    if not numa:
        return [], []
    if numa.get("passthrough") and numa.get("cells"):
        raise OptionError("cpu.numa", numa, "passthrough and cells are mutually exclusive")
    vcpus = plan["vcpus"]
    unit = plan["hugepages"]["size_kib"] if plan["hugepages"] else 1024
    if numa.get("cells"):
        cells = []
        used = set()
        for index, cell in enumerate(numa["cells"]):
            cpus = cpuset_option("cpu.numa.cells[%d].cpus" % index, cell.get("cpus"), maximum=vcpus - 1)
            if not cpus or used.intersection(cpus):
                raise OptionError("cpu.numa.cells[%d].cpus" % index, cell.get("cpus"), "must name vCPUs no other cell has")
            used.update(cpus)
            if not cell.get("memory_mib"):
                raise OptionError("cpu.numa.cells[%d].memory_mib" % index, cell.get("memory_mib"), "is required")
            cells.append({"id": index, "cpus": cpus, "memory_kib": cell["memory_mib"] * 1024})
        total = sum(c["memory_kib"] for c in cells)
        if total != plan["memory_kib"]:
            raise OptionError("cpu.numa.cells", numa["cells"], "cell memory adds up to %d MiB, memory_mib is %d"
                              % (total // 1024, plan["memory_kib"] // 1024))
        return cells, []
    if not numa.get("passthrough"):
        return [], []
    pinning = plan["pinning"]
    missing = [v for v in range(vcpus) if v not in pinning]
    if missing:
        raise OptionError("cpu.numa.passthrough", True, "vCPUs %s are not pinned, so their host NUMA node is unknown" % format_cpuset(missing),
                          "pin every vCPU in cpu.pinning")
    node_of = {}
    for node, cpus in (numa_nodes or {0: sorted(set(c for p in pinning.values() for c in p))}).items():
        for host_cpu in cpus:
            node_of[host_cpu] = node
    groups = {}
    for vcpu in range(vcpus):
        nodes = set(node_of.get(c) for c in pinning[vcpu])
        if len(nodes) != 1 or None in nodes:
            raise OptionError("cpu.pinning", format_cpuset(pinning[vcpu]),
                              "vCPU %d is pinned across host NUMA nodes; passthrough needs each vCPU inside one node" % vcpu)
        groups.setdefault(nodes.pop(), []).append(vcpu)
    pages = plan["memory_kib"] // unit
    cells, memnodes = [], []
    ordered = sorted(groups)
    if pages < len(ordered):
        raise OptionError("memory_mib", plan["memory_kib"] // 1024, "too small to give each of %d guest NUMA cells a page" % len(ordered))
    for index, node in enumerate(ordered):
        share = pages // len(ordered) + (1 if index < pages % len(ordered) else 0)
        cells.append({"id": index, "cpus": groups[node], "memory_kib": share * unit})
        memnodes.append({"cellid": index, "mode": "strict", "nodeset": [node]})
    return cells, memnodes
