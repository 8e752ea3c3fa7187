# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Module options + host facts -> a checked plan of the domain (pure).

Every check that can fail on user input runs from ``build_spec``, before
libvirt is touched, and raises :class:`OptionError` naming the option and
the value.  This file checks the identity, the CPU model, pinning,
real-time and devices; memory.py the memory and guest NUMA, hardening.py
the guest hardening, vcpus.py the vCPU sets placement shares, cachetune.py
Intel RDT and rng.py the RNG.

``host`` is a dict of facts read by the manager (any of them may be None
when unknown, for example on a remote URI, and then is not checked):

``online``             online host CPU ids
``hugepage_sizes_kib`` hugepage sizes the kernel offers, in KiB
``numa_nodes``         host NUMA node id -> CPU ids
``devices``            set of RNG device paths present
``resctrl``            Intel RDT: CPU flags, resctrl mount, resources, caches
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import format_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._common.units import to_kib
from ansible_collections.realtime.virt.plugins.module_utils._kernel import pci
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.cachetune import check_cachetune, check_memorytune
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.hardening import check_hardening
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.memory import check_memory, check_numa
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.rng import resolve_rng
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.vcpus import cpuset_option, emulator_placement, realtime_vcpus

MAC = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")
CPU_MODES = ("host-passthrough", "host-model", "maximum", "custom")
FEATURE_POLICIES = ("force", "require", "optional", "disable", "forbid")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
DISK_PREFIX = {"virtio": "vd", "scsi": "sd", "sata": "sd", "usb": "sd", "ide": "hd"}


def parse_pci_address(option, value):
    """``0000:6b:00.1`` (or ``6b:00.1``) -> (domain, bus, slot, function) ints."""
    try:
        return pci.parse_address(value)
    except ValueError as error:
        raise OptionError(option, value, str(error))


def _sub(params, key):
    return params.get(key) or {}


def vcpus_of_base(root):
    """Number of vCPUs and memory (KiB) a base XML declares (None when absent)."""
    vcpus = memory = None
    if root is None:
        return vcpus, memory
    node = root.find("vcpu")
    if node is not None and (node.text or "").strip().isdigit():
        vcpus = int(node.text.strip())
    node = root.find("memory")
    if node is not None and (node.text or "").strip().isdigit():
        memory = to_kib(node.text, node.get("unit"))
    return vcpus, memory


def build_spec(params, host, base_root=None):
    """Check the options and return the plan the renderer draws from."""
    host = host or {}
    plan = _identity(params, base_root)
    cpu = _sub(params, "cpu")
    plan["cpu"] = _cpu_model(cpu, params.get("domain_type") or "kvm", plan["vcpus"])
    plan["pinning"], plan["emulator"] = _pinning(cpu, plan["vcpus"], host.get("online"))
    plan["realtime"] = _realtime(params.get("realtime"), plan["vcpus"], plan["pinning"])
    plan["emulator"], deprecation = emulator_placement(cpu, plan["pinning"], plan["realtime"], plan["vcpus"],
                                                       plan["emulator"])
    plan["deprecations"] = [deprecation] if deprecation else []
    plan["iothreads"] = _iothreads(params.get("iothreads"))
    plan["cachetune"] = check_cachetune(params.get("cachetune"), plan["vcpus"], host.get("resctrl"))
    plan["memorytune"] = check_memorytune(params.get("memorytune"), plan["vcpus"], host.get("resctrl"))
    check_memory(_sub(params, "memory"), plan, host)
    plan["numa_cells"], plan["memnodes"] = check_numa(cpu.get("numa"), plan, host.get("numa_nodes"))
    plan["rng"] = resolve_rng(params.get("rng"), params.get("rng_profiles"), host.get("devices"))
    plan["hostdevs"] = _hostdevs(params.get("hostdevs") or [])
    boot = params.get("boot")
    if boot and not boot.get("kernel"):
        raise OptionError("boot.kernel", None, "is required when boot is given")
    plan["boot"] = boot or None
    plan["disks"] = _disks(params.get("disks") or [], _iothread_count(plan["iothreads"], base_root))
    plan["interfaces"] = _interfaces(params.get("interfaces") or [])
    plan["serial_log"] = params.get("serial_log")
    plan["hardening"] = check_hardening(params.get("hardening"), plan, base_root)
    return plan


def _identity(params, base_root):
    """Name, type, machine, vCPU count and memory size (options first, then base_xml)."""
    name = params["name"]
    if not name or "/" in name:
        raise OptionError("name", name, "a domain name must be non-empty and contain no '/'")
    if CONTROL.search(name):
        raise OptionError("name", name, "a domain name cannot hold a control character (newline, tab, NUL...); "
                          "libvirt refuses or mangles it", "rename the domain with printable characters only")
    base_vcpus, base_memory = vcpus_of_base(base_root)
    vcpus = params.get("vcpus") if params.get("vcpus") is not None else base_vcpus
    given = [key for key in ("memory_mib", "memory_kib") if params.get(key) is not None]
    if len(given) > 1:
        raise OptionError("memory_kib", params["memory_kib"], "memory_mib gives the size too", "give one of them")
    memory_kib = params[given[0]] * (1024 if given == ["memory_mib"] else 1) if given else base_memory
    if vcpus is None:
        raise OptionError("vcpus", None, "is required (or a <vcpu> element in base_xml)")
    if memory_kib is None:
        raise OptionError("memory_mib", None, "is required (or memory_kib, or a <memory> element in base_xml)")
    if vcpus < 1:
        raise OptionError("vcpus", vcpus, "must be at least 1")
    if memory_kib < 1024:
        key = given[0] if given else "memory_mib"
        raise OptionError(key, params.get(key), "must be at least 1 MiB")
    return {
        "name": name,
        "domain_type": params.get("domain_type") or "kvm",
        "machine": params.get("machine"),
        "vcpus": vcpus,
        "memory_kib": memory_kib,
        "memory_option": given[0] if given else "memory_mib",
        "set_vcpus": params.get("vcpus") is not None or base_root is None,
        "set_memory": bool(given) or base_root is None,
    }


def _cpu_model(cpu, domain_type, vcpus):
    """CPU mode, model, features and topology."""
    mode = cpu.get("mode") or ("maximum" if domain_type == "qemu" else "host-passthrough")
    if mode not in CPU_MODES:
        raise OptionError("cpu.mode", mode, "must be one of %s" % ", ".join(CPU_MODES))
    if mode == "host-passthrough" and domain_type == "qemu":
        raise OptionError("cpu.mode", mode, "needs domain_type kvm: QEMU's TCG emulation cannot pass the host CPU "
                                            "through; use cpu.mode maximum (the default for domain_type qemu)")
    if mode == "custom" and not cpu.get("model"):
        raise OptionError("cpu.model", None, "is required when cpu.mode is custom")
    if mode != "custom" and cpu.get("model"):
        raise OptionError("cpu.model", cpu.get("model"), "is only used with cpu.mode custom")
    features = []
    seen = set()
    for index, feature in enumerate(cpu.get("features") or []):
        fname = (feature.get("name") or "").strip()
        policy = feature.get("policy") or "require"
        if not re.match(r"^[A-Za-z0-9_.-]+$", fname):
            raise OptionError("cpu.features[%d].name" % index, fname, "not a CPU feature name")
        if policy not in FEATURE_POLICIES:
            raise OptionError("cpu.features[%d].policy" % index, policy,
                              "must be one of %s" % ", ".join(FEATURE_POLICIES))
        if fname in seen:
            raise OptionError("cpu.features[%d].name" % index, fname, "the feature is listed twice")
        seen.add(fname)
        features.append((fname, policy))
    return {"mode": mode, "mode_given": bool(cpu.get("mode")), "model": cpu.get("model"), "features": features,
            "topology": _topology(cpu, vcpus)}


def _topology(cpu, vcpus):
    topology = cpu.get("topology")
    if not topology:
        return None
    for key in ("sockets", "cores", "threads"):
        if topology.get(key) is not None and topology.get(key) < 1:
            raise OptionError("cpu.topology.%s" % key, topology.get(key), "must be at least 1",
                              "give sockets, cores and threads whose product is vcpus (%d)" % vcpus)
    sockets, cores, threads = (int(topology.get(k) or 1) for k in ("sockets", "cores", "threads"))
    if sockets * cores * threads != vcpus:
        raise OptionError("cpu.topology", topology,
                          "sockets x cores x threads = %d but vcpus is %d" % (sockets * cores * threads, vcpus))
    return {"sockets": sockets, "cores": cores, "threads": threads}


def _pinning(cpu, vcpus, online):
    """``({vcpu: host CPUs}, emulator CPUs or None)``, every CPU online."""
    last_vcpu = vcpus - 1
    pinning = {}
    for index, entry in enumerate(cpu.get("pinning") or []):
        vcpu = entry.get("vcpu")
        option = "cpu.pinning[%d]" % index
        if vcpu is None or vcpu < 0 or vcpu > last_vcpu:
            raise OptionError(option + ".vcpu", vcpu, "no such vCPU; the domain has vCPUs 0-%d" % last_vcpu)
        if vcpu in pinning:
            raise OptionError(option + ".vcpu", vcpu, "vCPU %d is pinned twice" % vcpu)
        cpus = cpuset_option(option + ".cpuset", entry.get("cpuset"))
        if not cpus:
            raise OptionError(option + ".cpuset", entry.get("cpuset"), "is empty")
        _check_online(option + ".cpuset", entry.get("cpuset"), cpus, online, "vCPU %d" % vcpu)
        pinning[vcpu] = cpus
    emulator = None
    if cpu.get("emulator_cpuset") not in (None, ""):
        emulator = cpuset_option("cpu.emulator_cpuset", cpu.get("emulator_cpuset"))
        _check_online("cpu.emulator_cpuset", cpu.get("emulator_cpuset"), emulator, online, "the emulator thread")
    return pinning, emulator


def _iothreads(count):
    if count is None:
        return None
    if count < 0:
        raise OptionError("iothreads", count, "must be 0 (no IO thread) or more")
    return count


def _iothread_count(iothreads, base_root):
    """IO threads the domain will have: the option's, else base_xml's <iothreads>, else 0."""
    if iothreads is not None:
        return iothreads
    node = base_root.find("iothreads") if base_root is not None else None
    text = (node.text or "").strip() if node is not None else ""
    return int(text) if text.isdigit() else 0


def _realtime(realtime, vcpus, pinning):
    """The real-time vCPUs (mask), scheduler and priority, or None."""
    if realtime is None or realtime.get("enabled", True) is False:
        return None
    priority = realtime.get("priority")
    priority = 1 if priority is None else priority
    if priority < 1 or priority > 99:
        raise OptionError("realtime.priority", priority, "real-time priorities run from 1 to 99")
    scheduler = realtime.get("scheduler") or "fifo"
    if scheduler not in ("fifo", "rr"):
        raise OptionError("realtime.scheduler", scheduler, "must be fifo or rr")
    mask = realtime.get("mask")
    mask = "" if mask is None else str(mask)
    rt_vcpus = realtime_vcpus(mask, vcpus)
    unpinned = [v for v in rt_vcpus if v not in pinning]
    if unpinned:
        raise OptionError("realtime.mask", mask, "real-time vCPUs %s are not pinned" % format_cpuset(unpinned),
                          "give each of them a dedicated host CPU in cpu.pinning")
    return {"vcpus": rt_vcpus, "scheduler": scheduler, "priority": priority}


def _hostdevs(texts):
    hostdevs = []
    for index, text in enumerate(texts):
        address = parse_pci_address("hostdevs[%d]" % index, text)
        if address in hostdevs:
            raise OptionError("hostdevs[%d]" % index, text, "%s is listed twice" % pci.format_address(address))
        hostdevs.append(address)
    return hostdevs


def _check_online(option, value, cpus, online, what):
    if online is None:
        return
    offline = [c for c in cpus if c not in online]
    if offline:
        raise OptionError(option, value, "%s would run on host CPU(s) %s, which are not online (online: %s)"
                          % (what, format_cpuset(offline), format_cpuset(online) or "none"),
                          "use online host CPUs only")


def _disks(disks, iothreads=0):
    result = []
    counters = {}
    targets = set()
    for index, disk in enumerate(disks):
        if not disk.get("path"):
            raise OptionError("disks[%d].path" % index, disk.get("path"), "is required")
        bus = disk.get("bus") or "virtio"
        if bus not in DISK_PREFIX:
            raise OptionError("disks[%d].bus" % index, bus, "must be one of %s" % ", ".join(sorted(DISK_PREFIX)))
        prefix = DISK_PREFIX[bus]
        target = disk.get("target")
        if not target:
            number = counters.get(prefix, 0)
            target = prefix + "abcdefghijklmnopqrstuvwxyz"[number]
        counters[prefix] = counters.get(prefix, 0) + 1
        if target in targets:
            raise OptionError("disks[%d].target" % index, target, "the target device name is used twice",
                              "give every disk its own target (vda, vdb...) or leave target unset")
        targets.add(target)
        iothread = disk.get("iothread")
        if iothread is not None:
            if bus != "virtio":
                raise OptionError("disks[%d].iothread" % index, iothread, "only virtio disks run on an IO thread "
                                  "(this one is on bus %s)" % bus, "remove iothread, or use bus virtio")
            if iothread < 1 or iothread > iothreads:
                raise OptionError("disks[%d].iothread" % index, iothread,
                                  "the domain has %s" % ("IO threads 1-%d" % iothreads if iothreads else "no IO thread"),
                                  "set iothreads to %d or more, or name an IO thread from 1 to iothreads"
                                  % max(iothread, 1))
        result.append({"path": disk["path"], "bus": bus, "format": disk.get("format") or "raw", "target": target,
                       "device": disk.get("device") or "disk", "iothread": iothread})
    return result


def _interfaces(interfaces):
    result = []
    for index, iface in enumerate(interfaces):
        network, bridge = iface.get("network"), iface.get("bridge")
        if bool(network) == bool(bridge):
            raise OptionError("interfaces[%d]" % index, iface, "give exactly one of network or bridge")
        mac = iface.get("mac")
        if mac and not MAC.match(mac):
            raise OptionError("interfaces[%d].mac" % index, mac, "not a MAC address (xx:xx:xx:xx:xx:xx)")
        result.append({"type": "network" if network else "bridge", "source": network or bridge,
                       "model": iface.get("model") or "virtio", "mac": mac.lower() if mac else None})
    return result
