# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The entries of ``rt_domain_domains``: checked, merged with the defaults (pure)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError, parse_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._common.plain import plain_copy
from ansible_collections.realtime.virt.plugins.module_utils._common.units import page_size_kib

VARIABLE = "rt_domain_domains"
# Options of an entry that placement consumes; libvirt_rt_domain never sees them.
PRIVATE_KEYS = ("cpus", "qat_vfs", "numa_node", "emulator")
# Where placement puts a domain's emulator (and IO) threads.
EMULATOR_POLICIES = ("housekeeping", "isolate", "share")


def deep_merge(base, override):
    """``override`` on top of ``base``; nested dicts are merged, the rest replaced."""
    result = plain_copy(base) if isinstance(base, dict) else {}
    for key, value in (override or {}).items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = deep_merge(result[key], value)
        else:
            result[key] = plain_copy(value)
    return result


def is_realtime(options):
    realtime = options.get("realtime")
    return isinstance(realtime, dict) and realtime.get("enabled", True) is not False


def check_domain(index, options, names):
    where = "%s[%d]" % (VARIABLE, index)
    if not isinstance(options, dict):
        raise OptionError(where, options, "each domain must be a mapping of libvirt_rt_domain options",
                          "write the domain as {name: ..., vcpus: ..., memory_mib: ...}")
    name = options.get("name")
    if not isinstance(name, str) or not name.strip():
        raise OptionError(where + ".name", name, "every domain needs a name", "give the domain a unique name")
    if name in names:
        raise OptionError(where + ".name", name, "the name is used twice (also %s[%d])" % (VARIABLE, names[name]),
                          "give every domain its own name, or merge the two entries")
    names[name] = index
    where = "%s[%d] (%s)" % (VARIABLE, index, name)
    vfs = options.get("qat_vfs", 0)
    if vfs is None:
        vfs = 0
    if isinstance(vfs, bool) or not isinstance(vfs, int) or vfs < 0:
        raise OptionError(where + ".qat_vfs", vfs, "the number of QAT VFs must be a whole number, 0 or more",
                          "set qat_vfs to 0 (no VF) or to the number of VFs the domain needs")
    node = options.get("numa_node")
    if node is not None and (isinstance(node, bool) or not isinstance(node, int) or node < 0):
        raise OptionError(where + ".numa_node", node, "a NUMA node id is a whole number, 0 or more",
                          "remove numa_node to let the placement choose, or give a node id")
    emulator = options.get("emulator", "housekeeping")
    if emulator not in EMULATOR_POLICIES:
        raise OptionError(where + ".emulator", emulator, "not an emulator policy",
                          "use housekeeping (the node's housekeeping CPUs), isolate (one isolated CPU of its own) "
                          "or share (the CPUs of the vCPUs outside realtime.mask)")
    if emulator != "housekeeping" and (options.get("cpu") or {}).get("emulator_cpuset"):
        raise OptionError(where + ".emulator", emulator, "cpu.emulator_cpuset already places the emulator",
                          "keep one of them: emulator or cpu.emulator_cpuset")
    cpus = options.get("cpus")
    state = options.get("state", "running")
    if emulator != "housekeeping" and state != "absent" and cpus is None \
            and not (options.get("cpu") or {}).get("pinning"):
        raise OptionError(where + ".emulator", emulator, "%s needs the vCPUs placed" % emulator,
                          "give cpus (auto or a CPU set) or cpu.pinning")
    if cpus is None or state == "absent":
        return where, None, vfs
    vcpus = options.get("vcpus")
    if isinstance(vcpus, bool) or not isinstance(vcpus, int) or vcpus < 1:
        raise OptionError(where + ".vcpus", vcpus, "cpus: %s needs the number of vCPUs" % cpus,
                          "set vcpus to 1 or more")
    if (options.get("cpu") or {}).get("pinning"):
        raise OptionError(where + ".cpus", cpus, "cpus and cpu.pinning both place the vCPUs",
                          "keep one of them: cpus (auto or a CPU set) or cpu.pinning")
    if cpus == "auto":
        return where, "auto", vfs
    try:
        listed = parse_cpuset(str(cpus), allow_exclusion=False)
    except CpusetError as error:
        raise OptionError(where + ".cpus", cpus, "neither 'auto' nor a CPU set (%s)" % error,
                          "write cpus: auto, or a CPU set such as '2-3' with one CPU per vCPU")
    if len(listed) != vcpus:
        raise OptionError(where + ".cpus", cpus, "%d CPUs for %d vCPUs" % (len(listed), vcpus),
                          "give exactly one host CPU per vCPU, or cpus: auto")
    return where, listed, vfs


def hugepage_need(options):
    """(page size KiB, pages) the domain's memory needs, or None."""
    hugepages = (options.get("memory") or {}).get("hugepages")
    memory = options.get("memory_kib")
    if memory is None and isinstance(options.get("memory_mib"), int):
        memory = options["memory_mib"] * 1024
    if not isinstance(hugepages, dict) or not isinstance(memory, int):
        return None
    size = page_size_kib(hugepages.get("page_size") or "2M")
    if not size:
        return None
    return size, -(-memory // size)
