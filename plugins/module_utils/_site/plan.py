# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan of a whole host for site.yml, before its first change (pure).

Every stage's input is checked with that stage's own planning code, and
every problem is collected (not only the first), so a host that one stage
would refuse is refused before any stage changes it.  The plan also
computes what the stages hand each other: rt_host writes the kernel
command line once, but the hugepages role (1G pages and a default size
can only be given at boot), the qat role (IOMMU, vfio-pci's denylist) and
the sriov role (VFs on vfio-pci need the IOMMU) all want boot arguments in
it, and rt_host runs first.

Later stages are planned against the host as the earlier ones will leave
it: the hugepage pools at their targets, and, when rt_host may reboot
(``auto``, ``force``), the CPUs isolated as planned.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError, RealtimeVirtError
from ansible_collections.realtime.virt.plugins.module_utils._common.plain import plain_copy
from ansible_collections.realtime.virt.plugins.module_utils._cpu.kernel_args import rt_kernel_args
from ansible_collections.realtime.virt.plugins.module_utils._cpu.plan import cpu_plan
from ansible_collections.realtime.virt.plugins.module_utils._hugepages.plan import facts_after, hugepage_plan
from ansible_collections.realtime.virt.plugins.module_utils._placement.host import isolated_after
from ansible_collections.realtime.virt.plugins.module_utils._placement.plan import plan_domains
from ansible_collections.realtime.virt.plugins.module_utils._ptp.plan import PtpPlanError
from ansible_collections.realtime.virt.plugins.module_utils._ptp.plan import plan as ptp_plan
from ansible_collections.realtime.virt.plugins.module_utils._qat.services import parse_services
from ansible_collections.realtime.virt.plugins.module_utils._sriov.manager import read_pf, validate
from ansible_collections.realtime.virt.plugins.module_utils._validate.guests import plan_guests

VFIO = "vfio-pci"


def sriov_needs_iommu(sriov_pfs, vf_driver=VFIO):
    """Whether any PF of ``sriov_pfs`` puts its VFs on vfio-pci (its driver, else ``vf_driver``)."""
    if not isinstance(sriov_pfs, list):
        raise OptionError("sriov_pfs", sriov_pfs, "not a list", "give a list such as [{pf: '0000:3b:00.0', count: 4}]")
    default = vf_driver or VFIO
    return any(isinstance(pf, dict) and (pf.get("driver") or default) == VFIO for pf in sriov_pfs)


class _Problems(object):
    """Runs each check, keeps every refusal instead of stopping at the first."""

    def __init__(self):
        self.messages = []

    def attempt(self, check, *args, **kwargs):
        try:
            return check(*args, **kwargs)
        except RealtimeVirtError as error:
            self.messages.append(str(error))
            return None


def _sriov(problems, reader, sriov_pfs, vf_driver):
    """Every sriov_pfs entry: a PF of this host, SR-IOV capable, count within sriov_totalvfs."""
    if not isinstance(sriov_pfs, list):
        problems.attempt(sriov_needs_iommu, sriov_pfs, vf_driver)
        return
    seen = {}
    for index, entry in enumerate(sriov_pfs):
        where = "sriov_pfs[%d]" % index
        if not isinstance(entry, dict):
            problems.messages.append(str(OptionError(where, entry, "not a mapping", "write {pf: '0000:3b:00.0', count: 4}")))
            continue
        checked = problems.attempt(_sriov_entry, where, entry, vf_driver)
        if checked is None:
            continue
        pf, count = checked
        if pf in seen:
            problems.messages.append(str(OptionError(where + ".pf", entry.get("pf"), "%s is listed twice (also %s)" % (pf, seen[pf]),
                                                     "give each PF one entry with its count and driver")))
            continue
        seen[pf] = where
        if reader is not None:
            problems.attempt(_sriov_on_host, where, reader, pf, count)


def _sriov_entry(where, entry, vf_driver):
    try:
        pf, count, _driver = validate(entry.get("pf"), entry.get("count"), entry.get("driver") or vf_driver or VFIO)
    except OptionError as error:
        raise OptionError("%s.%s" % (where, error.option), error.value, error.why, error.fix)
    return pf, count


def _sriov_on_host(where, reader, pf, count):
    try:
        state = read_pf(reader, pf)
    except RealtimeVirtError as error:
        raise OptionError(where + ".pf", pf, error.why, error.fix)
    total = state["sriov_totalvfs"]
    if count != "max" and count > total:
        raise OptionError(where + ".count", count, "more than %s supports (sriov_totalvfs=%d)" % (pf, total),
                          "give at most %d or 'max'" % total)


def _qat(problems, qat, stage, domains):
    """qat_pfs name QAT PFs of this host, counts fit them, services parse, VF requests have a QAT to come from."""
    pfs = dict((pf["pci_address"], pf) for pf in (qat or {}).get("pfs") or [])
    for index, address in enumerate(stage["pfs"] or []):
        if str(address).lower() not in pfs:
            problems.messages.append(str(OptionError(
                "qat_pfs[%d]" % index, address, "not a QAT physical function of this host (it has %s)"
                % (", ".join(sorted(pfs)) or "none"), "list only the addresses qat_vf_info reports, or leave qat_pfs empty")))
    counts = dict((address, stage["numvfs"]) for address in pfs)
    counts.update(dict((str(k).lower(), v) for k, v in (stage["numvfs_per_pf"] or {}).items()))
    for address, count in sorted(counts.items()):
        total = (pfs.get(address) or {}).get("sriov_totalvfs")
        option = "qat_numvfs_per_pf[%s]" % address if address in (stage["numvfs_per_pf"] or {}) else "qat_numvfs"
        if str(count).strip().lower() == "max":
            continue
        try:
            number = int(str(count))
        except ValueError:
            problems.messages.append(str(OptionError(option, count, "not a number", "give a VF count or 'max'")))
            continue
        if number < 0 or (total is not None and number > total):
            problems.messages.append(str(OptionError(option, count, "outside 0 to %s (sriov_totalvfs of %s)" % (total, address),
                                                     "give at most %s or 'max'" % total)))
    if stage["services"]:
        problems.attempt(parse_services, stage["services"], option="qat_services")
    wanting = [dom.get("name") for dom in domains or [] if isinstance(dom, dict) and dom.get("qat_vfs")]
    if wanting and not pfs:
        problems.messages.append(str(OptionError(
            "rt_domain_domains (%s).qat_vfs" % ", ".join(str(name) for name in wanting), "> 0",
            "this host has no QAT physical function, so no QAT VF can be given to a domain",
            "set qat_vfs: 0 for domains on this host, or run them on a host with QAT")))


def _predicted(facts, cpus, hugepages, reboot):
    """The facts the domain stage will read: pools at their targets, CPUs isolated after a reboot."""
    after = facts_after(facts, hugepages) if hugepages else plain_copy(facts)
    if cpus and reboot in ("auto", "force"):
        after = isolated_after(after, cpus["isolated"], cpus["housekeeping"])
    return after


def _ptp(problems, facts, stage, cpus):
    """ptp_* against this host's interfaces and the housekeeping CPUs rt_host leaves (when ptp_interfaces is set)."""
    if not stage["interfaces"]:
        return
    options = dict((key, value) for key, value in stage.items() if key != "interfaces")
    try:
        ptp_plan((facts.get("time_sync") or {}).get("interfaces") or [], stage["interfaces"],
                 housekeeping=cpus["housekeeping_cpuset"] if cpus else "",
                 isolated=cpus["isolated_cpuset"] if cpus else "", **options)
    except PtpPlanError as error:
        problems.messages.extend(error.problems)


def plan_host(facts, stages, qat=None, reader=None, defined=None, inventory=None):
    """``(plan, problems)`` for one host; ``problems`` lists every refusal, empty when the host may go on.

    ``stages`` maps every stage to all its variables, as the roles name them
    without their prefix (rt_host_plan's action plugin fills each one a task
    leaves out from its role's defaults, so no default is written here): ``rt_host`` (isolated_cpus, iommu, kernel_args_extra,
    reboot), ``hugepages`` (pages, default_size), ``qat`` (pfs, numvfs,
    numvfs_per_pf, services), ``sriov`` (pfs, vf_driver), ``rt_domain``
    (domains, domain_defaults, allow_unisolated, hugepage_check) and
    ``rt_validate`` (guests, duration), ``ptp`` (interfaces, profile, domain, clock, ...).  ``qat`` is qat_vf_info's result,
    ``reader`` a HostReader to look the SR-IOV PFs up, ``defined`` the
    domains libvirt already holds, ``inventory`` the inventory's hostnames.
    """
    problems = _Problems()
    host, pages, sriov = stages["rt_host"], stages["hugepages"], stages["sriov"]
    domains, validate_stage = stages["rt_domain"], stages["rt_validate"]

    cpus = problems.attempt(cpu_plan, facts, host["isolated_cpus"])
    hugepages = problems.attempt(hugepage_plan, facts, pages["pages"] or [], default_size=pages["default_size"] or None)
    pfs = sriov["pfs"] or []
    _sriov(problems, reader, pfs, sriov["vf_driver"])
    iommu = bool(host["iommu"]) or (isinstance(pfs, list) and sriov_needs_iommu(pfs, sriov["vf_driver"]))
    _qat(problems, qat, stages["qat"], domains["domains"])
    extra = list(host["kernel_args_extra"] or [])
    for word in (qat or {}).get("kernel_args") or []:
        if word not in extra:
            extra.append(word)
    kernel_args = None
    if cpus is not None and hugepages is not None:
        kernel_args = problems.attempt(rt_kernel_args, cpus, iommu=iommu, hugepage_args=hugepages["kernel_args"],
                                       extra=extra)
    placement = None
    if domains["domains"]:
        placement = problems.attempt(
            plan_domains, _predicted(facts, cpus, hugepages, host["reboot"]), domains["domains"],
            defined=defined or [], allow_unisolated=bool(domains["allow_unisolated"]),
            defaults=domains["domain_defaults"] or {}, hugepages=domains["hugepage_check"])
    _ptp(problems, facts, stages["ptp"], cpus)
    if validate_stage["guests"]:
        problems.attempt(plan_guests, validate_stage["guests"], validate_stage["duration"], inventory=inventory)
    plan = {
        "hugepages_kernel_args": hugepages["kernel_args"] if hugepages else [],
        "kernel_args_extra": extra,
        "iommu": iommu,
        "kernel_args": kernel_args or [],
        "isolated_cpuset": cpus["isolated_cpuset"] if cpus else None,
        "housekeeping_cpuset": cpus["housekeeping_cpuset"] if cpus else None,
        "domains": [dict((key, dom[key]) for key in ("name", "placement", "numa_node", "cpuset", "emulator_cpuset"))
                    for dom in (placement or {}).get("domains") or []],
        "warnings": list((placement or {}).get("warnings") or []) + list((cpus or {}).get("warnings") or [])
        + list((hugepages or {}).get("warnings") or []),
    }
    return plan, problems.messages


def problems_message(problems):
    """The one failure text of a refused host."""
    return "the plan refuses this host: %d problem(s) found before any change, nothing was changed:\n%s" % (
        len(problems), "\n".join("- %s" % problem for problem in problems))
