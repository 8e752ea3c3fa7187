# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Place the domains of ``rt_domain_domains`` on a host (pure, no I/O).

Inputs are plain data: the ``rt_node`` facts of ``rt_node_facts``, the
list of domain option sets, and what libvirt already holds (the
``domains`` list of ``libvirt_rt_domain_info``).  The result is a list of
complete ``libvirt_rt_domain`` option sets plus the VF requests for the
QAT selection, or a :class:`PlacementError` raised before anything on the
host is touched.

Rules (docs/rollout.md repeats them for users):

* ``cpus: auto``: one dedicated host CPU per vCPU, all on one NUMA node,
  taken from the node's isolated CPUs that no other domain's vCPU is
  pinned to.  Nodes are tried in id order (or only ``numa_node``); the
  first node with enough free CPUs wins; the lowest free CPU ids are used.
  A domain that already has a valid placement keeps it, so re-runs do not
  move running domains.
* The emulator threads (and IO threads) go to the node's housekeeping CPUs
  that no vCPU uses (the host's, when the node has none): ``emulator:
  housekeeping``, the default.  ``emulator: isolate`` gives them one more
  free isolated CPU of the domain's node, taken like a vCPU's (``cpus:
  auto`` looks for a node with vCPUs + 1 free CPUs); ``emulator: share``
  puts them on the CPUs of the vCPUs outside ``realtime.mask``.
* Guest memory is bound to the node (``numatune`` strict).
* ``qat_vfs: N`` asks for N VFs on that node.  Given ``vf_free`` (free
  assignable VFs per node, see :func:`free_vfs_per_node`), ``cpus: auto``
  skips nodes that cannot give the domain its VFs, counting the VFs the
  domains placed before it take.
* A host without isolated CPUs: ``allow_unisolated`` places vCPUs on the
  node's online CPUs except its first housekeeping CPU, kept for the
  emulator and the host, and says so in a warning; without it the plan
  fails and says how to isolate CPUs.
* ``cpus: "<cpuset>"`` pins vCPU i to the i-th CPU of the set; explicit
  ``cpu.pinning`` is used as given.  Either way the CPUs count as taken.
  No host CPU serves vCPUs of two domains when one of them is real-time.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError, format_cpuset, parse_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.cachetune import class_limit
from ansible_collections.realtime.virt.plugins.module_utils._placement import cpus as cpu_placement
from ansible_collections.realtime.virt.plugins.module_utils._placement.host import Host
from ansible_collections.realtime.virt.plugins.module_utils._placement.hugepages import HUGEPAGE_MODES, check_hugepages
from ansible_collections.realtime.virt.plugins.module_utils._placement.inputs import (
    PRIVATE_KEYS, VARIABLE, check_domain, deep_merge, is_realtime)
from ansible_collections.realtime.virt.plugins.module_utils._placement.vfs import take_vfs, vf_counts


def _defined_pinned(defined):
    """CPUs each defined domain's vCPUs are pinned to, which are real-time, and their emulator CPUs."""
    pinned, realtime, previous, emulators = {}, set(), {}, {}
    for dom in defined or []:
        name = dom.get("name")
        cpus = set()
        per_vcpu = {}
        for pin in dom.get("pinning") or []:
            cpus.update(pin.get("cpus") or [])
            per_vcpu[int(pin["vcpu"])] = list(pin.get("cpus") or [])
        pinned[name] = cpus
        emulators[name] = set(dom.get("emulator_cpus") or [])
        previous[name] = per_vcpu
        if dom.get("realtime"):
            realtime.add(name)
    return pinned, realtime, previous, emulators


def plan_domains(node, domains, defined=None, allow_unisolated=False, defaults=None,
                 hugepages="fail", vf_free=None):
    """Place ``domains`` on the host described by ``node``.

    ``defined``: libvirt's domains (``name``, ``running``, ``realtime``,
    ``pinning`` [{vcpu, cpus}]).  ``defaults`` are merged under every
    domain.  ``hugepages``: what a hugepage shortfall on the chosen node
    does (``fail``, ``warn``, ``ignore``).  ``vf_free``: free assignable
    VFs per node id, to skip nodes that cannot give a domain its VFs.
    """
    if not isinstance(domains, list):
        raise OptionError(VARIABLE, domains, "must be a list of domains", "write a YAML list of mappings")
    if hugepages not in HUGEPAGE_MODES:
        raise OptionError("rt_domain_hugepage_check", hugepages, "unknown mode", "use fail, warn or ignore")
    host = Host(node)
    vf_left = vf_counts(vf_free)
    defined = defined or []
    pinned, defined_realtime, previous, emulators = _defined_pinned(defined)
    for name, cpus in emulators.items():
        pinned[name] |= cpus & host.isolated  # an isolated emulator CPU (emulator: isolate) is the domain's
    running = set(dom.get("name") for dom in defined if dom.get("running"))
    warnings = []
    plans = _entries(domains, defaults)
    owners, rt_owner = _owners(pinned, defined_realtime, set(plan["name"] for plan in plans))
    realtime_names = set(plan["name"] for plan in plans if is_realtime(plan["options"])) | defined_realtime

    # Fixed placements claim their CPUs first (and their isolated emulator
    # CPUs), then cpus: auto fills what is left.
    for plan in plans:
        if plan["mode"] in ("explicit", "pinned"):
            cpu_placement.claim(plan, plan["cpus"], owners, rt_owner, realtime_names)
            take_vfs(vf_left, host.node_of(plan["cpus"]), plan["vfs"])
    for plan in plans:
        if plan["mode"] in ("explicit", "pinned") and plan["options"].get("emulator") == "isolate":
            cpu_placement.isolate_emulator(plan, host, owners, allow_unisolated)
    for plan in plans:
        if plan["mode"] == "auto":
            cpu_placement.place_auto(plan, host, owners, previous.get(plan["name"]), allow_unisolated, vf_left,
                                     warnings)
            cpu_placement.claim(plan, plan["cpus"], owners, rt_owner, realtime_names)
            cpu_placement.take_emulator_cpu(plan, owners)
            take_vfs(vf_left, plan["numa_node"], plan["vfs"])

    used_vcpu_cpus = set(owners)
    for plan in plans:
        if plan["mode"] in ("auto", "explicit"):
            cpu_placement.finish_options(plan, host, used_vcpu_cpus, warnings)
        elif plan["mode"] == "pinned":
            plan["numa_node"] = host.node_of(plan["cpus"])
            cpu_placement.emulator_for_pinned(plan)

    check_hugepages(plans, host, running, hugepages, warnings)
    _check_closids(plans, node.get("resctrl"))
    return {"domains": [_result(plan) for plan in plans], "vf_requests": _vf_requests(plans), "warnings": warnings,
            "cpu_owners": dict((str(cpu), sorted(set(names_))) for cpu, names_ in sorted(owners.items()))}


def _check_closids(plans, rdt):
    """The cachetune groups of all the domains fit the host's classes of service (one is the default group's).

    libvirt_rt_domain checks each domain alone; two domains that fit alone
    can together take more classes than the host has, and libvirt then
    refuses the second at its start.
    """
    limit = class_limit(rdt)
    if limit is None:
        return
    groups = [(plan["name"], len(plan["options"].get("cachetune") or [])) for plan in plans if plan["mode"] != "absent"]
    total = sum(count for _name, count in groups)
    if total > limit:
        raise OptionError(VARIABLE, ", ".join("%s: %d" % item for item in groups if item[1]),
                          "the domains ask %d cachetune groups together, but the host has %d classes of service and "
                          "the default group keeps one" % (total, limit + 1),
                          "merge groups, or give fewer domains cache ways of their own")


def _entries(domains, defaults):
    """Check every entry, merge it with the defaults and say how it is placed."""
    plans, names = [], {}
    for index, options in enumerate(domains):
        where, cpus, vfs = check_domain(index, options, names)
        full = deep_merge(defaults or {}, options)
        full.setdefault("state", "running")
        if full["state"] == "absent" and "autostart" not in options:
            full.pop("autostart", None)  # a default autostart is for the domains that stay defined
        plans.append(_placement_mode({"name": full["name"], "where": where, "options": full, "vfs": vfs,
                                      "mode": "none", "cpus": [], "numa_node": None}, cpus))
    return plans


def _placement_mode(plan, cpus):
    """``absent``, ``explicit`` (cpus: a set), ``auto``, ``pinned`` (cpu.pinning) or ``none``."""
    if plan["options"]["state"] == "absent":
        plan["mode"] = "absent"
    elif isinstance(cpus, list):
        plan["mode"] = "explicit"
        plan["cpus"] = cpus
    elif cpus == "auto":
        plan["mode"] = "auto"
    else:
        explicit = set()
        for pin in (plan["options"].get("cpu") or {}).get("pinning") or []:
            try:
                explicit.update(parse_cpuset(str(pin.get("cpuset")), allow_exclusion=False))
            except CpusetError:
                pass  # libvirt_rt_domain names a bad cpuset itself
        if explicit:
            plan["mode"] = "pinned"
            plan["cpus"] = sorted(explicit)
    return plan


def _owners(pinned, defined_realtime, planned):
    """Host CPUs held by defined domains that are not planned again now."""
    owners, rt_owner = {}, {}
    for name, cpus in pinned.items():
        if name in planned:
            continue  # re-planned
        for cpu in cpus:
            owners.setdefault(cpu, []).append(name)
            if name in defined_realtime:
                rt_owner[cpu] = name
    return owners, rt_owner


def _vf_requests(plans):
    """What the QAT selection must give: ``[{domain, count, numa_node}]``."""
    requests = []
    for plan in plans:
        if plan["vfs"] and plan["mode"] != "absent":
            numa = plan["numa_node"]
            if numa is None:
                numa = plan["options"].get("numa_node")
            requests.append({"domain": plan["name"], "count": plan["vfs"], "numa_node": numa})
    return requests


def _result(plan):
    return {
        "name": plan["name"],
        "placement": plan["mode"],
        "numa_node": plan["numa_node"],
        "cpus": plan["cpus"],
        "cpuset": format_cpuset(plan["cpus"]) if plan["cpus"] else "",
        "emulator_cpuset": ((plan["options"].get("cpu") or {}).get("emulator_cpuset") or ""),
        "kept": plan.get("kept", False),
        "qat_vfs": plan["vfs"],
        "options": dict((k, v) for k, v in plan["options"].items() if k not in PRIVATE_KEYS),
    }


def summary(domains):
    """``vm1: vCPUs on 2-3 (node 0, auto), emulator 0-1; vm2: ...``."""
    parts = []
    for dom in domains:
        if dom.get("placement") == "absent":
            parts.append("%s: absent" % dom["name"])
        elif dom.get("cpuset"):
            parts.append("%s: vCPUs on CPUs %s (node %s, %s%s), emulator on %s" % (
                dom["name"], dom["cpuset"], dom.get("numa_node"), dom.get("placement"),
                ", kept" if dom.get("kept") else "", dom.get("emulator_cpuset") or "any CPU"))
        else:
            parts.append("%s: no CPU placement" % dom["name"])
    return "; ".join(parts) if parts else "no domains"
