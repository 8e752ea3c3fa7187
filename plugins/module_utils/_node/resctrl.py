# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Intel RDT as the kernel shows it: the CPU's flags, the resctrl filesystem and the caches (read only).

* ``/proc/cpuinfo`` flags ``rdt_a``, ``cat_l3``, ``cat_l2``, ``cdp_l3``,
  ``mba``: what the CPU offers;
* ``/proc/mounts``: whether (and where) resctrl is mounted; the kernel
  fills ``<mount>/info/<resource>/`` only then: for a cache resource
  (``L3``, ``L2``, with CDP ``L3CODE``/``L3DATA``) ``cbm_mask`` (one bit per
  way), ``min_cbm_bits``, ``num_closids`` and ``shareable_bits``; for ``MB``
  ``min_bandwidth``, ``bandwidth_gran`` and ``num_closids``;
* ``/sys/devices/system/cpu/cpu*/cache/index*/``: ``level``, ``type``,
  ``size`` and ``id`` of each cache, and the CPUs sharing it.

libvirt's ``<cachetune>`` asks a cache by level, type and id for a size;
the kernel gives whole ways, so a size must be a whole number of ways
(cache size / bits in ``cbm_mask``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import format_cpuset, parse_kernel_cpulist
from ansible_collections.realtime.virt.plugins.module_utils._kernel import paths
from ansible_collections.realtime.virt.plugins.module_utils._node import parsing

RDT_FLAGS = ("rdt_a", "cat_l3", "cat_l2", "cdp_l3", "mba")
# sysfs cache type -> libvirt's <cache type=...>
CACHE_TYPES = {"Unified": "both", "Data": "data", "Instruction": "code"}
CACHE_FILES = ("cbm_mask", "min_cbm_bits", "num_closids", "shareable_bits")
MB_FILES = ("min_bandwidth", "bandwidth_gran", "num_closids")
# the bitmasks are hexadecimal, the counts decimal
HEX_FILES = {"cbm_mask": 16, "shareable_bits": 16}


def _int(text, base=10):
    try:
        return int((text or "").strip(), base)
    except ValueError:
        return None


def read_resctrl(reader):
    """``{cpu_flags, mounted, path, resources, caches}`` (see the module docstring)."""
    present = parsing.parse_cpu_flags(reader.read(paths.CPUINFO, optional=True))
    path = None
    for mount in parsing.parse_mounts(reader.read(paths.MOUNTS, optional=True)):
        if mount["fstype"] == "resctrl":
            path = mount["path"]
            break
    resources = {}
    if path:
        for name in reader.listdir(path + "/info", optional=True):
            base = "%s/info/%s/" % (path, name)
            if name == "MB":
                resources[name] = dict((key, _int(reader.read(base + key, optional=True))) for key in MB_FILES)
            elif name.startswith("L"):
                entry = dict((key, _int(reader.read(base + key, optional=True), HEX_FILES.get(key, 10)))
                             for key in CACHE_FILES)
                entry["ways"] = bin(entry["cbm_mask"]).count("1") if entry["cbm_mask"] is not None else None
                resources[name] = entry
    return {"cpu_flags": dict((flag, flag in present) for flag in RDT_FLAGS), "mounted": path is not None,
            "path": path, "resources": resources, "caches": read_caches(reader)}


def read_caches(reader):
    """Each cache once: ``{level, type, id, size_kb, cpus, cpuset}``, by level, type and id."""
    caches = {}
    for name in reader.listdir(paths.CPU, optional=True):
        if not name.startswith("cpu") or not name[3:].isdigit():
            continue
        base = "%s/%s/cache" % (paths.CPU, name)
        for index in reader.listdir(base, optional=True):
            if not index.startswith("index"):
                continue
            folder = "%s/%s/" % (base, index)
            level = _int(reader.read(folder + "level", optional=True))
            kind = CACHE_TYPES.get((reader.read(folder + "type", optional=True) or "").strip())
            cache_id = _int(reader.read(folder + "id", optional=True))
            if level is None or kind is None or cache_id is None or (level, kind, cache_id) in caches:
                continue
            try:
                cpus = parse_kernel_cpulist(reader.read(folder + "shared_cpu_list", optional=True) or "")
            except ValueError:
                cpus = []
            caches[(level, kind, cache_id)] = {
                "level": level, "type": kind, "id": cache_id,
                "size_kb": _int((reader.read(folder + "size", optional=True) or "").strip().rstrip("K")),
                "cpus": cpus, "cpuset": format_cpuset(cpus) if cpus else "",
            }
    return [caches[key] for key in sorted(caches)]
