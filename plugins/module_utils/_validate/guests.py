# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""cyclictest inside real-time guests of the inventory (pure).

The role runs three steps per guest, each delegated to the guest: look for
cyclictest, install rt-tests when allowed, run cyclictest. These functions
decide everything around those steps, from the task results alone:

* ``plan_guests`` turns ``rt_validate_guests``, and the hosts of the
  inventory group ``rt_validate_guests_group`` names (for example one the
  community.libvirt inventory plugin fills from libvirt), into targets,
  each with the cyclictest argv (KubeVirt's parameters) and, for a name
  missing from the inventory, the reason it cannot be measured.
* ``guest_state`` reads the look-up (and install) results and says what
  comes next: ``install``, ``run`` or ``done`` (with a status and reason).
* ``guest_tuning`` reads what ``realtime.virt.rt_isolation_info`` saw in
  the guest (run after cyclictest, never during it) and says whether the
  guest is tuned for real time, and if not, what it lacks.
* ``guest_check`` turns the outcome into the report checks of the guest
  (its latency and its tuning) plus a record that keeps the parsed run, its
  histogram and the tuning.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError, format_cpuset, parse_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import check
from ansible_collections.realtime.virt.plugins.module_utils._validate.cyclictest import latency_check, parse_cyclictest
from ansible_collections.realtime.virt.plugins.module_utils._validate.duration import WAIT_GRACE_S, parse_duration

# KubeVirt's latency lane: SCHED_FIFO 95, 100 us interval, 1000 us histogram.
KUBEVIRT_ARGS = ("--policy", "fifo", "--priority", "95", "-i", "100", "-H", "1000")
# rt-tests 2.x writes its results as JSON; to stderr, the text summary stays on stdout.
JSON_ARG = "--json=/dev/stderr"
ENTRY_KEYS = ("host", "cpus", "main_cpus")
VARIABLE = "rt_validate_guests"
GROUP_VARIABLE = "rt_validate_guests_group"
INSTALL_FIX = "install rt-tests in the guest, or set rt_validate_guest_install: true"
# The tuned profile of a real-time KVM guest. realtime.virt.rt_guest
# activates it, or a child profile of its own (realtime-virt-<profile>) that
# includes it.
RT_GUEST_PROFILE = "realtime-virtual-guest"
RT_RUNTIME_SYSCTL = "kernel.sched_rt_runtime_us"
TUNING_CHECK = "guest tuning"
TUNING_FIX = "run realtime.virt.rt_guest on it"


def cyclictest_argv(duration, cpus=None, main_cpus=None):
    """argv of one cyclictest run: KubeVirt's parameters, quiet, memory locked.

    ``cpus`` (ids) pins one measurement thread per CPU (``-a``/``-t``);
    ``main_cpus`` (ids) pins the main thread (``--mainaffinity``).
    """
    argv = ["cyclictest"] + list(KUBEVIRT_ARGS) + ["-D", str(int(duration)), "-q", "-m", JSON_ARG]
    if cpus:
        argv += ["-a", format_cpuset(cpus), "-t", str(len(cpus))]
    if main_cpus:
        argv.append("--mainaffinity=%s" % format_cpuset(main_cpus))
    return argv


def _cpus(value, where):
    if value is None:
        return None
    try:
        ids = parse_cpuset(value if isinstance(value, (list, tuple)) else str(value), allow_exclusion=False)
    except CpusetError as exc:
        raise OptionError(where, value, str(exc), "give a CPU list of the guest such as '1-3'")
    if not ids:
        raise OptionError(where, value, "empty", "leave it out to run one cyclictest thread anywhere in the guest")
    return ids


def _entry(index, item):
    where = "%s[%d]" % (VARIABLE, index)
    if isinstance(item, str):
        item = {"host": item}
    if not isinstance(item, dict):
        raise OptionError(where, item, "expected an inventory hostname or {host, cpus, main_cpus}")
    unknown = sorted(set(item) - set(ENTRY_KEYS))
    if unknown:
        raise OptionError(where, item, "unknown key(s) %s" % ", ".join(unknown), "use only %s" % ", ".join(ENTRY_KEYS))
    host = item.get("host")
    if not isinstance(host, str) or not host.strip():
        raise OptionError(where + ".host", host, "expected the guest's inventory hostname")
    host = host.strip()
    where = "%s (%s)" % (where, host)
    return host, _cpus(item.get("cpus"), where + ".cpus"), _cpus(item.get("main_cpus"), where + ".main_cpus")


def plan_guests(guests, duration, inventory=None, group=None, groups=None):
    """Targets of ``rt_validate_guests`` and of the hosts of inventory group ``group``.

    Each is ``{host, cpus, main_cpus, threads, subject, argv, error, group,
    skip}``; ``cpus``/``main_cpus`` are cpuset strings or None. ``error`` is
    None, or why the guest cannot be measured (a name missing from
    ``inventory``, when given) - that guest gets a failed check, the others
    still run. Malformed entries raise ``OptionError`` naming the entry.

    ``group`` (``rt_validate_guests_group``) names an inventory group;
    ``groups`` is the inventory's group -> hosts mapping (Ansible's
    ``groups``). Its hosts are measured as entries that name only the host
    (``group`` set to the group's name), after the entries of ``guests``;
    a host ``guests`` lists already keeps that entry. A group the inventory
    lacks or that has no host (a group an inventory plugin fills is only
    made when a host matches) gives one target with ``skip``, the reason,
    and no host to run in: the report shows it as skipped.
    """
    if guests is None:
        guests = []
    if not isinstance(guests, list):
        raise OptionError(VARIABLE, guests, "a %s, not a list" % type(guests).__name__,
                          "give a list of inventory hostnames or {host, cpus}")
    seconds = parse_duration(duration)
    known = None if inventory is None else set(inventory)
    seen = set()
    targets = []
    for index, item in enumerate(guests):
        host, cpus, main_cpus = _entry(index, item)
        if host in seen:
            raise OptionError("%s[%d]" % (VARIABLE, index), host, "guest %s is listed twice" % host,
                              "give it once (with all its CPUs in cpus)")
        seen.add(host)
        error = None
        if known is not None and host not in known:
            error = ("%s is not in the inventory; add it (with ansible_host and how to connect) or correct the name"
                     % host)
        subject = "guest %s" % host + (" CPUs %s" % format_cpuset(cpus) if cpus else "")
        targets.append({"host": host, "cpus": format_cpuset(cpus) if cpus else None,
                        "main_cpus": format_cpuset(main_cpus) if main_cpus else None,
                        "threads": len(cpus) if cpus else 1, "subject": subject,
                        "argv": cyclictest_argv(seconds, cpus, main_cpus), "error": error,
                        "group": None, "skip": None})
    return targets + _group_targets(group, groups, seen, seconds)


def _group_targets(group, groups, seen, seconds):
    """Targets of the hosts of inventory group ``group`` that ``seen`` (the listed guests) lacks."""
    if group is None or group == "":
        return []
    if not isinstance(group, str) or not group.strip():
        raise OptionError(GROUP_VARIABLE, group, "expected the name of an inventory group",
                          "give the group's name, or an empty string for no group")
    group = group.strip()
    hosts = (groups or {}).get(group) or []
    if isinstance(hosts, str) or not isinstance(hosts, (list, tuple)):
        raise OptionError("groups[%r]" % group, hosts, "expected the list of the group's hosts",
                          "pass Ansible's groups to rt_validate_guest_plan")
    if not hosts:
        reason = ("the inventory has no host in group %s (no such group, or no host matched it), so no guest of "
                  "it was measured; check %s and the inventory source that fills the group" % (group, GROUP_VARIABLE))
        return [{"host": None, "cpus": None, "main_cpus": None, "threads": 0, "subject": "guests of group %s" % group,
                 "argv": [], "error": None, "group": group, "skip": reason}]
    targets = []
    for host in hosts:
        if host in seen:
            continue
        seen.add(host)
        targets.append({"host": host, "cpus": None, "main_cpus": None, "threads": 1, "subject": "guest %s" % host,
                        "argv": cyclictest_argv(seconds), "error": None, "group": group, "skip": None})
    return targets


def _last_line(text):
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _why(result):
    """The reason a task result went wrong, in one line."""
    result = result or {}
    parts = [str(result.get("msg") or "").strip()]
    for key in ("module_stderr", "stderr", "module_stdout"):
        line = _last_line(result.get(key))
        if line and line not in parts[0]:
            parts.append(line)
            break
    return ": ".join(part for part in parts if part) or "no output"


def _done(status, reason):
    return {"next": "done", "status": status, "reason": reason}


def guest_state(target, probe=None, install=None, install_allowed=False, check_mode=False):
    """What comes next for ``target`` after the look-up (and the install).

    ``probe`` is the registered result of ``command -v cyclictest`` in the
    guest, ``install`` the one of the rt-tests installation (None or
    skipped when it did not run). Returns ``{next, status, reason}`` with
    ``next`` one of ``install``, ``run``, ``done``; with ``done``,
    ``status`` (``fail`` or ``skip``) and ``reason`` say why.
    """
    host = target.get("host")
    if target.get("skip"):
        return _done("skip", target["skip"])
    if target.get("error"):
        return _done("fail", target["error"])
    probe = probe or {}
    if probe.get("skipped") or not probe:
        return _done("fail", "guest %s was not looked at" % host)
    if probe.get("unreachable"):
        return _done("fail", "guest %s is unreachable: %s; check that it runs and that Ansible can connect to it"
                     % (host, _why(probe)))
    if "rc" not in probe or "module_stderr" in probe:
        return _done("fail", "could not run a command in guest %s: %s" % (host, _why(probe)))
    if probe.get("rc") == 0 and str(probe.get("stdout") or "").strip():
        return {"next": "run", "status": None, "reason": ""}
    install = install or {}
    if not install or install.get("skipped"):
        if install_allowed:
            return {"next": "install", "status": None, "reason": ""}
        return _done("skip", "cyclictest is not installed in guest %s; %s" % (host, INSTALL_FIX))
    if install.get("unreachable"):
        return _done("fail", "guest %s became unreachable while installing rt-tests: %s" % (host, _why(install)))
    if install.get("failed") or install.get("rc", 0) != 0:
        return _done("fail", "installing rt-tests in guest %s failed: %s; install it by hand or fix the guest's "
                     "package sources" % (host, _why(install)))
    if check_mode:
        return _done("skip", "check mode: rt-tests would be installed in guest %s, so cyclictest runs there on the "
                     "real run" % host)
    return {"next": "run", "status": None, "reason": ""}


def _unread(reason):
    return {"tuned": None, "isolated": "", "sched_rt_runtime_us": None, "profiles": [],
            "missing": ["not read: %s" % reason]}


def _int_or_none(value):
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def _profile_names(tuned):
    """The active profile names and those of every tuned.conf loaded for them (the included parents)."""
    names = [str(name) for name in tuned.get("active") or []]
    for path in tuned.get("files") or []:
        parts = str(path).rstrip("/").split("/")
        if len(parts) >= 2:
            names.append(parts[-2])
    return names


def guest_tuning(result, cpus=None):
    """Whether a guest is tuned for real time, from its ``rt_isolation_info`` result.

    ``result`` is the registered result of ``realtime.virt.rt_isolation_info``
    run in the guest with ``sysctls: [kernel.sched_rt_runtime_us]``;
    ``cpus`` the guest CPUs cyclictest measured (a CPU list, or None when it
    ran unpinned). Returns ``{tuned, isolated, sched_rt_runtime_us, profiles,
    missing}``: ``isolated`` the CPUs the guest kernel isolates (its
    ``isolated`` and ``nohz_full`` lists together, as a CPU list, "" for
    none), ``profiles`` the active tuned profiles, ``missing`` what keeps
    the guest from counting as tuned (empty when ``tuned`` is True).

    A guest is tuned when all of these hold:

    * its kernel isolates CPUs (``isolcpus=`` or ``nohz_full=``), and every
      measured CPU, when ``cpus`` is given, is one of them;
    * ``kernel.sched_rt_runtime_us`` is -1 (no real-time throttling);
    * a real-time tuned profile is active: one whose name contains
      ``realtime-virtual-guest``, or that includes it (rt_guest's child
      profile ``realtime-virt-realtime-virtual-guest`` is both). When tuned
      is not installed in the guest (no profile directory and no active
      profile) the profile is not asked for, since the other two settings
      may then be made by hand; when tuned is installed, no active profile
      is missing.

    A result that says nothing (None, a skipped, unreachable or failed task)
    gives ``tuned`` None and the reason in ``missing``.
    """
    if not result or result.get("skipped"):
        return _unread("the task that reads it did not run")
    if result.get("unreachable"):
        return _unread("unreachable: %s" % _why(result))
    isolation = result.get("isolation")
    if result.get("failed") or not isinstance(isolation, dict):
        return _unread(_why(result))
    reported = isolation.get("cpus") or {}
    isolated = sorted(set(reported.get("isolated") or []) | set(reported.get("nohz_full") or []))
    sysctls = (result.get("applied") or {}).get("sysctls") or {}
    runtime = _int_or_none(sysctls.get(RT_RUNTIME_SYSCTL))
    tuned = isolation.get("tuned") or {}
    profiles = [str(name) for name in tuned.get("active") or []]
    missing = []
    if not isolated:
        missing.append("no isolated CPUs (neither isolcpus nor nohz_full)")
    elif cpus:
        measured = cpus if isinstance(cpus, (list, tuple)) else parse_cpuset(str(cpus), allow_exclusion=False)
        outside = sorted(set(measured) - set(isolated))
        if outside:
            missing.append("measured CPU(s) %s not isolated (isolated: %s)" % (format_cpuset(outside),
                                                                               format_cpuset(isolated)))
    if runtime is None:
        missing.append("%s could not be read" % RT_RUNTIME_SYSCTL)
    elif runtime != -1:
        missing.append("%s is %d, not -1" % (RT_RUNTIME_SYSCTL, runtime))
    if not any(RT_GUEST_PROFILE in name for name in _profile_names(tuned)):
        if profiles:
            missing.append("tuned profile %s is not %s (nor includes it)" % (" ".join(profiles), RT_GUEST_PROFILE))
        elif tuned.get("installed") is not False:
            missing.append("no tuned profile active")
    return {"tuned": not missing, "isolated": format_cpuset(isolated) if isolated else "",
            "sched_rt_runtime_us": runtime, "profiles": profiles, "missing": missing}


def _tuning_observed(tuning):
    if tuning["profiles"]:
        profile = " ".join(tuning["profiles"])
    else:
        profile = "none active"
    return "isolated %s, %s %s, tuned %s" % (
        tuning["isolated"] or "none", RT_RUNTIME_SYSCTL,
        "unread" if tuning["sched_rt_runtime_us"] is None else tuning["sched_rt_runtime_us"], profile)


def tuning_check(target, tuning):
    """The ``guest tuning`` check of one guest from its ``guest_tuning`` record: pass, warn or skip."""
    subject = target.get("subject") or "guest %s" % target.get("host")
    cpus = target.get("cpus")
    expected = "isolated CPUs%s, %s -1, a real-time tuned profile" % (
        " covering the measured CPUs %s" % cpus if cpus else "", RT_RUNTIME_SYSCTL)
    if tuning["tuned"] is None:
        return check(subject, TUNING_CHECK, expected, "skipped: %s" % "; ".join(tuning["missing"]), "skip")
    if tuning["tuned"]:
        return check(subject, TUNING_CHECK, expected, _tuning_observed(tuning), "pass")
    return check(subject, TUNING_CHECK, expected, _tuning_observed(tuning), "warn",
                 "%s: not tuned for real time: %s. Fix: %s" % (subject, "; ".join(tuning["missing"]), TUNING_FIX))


def guest_check(target, state, run=None, threshold_us=40, tuning=None):
    """``{check, checks, guest}``: the report checks of one guest and its record.

    ``state`` comes from ``guest_state``; ``run`` is the registered result
    of the cyclictest command (when it ran); ``tuning`` the registered
    result of ``rt_isolation_info`` in the guest (read only when cyclictest
    ran there). ``check`` is the latency check; ``checks`` holds it and,
    for a target that names a guest, its ``guest tuning`` check
    (``tuning_check``: skipped when the guest was not measured). The record
    is ``{host, group, cpus, main_cpus, argv, status, reason, cyclictest,
    tuning}`` where ``cyclictest`` is the parsed run with its histogram
    (None when nothing ran) and ``tuning`` the ``guest_tuning`` record.
    """
    subject = target.get("subject") or "guest %s" % target.get("host")
    expected = "max latency <= %d us" % threshold_us
    state = state or {}
    parsed = None
    if state.get("next") == "done" and state.get("status") == "skip":
        result = latency_check(None, subject, threshold_us, skip_reason=state.get("reason"))
    elif state.get("next") == "done":
        reason = state.get("reason") or "no reason given"
        result = check(subject, "cyclictest", expected, "not measured: %s" % reason, "fail",
                       "%s: %s" % (subject, reason))
    elif not run or run.get("skipped"):
        result = check(subject, "cyclictest", expected, "not measured: cyclictest did not run", "fail",
                       "%s: cyclictest did not run" % subject)
    elif run.get("unreachable"):
        reason = "guest %s became unreachable during cyclictest: %s" % (target.get("host"), _why(run))
        result = check(subject, "cyclictest", expected, "not measured: %s" % reason, "fail",
                       "%s: %s" % (subject, reason))
    elif "finished" in run and not run.get("finished"):
        reason = "cyclictest in guest %s had not finished %d s after its planned end" % (
            target.get("host"), WAIT_GRACE_S)
        result = check(subject, "cyclictest", expected, "not measured: %s" % reason, "fail",
                       "%s: %s" % (subject, reason))
    else:
        parsed = parse_cyclictest("%s\n%s" % (run.get("stdout") or "", run.get("stderr") or ""))
        if parsed.get("max_us") is None and (run.get("rc") or "rc" not in run):
            parsed["error"] = "cyclictest exited with %s: %s" % (run.get("rc", "no status"), _why(run))
        result = latency_check(parsed, subject, threshold_us)
        if parsed.get("max_us") is None and result["status"] == "fail":
            result["message"] += "; cyclictest needs root (become) in the guest for SCHED_FIFO and mlock"
    if state.get("next") == "done":
        tuning_record = _unread(state.get("reason") or "the guest was not measured")
    else:
        tuning_record = guest_tuning(tuning, cpus=target.get("cpus"))
    checks = [result]
    if target.get("host"):
        checks.append(tuning_check(target, tuning_record))
    record = {"host": target.get("host"), "group": target.get("group"), "cpus": target.get("cpus"),
              "main_cpus": target.get("main_cpus"), "argv": list(target.get("argv") or []), "status": result["status"],
              "reason": result["message"] or (state.get("reason") or ""), "cyclictest": parsed,
              "tuning": tuning_record}
    return {"check": result, "checks": checks, "guest": record}
