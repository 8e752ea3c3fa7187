# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters of the rt_validate role: checks, cyclictest parsing, time sync (PTP, chrony), the report, its HTML, JUnit
and Prometheus forms, and the history of runs."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError, parse_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import domain_checks
from ansible_collections.realtime.virt.plugins.module_utils._validate.cyclictest import latency_check, parse_cyclictest, parse_oslat
from ansible_collections.realtime.virt.plugins.module_utils._validate.drift import drift_checks
from ansible_collections.realtime.virt.plugins.module_utils._validate.duration import WAIT_GRACE_S, format_duration, parse_duration
from ansible_collections.realtime.virt.plugins.module_utils._validate.guests import guest_check, guest_state, plan_guests
from ansible_collections.realtime.virt.plugins.module_utils._validate.history import (
    DEFAULT_FACTOR, DEFAULT_KEEP, check_factor, check_history, regressions, update_history)
from ansible_collections.realtime.virt.plugins.module_utils._validate.html import render_html
from ansible_collections.realtime.virt.plugins.module_utils._validate.hwlat import hwlat_check, hwlat_tracer, parse_hwlat
from ansible_collections.realtime.virt.plugins.module_utils._validate.isolation import isolation_checks
from ansible_collections.realtime.virt.plugins.module_utils._validate.junit import render_junit
from ansible_collections.realtime.virt.plugins.module_utils._validate.prometheus import render_textfile
from ansible_collections.realtime.virt.plugins.module_utils._validate.ptp import (
    DEFAULT_GUEST_MAX_OFFSET_NS, DEFAULT_MAX_OFFSET_NS, chrony_checks, parse_pmc, ptp_checks, ptp_measurement)
from ansible_collections.realtime.virt.plugins.module_utils._validate.report import build_report


def rt_validate_domain_checks(domains, names=None, require_hugepages=True, require_pinning=True):
    """Checks of the real-time domains seen by libvirt_rt_domain_info."""
    if not isinstance(domains, list):
        raise AnsibleFilterError("rt_validate_domain_checks: expected the 'domains' list of "
                                 "realtime.virt.libvirt_rt_domain_info, got %s" % type(domains).__name__)
    return domain_checks(domains, names=names, require_hugepages=require_hugepages,
                         require_pinning=require_pinning)


def rt_validate_cyclictest(text):
    """Parse cyclictest -q -H output into numbers."""
    return parse_cyclictest(text if isinstance(text, str) else "")


def rt_validate_oslat(text):
    """Parse oslat --json output into the numbers of rt_validate_cyclictest."""
    return parse_oslat(text if isinstance(text, str) else "")


def rt_validate_latency_check(parsed, subject, threshold_us=40, advisory=False, skip_reason=None, tool="cyclictest"):
    """A check of a parsed cyclictest (or oslat) run against the threshold."""
    try:
        threshold = int(threshold_us)
    except (TypeError, ValueError):
        raise AnsibleFilterError("rt_validate_latency_check: threshold_us=%r is not a number of microseconds"
                                 % (threshold_us,))
    if tool not in ("cyclictest", "oslat"):
        raise AnsibleFilterError("rt_validate_latency_check: tool=%r is not a measurement this collection runs. "
                                 "Fix: give cyclictest or oslat" % (tool,))
    return latency_check(parsed, subject, threshold, advisory=bool(advisory), skip_reason=skip_reason or None,
                         tool=tool)


def rt_validate_hwlat_tracer(tracefs):
    """Whether the kernel has the hwlat tracer, from the slurp results of tracefs' available_tracers files."""
    if not isinstance(tracefs, list) or not all(isinstance(result, dict) for result in tracefs):
        raise AnsibleFilterError("rt_validate_hwlat_tracer: expected the 'results' list of ansible.builtin.slurp "
                                 "looped over available_tracers files, got %s" % type(tracefs).__name__)
    return hwlat_tracer(tracefs)


def rt_validate_hwlat(text, threshold_us=10, subject="host firmware", skip_reason=None):
    """The check of a hwlatdetect run (its report text), or a skipped check with ``skip_reason``."""
    try:
        threshold = int(threshold_us)
    except (TypeError, ValueError):
        threshold = -1
    if isinstance(threshold_us, bool) or threshold < 0:
        raise AnsibleFilterError("rt_validate_hwlat: threshold_us=%r is not a number of microseconds. "
                                 "Fix: give rt_validate_hwlat_threshold_us as a whole number, such as 10"
                                 % (threshold_us,))
    parsed = parse_hwlat(text if isinstance(text, str) else "")
    return hwlat_check(parsed, threshold, subject=str(subject), skip_reason=skip_reason or None)


def rt_validate_report(checks, host, accept=None):
    """Table, counts and failures of a list of checks; the failures of the checks ``accept`` names become warn."""
    if not isinstance(checks, list):
        raise AnsibleFilterError("rt_validate_report: expected a list of checks, got %s" % type(checks).__name__)
    try:
        return build_report(checks, host, accept=accept)
    except OptionError as exc:
        raise AnsibleFilterError("rt_validate_report: %s" % exc)


def rt_validate_guest_plan(guests, duration, inventory=None, group=None, groups=None):
    """Targets (with the cyclictest argv) of rt_validate_guests and of the hosts of inventory group ``group``."""
    if groups is not None and not isinstance(groups, dict):
        raise AnsibleFilterError("rt_validate_guest_plan: groups must be Ansible's groups (group name -> hosts), "
                                 "got %s" % type(groups).__name__)
    try:
        return plan_guests(guests, duration, inventory=list(inventory) if inventory is not None else None,
                           group=group, groups=groups)
    except OptionError as exc:
        raise AnsibleFilterError("rt_validate_guest_plan: %s" % exc)


def _result(value, name):
    if value is None or isinstance(value, dict):
        return value
    raise AnsibleFilterError("%s: expected a registered task result (a dict), got %s" % (name, type(value).__name__))


def rt_validate_guest_state(target, probe=None, install=None, install_allowed=False, check_mode=False):
    """Next step for one guest: install, run, or done (with status and reason)."""
    if not isinstance(target, dict):
        raise AnsibleFilterError("rt_validate_guest_state: expected one target of rt_validate_guest_plan")
    return guest_state(target, probe=_result(probe, "rt_validate_guest_state probe"),
                       install=_result(install, "rt_validate_guest_state install"),
                       install_allowed=bool(install_allowed), check_mode=bool(check_mode))


def rt_validate_guest_check(target, state, run=None, threshold_us=40, tuning=None):
    """The report checks (latency, tuning) and the kept record (parsed run, histogram, tuning) of one guest."""
    if not isinstance(target, dict) or not isinstance(state, dict):
        raise AnsibleFilterError("rt_validate_guest_check: expected a target of rt_validate_guest_plan "
                                 "and a state of rt_validate_guest_state")
    try:
        threshold = int(threshold_us)
    except (TypeError, ValueError):
        raise AnsibleFilterError("rt_validate_guest_check: threshold_us=%r is not a number of microseconds"
                                 % (threshold_us,))
    try:
        return guest_check(target, state, run=_result(run, "rt_validate_guest_check run"), threshold_us=threshold,
                           tuning=_result(tuning, "rt_validate_guest_check tuning"))
    except CpusetError as exc:
        raise AnsibleFilterError("rt_validate_guest_check: cpus=%r of the target: %s. Fix: pass a target of "
                                 "rt_validate_guest_plan" % (target.get("cpus"), exc))


def _mapping(value, name, what):
    if not isinstance(value, dict):
        raise AnsibleFilterError("%s: expected %s, got %s" % (name, what, type(value).__name__))
    return value


def rt_validate_isolation_checks(isolation, rt_node, isolated=None, thp_allowed=None, ksm_allowed=None,
                                 tuned_verify=None):
    """Checks of what the kernel does on the isolated CPUs, THP, KSM and tuned-adm verify."""
    name = "rt_validate_isolation_checks"
    _mapping(isolation, name, "the 'isolation' of realtime.virt.rt_isolation_info")
    _mapping(rt_node, name, "ansible_facts.rt_node of realtime.virt.rt_node_facts")
    for option, value in (("thp_allowed", thp_allowed), ("ksm_allowed", ksm_allowed)):
        if value is not None and not isinstance(value, list):
            raise AnsibleFilterError("%s: %s=%r is not a list. Fix: give a list such as %s" % (
                name, option, value, "[never, madvise]" if option == "thp_allowed" else "[0, 2]"))
    if ksm_allowed is not None:
        for value in ksm_allowed:
            if isinstance(value, bool) or not str(value).strip().isdigit():
                raise AnsibleFilterError("%s: rt_validate_ksm_allowed=%r: %r is not a value of /sys/kernel/mm/ksm/run. "
                                         "Fix: list 0 (stopped), 1 (running) or 2 (stopped, pages unmerged)"
                                         % (name, ksm_allowed, value))
    try:
        return isolation_checks(isolation, rt_node, isolated=isolated, thp_allowed=thp_allowed,
                                ksm_allowed=ksm_allowed, tuned_verify=_result(tuned_verify, name + " tuned_verify"))
    except OptionError as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))


def rt_validate_drift_checks(applied, rt_node, sysctls=None, kernel_args=None, reboot_pending=False, hugepages=None,
                             hugepages_default_size=None, hugetlbfs=True, runtime_sizes=None, sriov_pfs=None,
                             sriov_vf_driver="vfio-pci", check_mode=False):
    """Checks that every value rt_host, hugepages and sriov applied still holds."""
    name = "rt_validate_drift_checks"
    _mapping(applied, name, "the 'applied' of realtime.virt.rt_isolation_info")
    _mapping(rt_node, name, "ansible_facts.rt_node of realtime.virt.rt_node_facts")
    if kernel_args is not None and not isinstance(kernel_args, list):
        raise AnsibleFilterError("%s: rt_validate_drift_kernel_args=%r is not a list. Fix: give the list of "
                                 "arguments rt_host wrote (rt_host_kernel_args)" % (name, kernel_args))
    try:
        return drift_checks(applied, rt_node, sysctls=sysctls, kernel_args=kernel_args,
                            reboot_pending=reboot_pending, hugepages=hugepages,
                            hugepages_default_size=hugepages_default_size, hugetlbfs=hugetlbfs,
                            runtime_sizes=runtime_sizes, sriov_pfs=sriov_pfs, sriov_vf_driver=sriov_vf_driver,
                            check_mode=bool(check_mode))
    except OptionError as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))


def _parsed_reports(reports, name):
    """``reports`` with each JSON text (a report file's content, as lookup('file') reads it) parsed.

    A fleet's reports are large: read from files as text, they reach the
    filter without ansible-core's per-item cost of passing containers.
    """
    if not isinstance(reports, list) or not any(isinstance(r, str) for r in reports):
        return reports
    parsed = []
    for index, report in enumerate(reports):
        if isinstance(report, str):
            try:
                report = json.loads(report)
            except ValueError as exc:
                raise AnsibleFilterError("%s: report %d is not JSON (%s): %r. Fix: give the files rt_validate wrote "
                                         "(rt_validate_report_path, fetched to the report directory)"
                                         % (name, index, exc, report[:60]))
        parsed.append(report)
    return parsed


def _history(history, name):
    """The history as a mapping: history.json's text (as lookup('file') reads it; empty: none yet) is parsed."""
    if not isinstance(history, str):
        return history
    if not history.strip():
        return {}
    try:
        return json.loads(history)
    except ValueError as exc:
        raise AnsibleFilterError("%s: history=%r...: not JSON (%s). Fix: give the content of "
                                 "<rt_validate_report_root>/history.json as rt_validate_history wrote it, or move "
                                 "a damaged file aside to start a new history" % (name, history[:40], exc))


def _host_reports(reports, name):
    """``reports`` when it is a list of rt_validate JSON reports, else an AnsibleFilterError saying what to give."""
    reports = _parsed_reports(reports, name)
    if not isinstance(reports, list) or not all(isinstance(r, dict) for r in reports):
        raise AnsibleFilterError("%s: expected a list of rt_validate JSON reports (one mapping per host), got %s"
                                 % (name, type(reports).__name__))
    for report in reports:
        if not isinstance(report.get("measurements", []), list) or not isinstance(report.get("checks", []), list):
            raise AnsibleFilterError("%s: the report of %r has 'checks' or 'measurements' that is not a list; give "
                                     "the documents rt_validate writes (rt_validate_report_path)"
                                     % (name, report.get("host")))
    return reports


def rt_validate_html(reports, title="rt_validate fleet report", generated="", history=None,
                     regression_factor=DEFAULT_FACTOR):
    """One self-contained HTML page (summary, what got worse, fleet table, folded hosts) for many hosts' reports."""
    name = "rt_validate_html"
    reports = _host_reports(reports, name)
    try:
        factor = check_factor(regression_factor, "regression_factor")
        past = check_history(_history(history, name)) if history is not None else None
    except OptionError as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))
    return render_html(reports, title=str(title), generated=str(generated or ""), history=past, factor=factor)


def rt_validate_history(history, reports, run, time="", keep=DEFAULT_KEEP):
    """The history of runs (history.json) with this run's reports appended, the last ``keep`` runs per host."""
    name = "rt_validate_history"
    reports = _host_reports(reports, name)
    try:
        return update_history(_history(history, name), reports, run, time=str(time or ""), keep=keep)
    except OptionError as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))


def rt_validate_regressions(history, hosts=None, regression_factor=DEFAULT_FACTOR):
    """What got worse between each host's previous run and its last one in the history (of ``hosts``)."""
    name = "rt_validate_regressions"
    if hosts is not None and (not isinstance(hosts, list) or not all(isinstance(h, str) for h in hosts)):
        raise AnsibleFilterError("%s: hosts=%r is not a list of host names. Fix: give ansible_play_hosts, or leave "
                                 "it out for every host of the history" % (name, hosts))
    try:
        return regressions(_history(history, name), hosts, check_factor(regression_factor, "regression_factor"))
    except OptionError as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))


def rt_validate_prometheus(report, time):
    """One host's report as node_exporter textfile metrics (Prometheus text exposition format)."""
    name = "rt_validate_prometheus"
    if not isinstance(report, dict):
        raise AnsibleFilterError("%s: expected the JSON report of one host (rt_validate_report_doc), got %s"
                                 % (name, type(report).__name__))
    _host_reports([report], name)
    try:
        return render_textfile(report, time)
    except OptionError as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))


def rt_validate_junit(reports, name="rt_validate", timestamp=""):
    """JUnit XML of the checks of many hosts: one testsuite per host, one testcase per check."""
    reports = _host_reports(reports, "rt_validate_junit")
    return render_junit(reports, name=str(name), timestamp=str(timestamp or ""))


def rt_validate_duration(value, option="rt_validate_duration"):
    """Seconds of a duration such as 10, 30s, 10m or 12h, the same as a person says it, and how long to wait for it."""
    try:
        seconds = parse_duration(value, option=str(option))
    except OptionError as exc:
        raise AnsibleFilterError("rt_validate_duration: %s" % exc)
    return {"seconds": seconds, "text": format_duration(seconds), "wait_seconds": seconds + WAIT_GRACE_S}


def _text(value, name, option, what):
    if value is None or isinstance(value, str):
        return value
    raise AnsibleFilterError("%s: %s=%r is not text. Fix: give %s" % (name, option, value, what))


def _pmc(value, name):
    """pmc's parsed answers: a mapping of rt_validate_pmc, or pmc's output text (parsed here)."""
    if isinstance(value, str):
        return parse_pmc(value)
    if isinstance(value, dict):
        return value
    raise AnsibleFilterError("%s: pmc=%r is neither pmc's output text nor rt_validate_pmc's result. Fix: give the "
                             "stdout of pmc -u -b 0 (or it through realtime.virt.rt_validate_pmc)" % (name, value))


def _options(options, allowed, name):
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise AnsibleFilterError("%s: unknown option %s. Fix: use only %s" % (
            name, ", ".join(unknown), ", ".join(sorted(allowed))))
    out = dict(allowed)
    out.update(options)
    for option, value in out.items():
        default = allowed[option]
        if isinstance(default, bool) and not isinstance(value, bool):
            raise AnsibleFilterError("%s: %s=%r is not a boolean. Fix: give true or false" % (name, option, value))
        if option.startswith("max_") and (isinstance(value, bool) or not isinstance(value, (int, float))
                                          or value < 0):
            raise AnsibleFilterError("%s: %s=%r is not a number of nanoseconds. Fix: give a whole number, 0 or "
                                     "more, such as %d" % (name, option, value, default))
    return out


def _cpus(value, name, option):
    try:
        return parse_cpuset(value, allow_exclusion=False)
    except (CpusetError, TypeError, ValueError) as exc:
        raise AnsibleFilterError("%s: %s=%r: %s. Fix: give a CPU set such as 2-5 or a list of CPU numbers"
                                 % (name, option, value, exc))


def _daemons(daemons, name):
    if daemons is None:
        return None
    if not isinstance(daemons, list) or not all(isinstance(d, dict) for d in daemons):
        raise AnsibleFilterError("%s: daemons=%r is not a list of processes. Fix: give one mapping per ptp4l or "
                                 "phc2sys process: {name, pid, cpus_allowed, policy, priority}" % (name, daemons))
    out = []
    for index, daemon in enumerate(daemons):
        if "cpus_allowed" not in daemon:
            raise AnsibleFilterError("%s: daemons[%d]=%r has no cpus_allowed. Fix: give the Cpus_allowed_list of "
                                     "/proc/<pid>/status" % (name, index, daemon))
        out.append(dict(daemon, cpus_allowed=_cpus(daemon["cpus_allowed"], name, "daemons[%d].cpus_allowed" % index)))
    return out


PTP_OPTIONS = {"free_running": False, "ptp4l_log": None, "phc2sys_log": None, "phc2sys_expected": False,
               "max_offset_ns": DEFAULT_MAX_OFFSET_NS, "max_phc2sys_offset_ns": DEFAULT_MAX_OFFSET_NS,
               "daemons": None, "isolated": None, "clocksource": None, "ptp_kvm_guests": False}


def rt_validate_pmc(text):
    """pmc's answers (``pmc -u -b 0 'GET ...'``) as ``{dataset: {field: value}, ports: [...]}``; no answer: {}."""
    if not isinstance(text, str):
        raise AnsibleFilterError("rt_validate_pmc: expected pmc's output text, got %s. Fix: give the stdout of "
                                 "pmc -u -b 0 -d <domain> 'GET PORT_DATA_SET' ... (its registered result's stdout)"
                                 % type(text).__name__)
    return parse_pmc(text)


def rt_validate_ptp_checks(pmc, subject="host PTP", **options):
    """The report lines of a host's PTP (port, servo, offset, grandmaster; phc2sys, daemons, clocksource)."""
    name = "rt_validate_ptp_checks"
    found = _options(options, PTP_OPTIONS, name)
    for option in ("ptp4l_log", "phc2sys_log", "clocksource"):
        found[option] = _text(found[option], name, option, "the text read on the host (a registered stdout)")
    found["daemons"] = _daemons(found["daemons"], name)
    if found["isolated"] is not None:
        found["isolated"] = _cpus(found["isolated"], name, "isolated")
    return ptp_checks(_pmc(pmc, name), str(subject), **found)


def rt_validate_ptp_measurement(pmc, subject="host PTP", log=None, **options):
    """The ``ptp`` measurement (offset, path delay, port state, servo, status) for the report and the fleet page."""
    name = "rt_validate_ptp_measurement"
    found = _options(options, {"max_offset_ns": DEFAULT_MAX_OFFSET_NS, "free_running": False}, name)
    log = _text(log, name, "log", "ptp4l's log text (a registered stdout)")
    return ptp_measurement(str(subject), _pmc(pmc, name), log, **found)


def rt_validate_chrony_checks(tracking, sources, subject="guest chrony", **options):
    """A guest's chrony checks: the PHC refclock selected, the system time offset within the bound."""
    name = "rt_validate_chrony_checks"
    found = _options(options, {"max_offset_ns": DEFAULT_GUEST_MAX_OFFSET_NS, "refid": None}, name)
    tracking = _text(tracking, name, "tracking", "the stdout of chronyc -c tracking")
    sources = _text(sources, name, "sources", "the stdout of chronyc -c sources")
    refid = _text(found["refid"], name, "refid", "the refid of the PHC refclock in chrony.conf, such as PHC0")
    return chrony_checks(tracking, sources, str(subject), max_offset_ns=found["max_offset_ns"], refid=refid)


class FilterModule(object):
    """rt_validate filters."""

    def filters(self):
        return {
            "rt_validate_domain_checks": rt_validate_domain_checks,
            "rt_validate_cyclictest": rt_validate_cyclictest,
            "rt_validate_oslat": rt_validate_oslat,
            "rt_validate_latency_check": rt_validate_latency_check,
            "rt_validate_hwlat_tracer": rt_validate_hwlat_tracer,
            "rt_validate_hwlat": rt_validate_hwlat,
            "rt_validate_report": rt_validate_report,
            "rt_validate_guest_plan": rt_validate_guest_plan,
            "rt_validate_guest_state": rt_validate_guest_state,
            "rt_validate_guest_check": rt_validate_guest_check,
            "rt_validate_isolation_checks": rt_validate_isolation_checks,
            "rt_validate_drift_checks": rt_validate_drift_checks,
            "rt_validate_html": rt_validate_html,
            "rt_validate_history": rt_validate_history,
            "rt_validate_regressions": rt_validate_regressions,
            "rt_validate_prometheus": rt_validate_prometheus,
            "rt_validate_junit": rt_validate_junit,
            "rt_validate_duration": rt_validate_duration,
            "rt_validate_pmc": rt_validate_pmc,
            "rt_validate_ptp_checks": rt_validate_ptp_checks,
            "rt_validate_ptp_measurement": rt_validate_ptp_measurement,
            "rt_validate_chrony_checks": rt_validate_chrony_checks,
        }
