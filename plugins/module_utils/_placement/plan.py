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
* The emulator threads go to the node's housekeeping CPUs that no vCPU
  uses (the host's, when the node has none).
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

import copy
import re

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError, format_cpuset, parse_cpuset

VARIABLE = "rt_domain_domains"
PAGE_SIZE = re.compile(r"^\s*([0-9]+)\s*([kKmMgG])(?:i?[bB]?)?\s*$")
UNITS_KIB = {"k": 1, "m": 1024, "g": 1024 * 1024}
PRIVATE_KEYS = ("cpus", "qat_vfs", "numa_node")
HUGEPAGE_MODES = ("fail", "warn", "ignore")


class PlacementError(ValueError):
    """Bad input or an over-committed host, found before any change."""

    def __init__(self, variable, value, why, fix):
        self.variable = variable
        self.value = value
        self.why = why
        self.fix = fix
        super(PlacementError, self).__init__("%s = %r: %s. Fix: %s" % (variable, value, why, fix))


def _cpuset_text(cpus):
    return format_cpuset(sorted(cpus)) if cpus else "none"


def page_size_kib(value):
    """``2M`` / ``1G`` / ``1Gi`` / ``2048k`` -> KiB, or None when unreadable."""
    match = PAGE_SIZE.match(str(value))
    if not match:
        return None
    return int(match.group(1)) * UNITS_KIB[match.group(2).lower()]


def deep_merge(base, override):
    """``override`` on top of ``base``; nested dicts are merged, the rest replaced."""
    result = copy.deepcopy(base) if isinstance(base, dict) else {}
    for key, value in (override or {}).items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = deep_merge(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result


class Host(object):
    """The CPUs and NUMA nodes of ``rt_node`` facts, as sets."""

    def __init__(self, node):
        if not isinstance(node, dict) or not isinstance(node.get("cpus"), dict):
            raise PlacementError("ansible_facts.rt_node", type(node).__name__, "not rt_node facts",
                                 "run realtime.virt.rt_node_facts first and pass ansible_facts.rt_node")
        cpus = node["cpus"]
        self.online = set(cpus.get("online") or [])
        self.isolated = set(cpus.get("isolated") or []) & self.online
        housekeeping = cpus.get("housekeeping")
        self.housekeeping = (set(housekeeping) if housekeeping is not None else self.online - self.isolated) & self.online
        self.nodes = {}
        self.hugepages = {}
        for entry in (node.get("numa") or {}).get("nodes") or []:
            self.nodes[int(entry["id"])] = set(entry.get("cpus") or []) & self.online
            free = {}
            for info in (entry.get("hugepages") or {}).values():
                if isinstance(info, dict) and info.get("size_kb"):
                    free[int(info["size_kb"])] = int(info.get("free") or 0)
            self.hugepages[int(entry["id"])] = free
        if not self.nodes:
            self.nodes = {0: set(self.online)}
            self.hugepages = {0: {}}

    def node_of(self, cpus):
        """The one node holding every CPU of ``cpus``, or None."""
        for node_id, node_cpus in sorted(self.nodes.items()):
            if cpus and set(cpus) <= node_cpus:
                return node_id
        return None


def _vf_counts(vf_free):
    """``{node id: free VFs}`` from the ``vf_free`` argument, or None."""
    if vf_free is None:
        return None
    if not isinstance(vf_free, dict):
        raise PlacementError("vf_free", vf_free, "must map NUMA node ids to free VF counts",
                             "pass the output of realtime.virt.rt_domain_vf_free, e.g. {0: 4, 1: 0}")
    counts = {}
    for key, value in vf_free.items():
        try:
            node_id, free = int(key), int(value)
        except (TypeError, ValueError):
            raise PlacementError("vf_free", vf_free, "%r: %r is not a node id with a whole VF count" % (key, value),
                                 "pass the output of realtime.virt.rt_domain_vf_free, e.g. {0: 4, 1: 0}")
        counts[node_id] = counts.get(node_id, 0) + max(free, 0)
    return counts


def free_vfs_per_node(vfs, defined=None, keep=None, nodes=None):
    """Free assignable VFs per NUMA node, for ``plan_domains(vf_free=...)``.

    ``vfs``: qat_vf_info's ``assignable_vfs``.  ``defined``: the domains of
    libvirt_rt_domain_info; the ``hostdevs`` of every defined domain are not
    free, except those of the domains named in ``keep`` (the ones being
    planned now, which the QAT selection gives their own VFs back).  A VF
    whose NUMA node the kernel does not know (-1) counts on every node, as
    the selection lets it go anywhere.  ``nodes``: node ids to report even
    with no VF (0 then).
    """
    if not isinstance(vfs, list):
        raise PlacementError("vfs", vfs, "must be a list of VFs", "pass qat_vf_info's assignable_vfs")
    keep = set(keep or [])
    held = set()
    for dom in defined or []:
        if isinstance(dom, dict) and dom.get("name") not in keep:
            held.update(str(address).lower() for address in dom.get("hostdevs") or [])
    free, anywhere = dict((int(n), 0) for n in nodes or []), 0
    for vf in vfs:
        if not isinstance(vf, dict) or not isinstance(vf.get("pci_address"), str):
            raise PlacementError("vfs", vf, "a VF without pci_address", "pass qat_vf_info's assignable_vfs")
        if vf.get("assignable") is False or vf["pci_address"].lower() in held:
            continue
        node = vf.get("numa_node")
        if isinstance(node, bool) or not isinstance(node, int) or node < 0:
            anywhere += 1
        else:
            free[node] = free.get(node, 0) + 1
    return dict((node, count + anywhere) for node, count in free.items())


def _defined_pinned(defined):
    """CPUs each defined domain's vCPUs are pinned to, and which are real-time."""
    pinned, realtime, previous = {}, set(), {}
    for dom in defined or []:
        name = dom.get("name")
        cpus = set()
        per_vcpu = {}
        for pin in dom.get("pinning") or []:
            cpus.update(pin.get("cpus") or [])
            per_vcpu[int(pin["vcpu"])] = list(pin.get("cpus") or [])
        pinned[name] = cpus
        previous[name] = per_vcpu
        if dom.get("realtime"):
            realtime.add(name)
    return pinned, realtime, previous


def _is_realtime(options):
    realtime = options.get("realtime")
    return isinstance(realtime, dict) and realtime.get("enabled", True) is not False


def _check_domain(index, options, names):
    where = "%s[%d]" % (VARIABLE, index)
    if not isinstance(options, dict):
        raise PlacementError(where, options, "each domain must be a mapping of libvirt_rt_domain options",
                             "write the domain as {name: ..., vcpus: ..., memory_mib: ...}")
    name = options.get("name")
    if not isinstance(name, str) or not name.strip():
        raise PlacementError(where + ".name", name, "every domain needs a name", "give the domain a unique name")
    if name in names:
        raise PlacementError(where + ".name", name, "the name is used twice (also %s[%d])" % (VARIABLE, names[name]),
                             "give every domain its own name, or merge the two entries")
    names[name] = index
    where = "%s[%d] (%s)" % (VARIABLE, index, name)
    vfs = options.get("qat_vfs", 0)
    if vfs is None:
        vfs = 0
    if isinstance(vfs, bool) or not isinstance(vfs, int) or vfs < 0:
        raise PlacementError(where + ".qat_vfs", vfs, "the number of QAT VFs must be a whole number, 0 or more",
                             "set qat_vfs to 0 (no VF) or to the number of VFs the domain needs")
    node = options.get("numa_node")
    if node is not None and (isinstance(node, bool) or not isinstance(node, int) or node < 0):
        raise PlacementError(where + ".numa_node", node, "a NUMA node id is a whole number, 0 or more",
                             "remove numa_node to let the placement choose, or give a node id")
    cpus = options.get("cpus")
    state = options.get("state", "running")
    if cpus is None or state == "absent":
        return where, None, vfs
    vcpus = options.get("vcpus")
    if isinstance(vcpus, bool) or not isinstance(vcpus, int) or vcpus < 1:
        raise PlacementError(where + ".vcpus", vcpus, "cpus: %s needs the number of vCPUs" % cpus,
                             "set vcpus to 1 or more")
    if (options.get("cpu") or {}).get("pinning"):
        raise PlacementError(where + ".cpus", cpus, "cpus and cpu.pinning both place the vCPUs",
                             "keep one of them: cpus (auto or a CPU set) or cpu.pinning")
    if cpus == "auto":
        return where, "auto", vfs
    try:
        listed = parse_cpuset(str(cpus), allow_exclusion=False)
    except CpusetError as error:
        raise PlacementError(where + ".cpus", cpus, "neither 'auto' nor a CPU set (%s)" % error,
                             "write cpus: auto, or a CPU set such as '2-3' with one CPU per vCPU")
    if len(listed) != vcpus:
        raise PlacementError(where + ".cpus", cpus, "%d CPUs for %d vCPUs" % (len(listed), vcpus),
                             "give exactly one host CPU per vCPU, or cpus: auto")
    return where, listed, vfs


def _hugepage_need(options):
    """(page size KiB, pages) the domain's memory needs, or None."""
    hugepages = (options.get("memory") or {}).get("hugepages")
    memory = options.get("memory_mib")
    if not isinstance(hugepages, dict) or not isinstance(memory, int):
        return None
    size = page_size_kib(hugepages.get("page_size") or "2M")
    if not size:
        return None
    return size, -(-memory * 1024 // size)


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
        raise PlacementError(VARIABLE, domains, "must be a list of domains", "write a YAML list of mappings")
    if hugepages not in HUGEPAGE_MODES:
        raise PlacementError("rt_domain_hugepage_check", hugepages, "unknown mode", "use fail, warn or ignore")
    host = Host(node)
    vf_left = _vf_counts(vf_free)
    defined = defined or []
    pinned, defined_realtime, previous = _defined_pinned(defined)
    running = set(dom.get("name") for dom in defined if dom.get("running"))
    warnings = []

    merged, checked, names = [], [], {}
    for index, options in enumerate(domains):
        where, cpus, vfs = _check_domain(index, options, names)
        full = deep_merge(defaults or {}, options)
        full.setdefault("state", "running")
        merged.append(full)
        checked.append((where, cpus, vfs))

    # CPU owners: other defined domains first, then explicit placements of the list
    owners = {}
    rt_owner = {}
    for name, cpus in pinned.items():
        if name in names:
            continue  # re-planned below
        for cpu in cpus:
            owners.setdefault(cpu, []).append(name)
            if name in defined_realtime:
                rt_owner[cpu] = name

    plans = []
    for (where, cpus, vfs), options in zip(checked, merged):
        plan = {"name": options["name"], "where": where, "options": options, "vfs": vfs, "mode": "none",
                "cpus": [], "numa_node": None}
        if options["state"] == "absent":
            plan["mode"] = "absent"
        elif isinstance(cpus, list):
            plan["mode"] = "explicit"
            plan["cpus"] = cpus
        elif cpus == "auto":
            plan["mode"] = "auto"
        else:
            explicit = set()
            for pin in (options.get("cpu") or {}).get("pinning") or []:
                try:
                    explicit.update(parse_cpuset(str(pin.get("cpuset")), allow_exclusion=False))
                except CpusetError:
                    pass  # libvirt_rt_domain names a bad cpuset itself
            if explicit:
                plan["mode"] = "pinned"
                plan["cpus"] = sorted(explicit)
        plans.append(plan)

    realtime_names = set(plan["name"] for plan in plans if _is_realtime(plan["options"])) | defined_realtime
    for plan in plans:
        if plan["mode"] in ("explicit", "pinned"):
            _claim(plan, plan["cpus"], owners, rt_owner, realtime_names)
            _take_vfs(vf_left, host.node_of(plan["cpus"]), plan["vfs"])

    for plan in plans:
        if plan["mode"] == "auto":
            _place_auto(plan, host, owners, previous.get(plan["name"]), allow_unisolated, vf_left, warnings)
            _claim(plan, plan["cpus"], owners, rt_owner, realtime_names)
            _take_vfs(vf_left, plan["numa_node"], plan["vfs"])

    used_vcpu_cpus = set(owners)
    for plan in plans:
        if plan["mode"] in ("auto", "explicit"):
            _finish_options(plan, host, used_vcpu_cpus, warnings)
        elif plan["mode"] == "pinned":
            plan["numa_node"] = host.node_of(plan["cpus"])

    _check_hugepages(plans, host, running, hugepages, warnings)

    requests = []
    for plan in plans:
        if plan["vfs"] and plan["mode"] != "absent":
            numa = plan["numa_node"]
            if numa is None:
                numa = plan["options"].get("numa_node")
            requests.append({"domain": plan["name"], "count": plan["vfs"], "numa_node": numa})

    result = []
    for plan in plans:
        result.append({
            "name": plan["name"],
            "placement": plan["mode"],
            "numa_node": plan["numa_node"],
            "cpus": plan["cpus"],
            "cpuset": format_cpuset(plan["cpus"]) if plan["cpus"] else "",
            "emulator_cpuset": ((plan["options"].get("cpu") or {}).get("emulator_cpuset") or ""),
            "kept": plan.get("kept", False),
            "qat_vfs": plan["vfs"],
            "options": dict((k, v) for k, v in plan["options"].items() if k not in PRIVATE_KEYS),
        })
    return {"domains": result, "vf_requests": requests, "warnings": warnings,
            "cpu_owners": dict((str(cpu), sorted(set(names_))) for cpu, names_ in sorted(owners.items()))}


def _claim(plan, cpus, owners, rt_owner, realtime_names):
    name = plan["name"]
    for cpu in cpus:
        others = [other for other in owners.get(cpu, []) if other != name]
        clash = [other for other in others if other in realtime_names] if name not in realtime_names else others
        if clash:
            raise PlacementError(
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


def _place_auto(plan, host, owners, previous, allow_unisolated, vf_free, warnings):
    options = plan["options"]
    vcpus = options["vcpus"]
    wanted_node = options.get("numa_node")
    if wanted_node is not None and wanted_node not in host.nodes:
        raise PlacementError(plan["where"] + ".numa_node", wanted_node, "the host has no such NUMA node",
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
                and _vfs_fit(vf_free, node_id, plan["vfs"]):
            _chosen(plan, node_id, old, options_by_node[node_id], warnings)
            plan["kept"] = True
            return

    for node_id in node_ids:
        free = options_by_node[node_id][0]
        if len(free) >= vcpus and _vfs_fit(vf_free, node_id, plan["vfs"]):
            _chosen(plan, node_id, free[:vcpus], options_by_node[node_id], warnings)
            return

    if not host.isolated and not allow_unisolated:
        raise PlacementError(plan["where"] + ".cpus", "auto",
                             "this host has no isolated CPUs, so there is nowhere to place real-time vCPUs",
                             "isolate CPUs with the realtime.virt.rt_host role and reboot, or set "
                             "rt_domain_allow_unisolated: true to place vCPUs on non-isolated CPUs (test hosts only: "
                             "no latency guarantee)")
    what = "isolated" if host.isolated else "online (rt_domain_allow_unisolated)"
    if count_vfs:
        raise PlacementError(
            plan["where"] + ".cpus", "auto",
            "%d vCPUs and %d QAT VFs need %d free %s CPUs and %d free assignable VFs on one NUMA node%s (VFs held by "
            "other defined domains and those given to domains placed before it are not free), short: %s" % (
                vcpus, plan["vfs"], vcpus, what, plan["vfs"],
                " (node %d)" % wanted_node if wanted_node is not None else "", "; ".join(report)),
            "lower vcpus or qat_vfs, create more VFs on a node with free CPUs (realtime.virt.qat role, qat_numvfs), "
            "or remove other domains (CPUs in use: %s)" % _cpuset_text(taken))
    raise PlacementError(
        plan["where"] + ".cpus", "auto",
        "%d vCPUs need %d free %s CPUs on one NUMA node%s, short: %s" % (
            vcpus, vcpus, what, " (node %d)" % wanted_node if wanted_node is not None else "",
            "; ".join(report)),
        "lower vcpus, remove or shrink other domains (CPUs in use: %s), or isolate more CPUs with realtime.virt.rt_host"
        % (_cpuset_text(taken)))


def _vfs_fit(vf_free, node_id, count):
    if not count or vf_free is None:
        return True
    return vf_free.get(node_id, 0) >= count


def _take_vfs(vf_left, node_id, count):
    """Count the VFs a placed domain will take off its node's free ones."""
    if vf_left is not None and count and node_id is not None:
        vf_left[node_id] = vf_left.get(node_id, 0) - count


def _chosen(plan, node_id, cpus, node_options, warnings):
    plan["cpus"] = list(cpus)
    plan["numa_node"] = node_id
    plan["reserved"] = node_options[1]
    if node_options[2]:
        warnings.append(
            "domain %s: the host has no isolated CPUs on node %d, so its vCPUs run on non-isolated CPUs %s "
            "(rt_domain_allow_unisolated is true); host tasks and interrupts can delay them. Isolate CPUs with "
            "realtime.virt.rt_host for real latency." % (plan["name"], node_id, format_cpuset(cpus)))


def _finish_options(plan, host, used_vcpu_cpus, warnings):
    options = plan["options"]
    cpus = plan["cpus"]
    if plan["numa_node"] is None:
        plan["numa_node"] = host.node_of(cpus)
    node_id = plan["numa_node"]
    cpu = dict(options.get("cpu") or {})
    cpu["pinning"] = [{"vcpu": index, "cpuset": str(host_cpu)} for index, host_cpu in enumerate(cpus)]
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


def _check_hugepages(plans, host, running, mode, warnings):
    if mode == "ignore":
        return
    need = {}
    for plan in plans:
        if plan["mode"] == "absent" or plan["name"] in running:
            continue
        wanted = _hugepage_need(plan["options"])
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
                    raise PlacementError(plan["where"] + ".memory.hugepages", plan["options"].get("memory_mib"),
                                         message, "allocate more pages on node %d (realtime.virt.hugepages role), "
                                         "lower memory_mib, or set rt_domain_hugepage_check: warn" % node_id)
                warnings.append(message)


def attach_vfs(plan, selection):
    """Add the VFs chosen per domain (``{domain: [pci addresses]}``) to its hostdevs."""
    selection = selection or {}
    result = copy.deepcopy(plan)
    for dom in result["domains"]:
        addresses = selection.get(dom["name"]) or []
        if dom["qat_vfs"] and len(addresses) != dom["qat_vfs"]:
            raise PlacementError("%s (%s).qat_vfs" % (VARIABLE, dom["name"]), dom["qat_vfs"],
                                 "the QAT selection gave %d VFs" % len(addresses),
                                 "create more VFs with the realtime.virt.qat role or lower qat_vfs")
        if addresses:
            hostdevs = list(dom["options"].get("hostdevs") or [])
            for address in addresses:
                if address not in hostdevs:
                    hostdevs.append(address)
            dom["options"]["hostdevs"] = hostdevs
    return result


def hugepage_sizes(domains):
    """Sorted page sizes (KiB) used by the placed domains that are not absent."""
    sizes = set()
    for dom in domains:
        options = dom.get("options") or {}
        if options.get("state") == "absent":
            continue
        wanted = _hugepage_need(options)
        if wanted:
            sizes.add(wanted[0])
        elif isinstance((options.get("memory") or {}).get("hugepages"), dict):
            size = page_size_kib((options["memory"]["hugepages"] or {}).get("page_size") or "2M")
            if size:
                sizes.add(size)
    return sorted(sizes)


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
