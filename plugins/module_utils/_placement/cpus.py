# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""CPU placement of a domain: claim, ``cpus: auto``, emulator CPUs and NUMA binding (pure)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import format_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.vcpus import realtime_vcpus, shared_emulator_cpus
from ansible_collections.realtime.virt.plugins.module_utils._placement.vfs import vfs_fit


def _cpuset_text(cpus):
    return format_cpuset(sorted(cpus)) if cpus else "none"


def claim(plan, cpus, owners, rt_owner, realtime_names):
    name = plan["name"]
    for cpu in cpus:
        others = [other for other in owners.get(cpu, []) if other != name]
        clash = [other for other in others if other in realtime_names] if name not in realtime_names else others
        if clash:
            raise OptionError(
                plan["where"] + (".cpus" if plan["mode"] in ("auto", "explicit") else ".cpu.pinning"),
                format_cpuset(cpus),
                "host CPU %d already runs vCPUs of domain %s, and a real-time domain may not share its CPUs"
                % (cpu, ", ".join(sorted(clash))),
                "use cpus: auto, or pin the vCPUs to CPUs no other domain uses")
        owners.setdefault(cpu, [])
        if name not in owners[cpu]:
            owners[cpu].append(name)
        if name in realtime_names:
            rt_owner[cpu] = name


def _candidates(host, node_id, allow_unisolated):
    """(candidate CPUs, reserved emulator CPU or None, unisolated?) of a node."""
    node_cpus = host.nodes[node_id]
    isolated = node_cpus & host.isolated
    if isolated:
        return isolated, None, False
    if not allow_unisolated:
        return set(), None, False
    keep = sorted(node_cpus & host.housekeeping) or sorted(node_cpus)
    if len(node_cpus) > 1 and keep:
        return node_cpus - set([keep[0]]), keep[0], True
    return set(node_cpus), None, True


def _isolates(plan):
    """1 when the domain's emulator gets an isolated CPU of its own (emulator: isolate), else 0."""
    return 1 if plan["options"].get("emulator") == "isolate" else 0


def place_auto(plan, host, owners, previous, allow_unisolated, vf_free, warnings):
    options = plan["options"]
    vcpus = options["vcpus"]
    extra = _isolates(plan)
    wanted_node = options.get("numa_node")
    if wanted_node is not None and wanted_node not in host.nodes:
        raise OptionError(plan["where"] + ".numa_node", wanted_node, "the host has no such NUMA node",
                          "use one of the nodes %s, or remove numa_node" % ", ".join(str(n) for n in sorted(host.nodes)))
    node_ids = [wanted_node] if wanted_node is not None else sorted(host.nodes)
    taken = set(cpu for cpu, names in owners.items() if [n for n in names if n != plan["name"]])
    report = []
    options_by_node = {}
    count_vfs = bool(plan["vfs"]) and vf_free is not None
    for node_id in node_ids:
        candidates, reserved, unisolated = _candidates(host, node_id, allow_unisolated)
        free = sorted(candidates - taken)
        options_by_node[node_id] = (free, reserved, unisolated)
        if count_vfs:
            report.append("node %d: %d free CPUs (%s), %d free QAT VFs"
                          % (node_id, len(free), _cpuset_text(free), max(vf_free.get(node_id, 0), 0)))
        else:
            report.append("node %d: %d free (%s)" % (node_id, len(free), _cpuset_text(free)))

    # keep the previous placement when it still fits
    if previous and len(previous) == vcpus and all(len(previous.get(v, [])) == 1 for v in range(vcpus)):
        old = [previous[v][0] for v in range(vcpus)]
        node_id = host.node_of(old)
        if node_id in options_by_node and set(old) <= set(options_by_node[node_id][0]) and len(set(old)) == vcpus \
                and len(options_by_node[node_id][0]) >= vcpus + extra and vfs_fit(vf_free, node_id, plan["vfs"]):
            _chosen(plan, node_id, old, options_by_node[node_id], warnings)
            plan["kept"] = True
            return

    for node_id in node_ids:
        free = options_by_node[node_id][0]
        if len(free) >= vcpus + extra and vfs_fit(vf_free, node_id, plan["vfs"]):
            _chosen(plan, node_id, free[:vcpus], options_by_node[node_id], warnings)
            return

    if not host.isolated and not allow_unisolated:
        raise OptionError(plan["where"] + ".cpus", "auto",
                          "this host has no isolated CPUs, so there is nowhere to place real-time vCPUs",
                          "isolate CPUs with the realtime.virt.rt_host role and reboot, or set "
                          "rt_domain_allow_unisolated: true to place vCPUs on non-isolated CPUs (test hosts only: "
                          "no latency guarantee)")
    what = "isolated" if host.isolated else "online (rt_domain_allow_unisolated)"
    need = "%d vCPUs%s" % (vcpus, " and an emulator CPU of their own (emulator: isolate)" if extra else "")
    if count_vfs:
        raise OptionError(
            plan["where"] + ".cpus", "auto",
            "%s and %d QAT VFs need %d free %s CPUs and %d free assignable VFs on one NUMA node%s (VFs held by "
            "other defined domains and those given to domains placed before it are not free), short: %s" % (
                need, plan["vfs"], vcpus + extra, what, plan["vfs"],
                " (node %d)" % wanted_node if wanted_node is not None else "", "; ".join(report)),
            "lower vcpus or qat_vfs, create more VFs on a node with free CPUs (realtime.virt.qat role, qat_numvfs), "
            "or remove other domains (CPUs in use: %s)" % _cpuset_text(taken))
    raise OptionError(
        plan["where"] + ".cpus", "auto",
        "%s need %d free %s CPUs on one NUMA node%s, short: %s" % (
            need, vcpus + extra, what, " (node %d)" % wanted_node if wanted_node is not None else "",
            "; ".join(report)),
        "lower vcpus, remove or shrink other domains (CPUs in use: %s), or isolate more CPUs with realtime.virt.rt_host"
        % (_cpuset_text(taken)))


def _chosen(plan, node_id, cpus, node_options, warnings):
    plan["cpus"] = list(cpus)
    plan["numa_node"] = node_id
    plan["reserved"] = node_options[1]
    if _isolates(plan):
        plan["emulator_cpu"] = [cpu for cpu in node_options[0] if cpu not in cpus][0]
    if node_options[2]:
        warnings.append(
            "domain %s: the host has no isolated CPUs on node %d, so its vCPUs run on non-isolated CPUs %s "
            "(rt_domain_allow_unisolated is true); host tasks and interrupts can delay them. Isolate CPUs with "
            "realtime.virt.rt_host for real latency." % (plan["name"], node_id, format_cpuset(cpus)))


def isolate_emulator(plan, host, owners, allow_unisolated):
    """Give a domain placed by its own CPU set or pinning (emulator: isolate) one more CPU of its node."""
    node_id = host.node_of(plan["cpus"])
    option = plan["where"] + ".emulator"
    if node_id is None:
        raise OptionError(option, "isolate", "the vCPUs (CPUs %s) span NUMA nodes, so no node is theirs to take the "
                          "emulator CPU from" % format_cpuset(plan["cpus"]), "place the vCPUs on one node")
    candidates = _candidates(host, node_id, allow_unisolated)[0]
    free = sorted(cpu for cpu in candidates - set(plan["cpus"])
                  if not [name for name in owners.get(cpu, []) if name != plan["name"]])
    if not free:
        what = "isolated" if host.isolated else "online"
        raise OptionError(option, "isolate", "node %d has no free %s CPU left for the emulator: its %s CPUs %s are "
                          "all taken by vCPUs (this domain's %s) or other domains' emulators"
                          % (node_id, what, what, _cpuset_text(candidates), format_cpuset(plan["cpus"])),
                          "isolate one more CPU on node %d (realtime.virt.rt_host), free one, or use emulator: "
                          "housekeeping" % node_id)
    plan["emulator_cpu"] = free[0]
    take_emulator_cpu(plan, owners)


def take_emulator_cpu(plan, owners):
    """Count an isolated emulator CPU as taken, so no later domain places a vCPU there."""
    if plan.get("emulator_cpu") is not None:
        owners.setdefault(plan["emulator_cpu"], [])
        if plan["name"] not in owners[plan["emulator_cpu"]]:
            owners[plan["emulator_cpu"]].append(plan["name"])


def _shared(plan, cpus):
    """``emulator: share``: the CPUs of the vCPUs outside realtime.mask (the module's own rule)."""
    options = plan["options"]
    vcpus = len(cpus)
    realtime = options.get("realtime")
    rt = None
    if isinstance(realtime, dict) and realtime.get("enabled", True) is not False:
        rt = {"vcpus": realtime_vcpus(realtime.get("mask"), vcpus, option=plan["where"] + ".realtime.mask")}
    pinning = dict((index, [host_cpu]) for index, host_cpu in enumerate(cpus))
    try:
        return shared_emulator_cpus(pinning, rt, vcpus)
    except OptionError as error:
        raise OptionError(plan["where"] + ".emulator", "share", error.why, error.fix)


def emulator_for_pinned(plan):
    """cpu.emulator_cpuset of a domain placed by its own cpu.pinning, when placement chooses its emulator."""
    policy = plan["options"].get("emulator")
    cpu = dict(plan["options"].get("cpu") or {})
    if policy == "isolate":
        cpu["emulator_cpuset"] = str(plan["emulator_cpu"])
        cpu["emulator_policy"] = "isolate"
    elif policy == "share":
        pins = {}
        for pin in cpu.get("pinning") or []:
            pins[int(pin["vcpu"])] = str(pin["cpuset"])
        vcpus = plan["options"].get("vcpus") or len(pins)
        if sorted(pins) != list(range(vcpus)) or any(not value.isdigit() for value in pins.values()):
            raise OptionError(plan["where"] + ".emulator", "share", "share needs every vCPU pinned to one host CPU",
                              "give each vCPU one CPU in cpu.pinning, or use cpus")
        cpu["emulator_cpuset"] = format_cpuset(_shared(plan, [int(pins[v]) for v in range(vcpus)]))
    else:
        return
    plan["options"]["cpu"] = cpu


def finish_options(plan, host, used_vcpu_cpus, warnings):
    options = plan["options"]
    cpus = plan["cpus"]
    if plan["numa_node"] is None:
        plan["numa_node"] = host.node_of(cpus)
    node_id = plan["numa_node"]
    cpu = dict(options.get("cpu") or {})
    cpu["pinning"] = [{"vcpu": index, "cpuset": str(host_cpu)} for index, host_cpu in enumerate(cpus)]
    policy = options.get("emulator")
    if policy == "isolate":
        cpu["emulator_cpuset"] = str(plan["emulator_cpu"])
        cpu["emulator_policy"] = "isolate"
    elif policy == "share":
        # the CPUs the module's share computes, given as a set
        cpu["emulator_cpuset"] = format_cpuset(_shared(plan, cpus))
    if not cpu.get("emulator_cpuset"):
        emulator = set()
        if plan.get("reserved") is not None:
            emulator = set([plan["reserved"]])
        elif node_id is not None:
            emulator = (host.nodes[node_id] & host.housekeeping) - used_vcpu_cpus
        if not emulator:
            emulator = host.housekeeping - used_vcpu_cpus
            if emulator:
                warnings.append("domain %s: node %s has no free housekeeping CPU; its emulator threads run on %s "
                                "(another node)" % (plan["name"], node_id, format_cpuset(emulator)))
        if not emulator:
            emulator = set(cpus)
            warnings.append("domain %s: no housekeeping CPU is free, so its emulator threads share its vCPU CPUs %s"
                            % (plan["name"], format_cpuset(cpus)))
        cpu["emulator_cpuset"] = format_cpuset(sorted(emulator))
    options["cpu"] = cpu
    if node_id is not None:
        memory = dict(options.get("memory") or {})
        if not memory.get("numatune"):
            memory["numatune"] = {"mode": "strict", "nodeset": str(node_id)}
        options["memory"] = memory
