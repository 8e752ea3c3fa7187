# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Module options + host facts -> a checked plan of the domain (pure).

Every check that can fail on user input runs here, before libvirt is
touched, and raises :class:`InputError` naming the option and the value.

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

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError, format_cpuset, parse_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._common.units import page_size_kib, to_kib
from ansible_collections.realtime.virt.plugins.module_utils._kernel import pci
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.cachetune import check_cachetune, check_memorytune
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.rng import resolve_rng

MAC = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")
CPU_MODES = ("host-passthrough", "host-model", "maximum", "custom")
FEATURE_POLICIES = ("force", "require", "optional", "disable", "forbid")
NUMATUNE_MODES = ("strict", "preferred", "interleave", "restrictive")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
DISK_PREFIX = {"virtio": "vd", "scsi": "sd", "sata": "sd", "usb": "sd", "ide": "hd"}
# libvirt's <timer name=...> and tickpolicy values (formatdomain, "Time keeping")
TIMER_NAMES = ("platform", "pit", "rtc", "hpet", "tsc", "kvmclock", "hypervclock", "armvtimer")
TICK_POLICIES = ("delay", "catchup", "merge", "discard")
# The guest clock of a real-time domain: the RTC catches up lost ticks, the
# PIT delays them, and the HPET (an emulated, exit-heavy timer) is hidden.
DEFAULT_TIMERS = ({"name": "rtc", "tickpolicy": "catchup", "present": None},
                  {"name": "pit", "tickpolicy": "delay", "present": None},
                  {"name": "hpet", "tickpolicy": None, "present": False})


def _cpus(option, value, maximum=None, allow_exclusion=False, empty=None):
    try:
        return parse_cpuset(value, allow_exclusion=allow_exclusion, empty=empty, maximum=maximum)
    except CpusetError as error:
        raise OptionError(option, value, str(error))


def parse_page_size(option, value):
    """``2M``, ``1G``, ``1Gi``, ``2048k`` -> size in KiB."""
    size = page_size_kib(value)
    if size is None:
        raise OptionError(option, value, "not a page size; use 2M or 1G")
    return size


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
    if cpu.get("emulator_policy") == "share":
        plan["emulator"] = shared_emulator_cpus(cpu, plan["pinning"], plan["realtime"], plan["vcpus"])
    plan["iothreads"] = _iothreads(params.get("iothreads"))
    plan["cachetune"] = check_cachetune(params.get("cachetune"), plan["vcpus"], host.get("resctrl"))
    plan["memorytune"] = check_memorytune(params.get("memorytune"), plan["vcpus"], host.get("resctrl"))
    _memory(_sub(params, "memory"), plan, host)
    plan["numa_cells"], plan["memnodes"] = _numa(cpu.get("numa"), plan, host.get("numa_nodes"))
    plan["rng"] = resolve_rng(params.get("rng"), params.get("rng_profiles"), host.get("devices"))
    plan["hostdevs"] = _hostdevs(params.get("hostdevs") or [])
    boot = params.get("boot")
    if boot and not boot.get("kernel"):
        raise OptionError("boot.kernel", None, "is required when boot is given")
    plan["boot"] = boot or None
    plan["disks"] = _disks(params.get("disks") or [], _iothread_count(plan["iothreads"], base_root))
    plan["interfaces"] = _interfaces(params.get("interfaces") or [])
    plan["serial_log"] = params.get("serial_log")
    plan["hardening"] = _hardening(params.get("hardening"), plan, base_root)
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
        cpus = _cpus(option + ".cpuset", entry.get("cpuset"))
        if not cpus:
            raise OptionError(option + ".cpuset", entry.get("cpuset"), "is empty")
        _check_online(option + ".cpuset", entry.get("cpuset"), cpus, online, "vCPU %d" % vcpu)
        pinning[vcpu] = cpus
    emulator = None
    if cpu.get("emulator_cpuset") not in (None, ""):
        emulator = _cpus("cpu.emulator_cpuset", cpu.get("emulator_cpuset"))
        _check_online("cpu.emulator_cpuset", cpu.get("emulator_cpuset"), emulator, online, "the emulator thread")
    return pinning, emulator


def shared_emulator_cpus(cpu, pinning, realtime, vcpus):
    """Host CPUs of the vCPUs outside the real-time mask: where ``emulator_policy: share`` puts the emulator.

    Nova's ``hw:emulator_threads_policy=share`` with a real-time mask: the
    emulator and IO threads run beside the guest's housekeeping vCPUs, not
    on the host's housekeeping CPUs and never on a real-time vCPU's CPU.
    """
    option = "cpu.emulator_policy"
    if cpu.get("emulator_cpuset") not in (None, ""):
        raise OptionError(option, "share", "share takes the emulator CPUs from the vCPUs outside realtime.mask, so "
                          "cpu.emulator_cpuset (%s) cannot be given too" % cpu.get("emulator_cpuset"),
                          "remove cpu.emulator_cpuset, or set emulator_policy to cpuset")
    if realtime is None:
        raise OptionError(option, "share", "share needs a real-time domain whose realtime.mask leaves vCPUs out",
                          "give realtime.mask, for example '^0' to keep vCPU 0 for the guest's housekeeping")
    others = [vcpu for vcpu in range(vcpus) if vcpu not in realtime["vcpus"]]
    if not others:
        raise OptionError(option, "share", "realtime.mask makes every vCPU real-time, so there is no vCPU to share "
                          "the emulator with", "leave a vCPU out of realtime.mask (for example '^0')")
    unpinned = [vcpu for vcpu in others if vcpu not in pinning]
    if unpinned:
        raise OptionError(option, "share", "vCPUs %s outside realtime.mask are not pinned, so the CPUs to share "
                          "are unknown" % format_cpuset(unpinned), "pin every vCPU in cpu.pinning")
    return sorted(set(host_cpu for vcpu in others for host_cpu in pinning[vcpu]))


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


def _hardening(hardening, plan, base_root=None):
    """The guest hardening to write, or None.

    On by default for real-time domains.  ``hint_dedicated`` unset means
    "where it holds": a KVM domain whose every vCPU has a host CPU of its
    own and the host CPU passed through (libvirt accepts the hint with
    ``host-passthrough`` only); set to true where that does not hold, it is
    refused.
    """
    hardening = hardening or {}
    enabled = hardening.get("enabled")
    if enabled is None:
        enabled = plan["realtime"] is not None
    if not enabled:
        return None
    dedicated = _dedicated(plan, base_root)
    hint = hardening.get("hint_dedicated")
    if hint and dedicated is not True:
        raise OptionError("hardening.hint_dedicated", True, dedicated,
                          "pin every vCPU to a host CPU of its own with domain_type kvm, or leave hint_dedicated unset")
    timers = hardening.get("timers")
    return {
        "hint_dedicated": dedicated is True if hint is None else hint,
        "timers": _timers(DEFAULT_TIMERS if timers is None else timers),
        "guest_suspend": bool(hardening.get("guest_suspend", False)),
        "immediate_allocation": hardening.get("immediate_allocation", True) is not False and bool(plan["hugepages"]),
        "strip_devices": hardening.get("strip_devices", True) is not False,
    }


def _dedicated(plan, base_root=None):
    """True when every vCPU has a host CPU of its own under KVM with the host CPU passed through, else why not."""
    if plan["domain_type"] != "kvm":
        return "KVM's dedicated-CPU hint needs domain_type kvm (QEMU's TCG has no such hint)"
    mode = plan["cpu"]["mode"]
    base_cpu = base_root.find("cpu") if base_root is not None else None
    if not plan["cpu"]["mode_given"] and base_cpu is not None:
        mode = base_cpu.get("mode") or "custom"
    if mode != "host-passthrough":
        return "libvirt takes KVM's dedicated-CPU hint only with cpu.mode host-passthrough (this domain's is %s)" % mode
    single = [plan["pinning"].get(vcpu) or [] for vcpu in range(plan["vcpus"])]
    if any(len(cpus) != 1 for cpus in single):
        return "not every vCPU is pinned to exactly one host CPU"
    if len(set(cpus[0] for cpus in single)) != plan["vcpus"]:
        return "two vCPUs share a host CPU"
    return True


def _timers(timers):
    result, seen = [], set()
    for index, timer in enumerate(timers):
        option = "hardening.timers[%d]" % index
        name = timer.get("name")
        if name not in TIMER_NAMES:
            raise OptionError(option + ".name", name, "not a timer libvirt knows",
                              "use one of %s" % ", ".join(TIMER_NAMES))
        if name in seen:
            raise OptionError(option + ".name", name, "the timer is listed twice", "give each timer once")
        seen.add(name)
        tickpolicy = timer.get("tickpolicy")
        if tickpolicy is not None and tickpolicy not in TICK_POLICIES:
            raise OptionError(option + ".tickpolicy", tickpolicy, "not a tick policy",
                              "use one of %s" % ", ".join(TICK_POLICIES))
        present = timer.get("present")
        if present is False and tickpolicy is not None:
            raise OptionError(option + ".tickpolicy", tickpolicy, "a timer that is not present has no tick policy",
                              "remove tickpolicy, or set present to true")
        if tickpolicy is None and present is None:
            raise OptionError(option, name, "says nothing about the timer", "give tickpolicy or present")
        result.append({"name": name, "tickpolicy": tickpolicy, "present": present})
    return result


def realtime_vcpus(mask, vcpus, option="realtime.mask", fix=None):
    """The vCPU ids ``realtime.mask`` selects among ``vcpus`` vCPUs: a CPU set of vCPU ids, empty for all of them.

    ``^N`` alone takes vCPU N out of all of them. A mask that selects none,
    or names a vCPU the domain does not have, raises ``OptionError`` naming
    ``option``.
    """
    # an integer from YAML (mask: 0) names vCPU 0, as the string "0" does;
    # only a missing mask means all of them
    mask = "" if mask is None else str(mask)
    try:
        rt_vcpus = parse_cpuset(mask, allow_exclusion=True, empty=list(range(vcpus)), maximum=vcpus - 1)
    except CpusetError as error:
        raise OptionError(option, mask, str(error), fix)
    if not rt_vcpus:
        raise OptionError(option, mask, "selects no vCPU", fix)
    return rt_vcpus


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


def _memory(memory, plan, host):
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
            nodeset = _cpus("memory.hugepages.nodeset", hugepages.get("nodeset"))
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
        nodes = _cpus("memory.numatune.nodeset", numatune.get("nodeset"))
        if not nodes:
            raise OptionError("memory.numatune.nodeset", numatune.get("nodeset"),
                              "is required and must name host NUMA nodes")
        _check_nodes("memory.numatune.nodeset", numatune.get("nodeset"), nodes, host.get("numa_nodes"))
        plan["numatune"] = {"mode": nmode, "nodeset": nodes}


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


def _check_nodes(option, value, nodes, numa_nodes):
    if numa_nodes is None:
        return
    missing = [n for n in nodes if n not in numa_nodes]
    if missing:
        raise OptionError(option, value, "the host has no NUMA node %s (nodes: %s)" % (format_cpuset(missing), format_cpuset(sorted(numa_nodes)) or "none"),
                          "name only nodes listed under /sys/devices/system/node")


def _numa(numa, plan, numa_nodes):
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
            cpus = _cpus("cpu.numa.cells[%d].cpus" % index, cell.get("cpus"), maximum=vcpus - 1)
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
