# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The isolation checks of rt_validate: what the kernel does on the isolated CPUs (pure).

Input: the ``isolation`` of rt_isolation_info and the rt_node facts.  The
isolated CPUs are the kernel's (``/sys/devices/system/cpu/isolated`` and
``nohz_full``), or a set given explicitly.  Every check is one line of the
report (:func:`checks.check`); a failure names what is wrong (the IRQ and
its device, the thread and its pid, the mask) and the fix.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError, format_cpuset, parse_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._kernel import paths
from ansible_collections.realtime.virt.plugins.module_utils._node.isolation import describe_irq, irq_verdicts
from ansible_collections.realtime.virt.plugins.module_utils._node.tuned import ACTIVE_PROFILE, rule_for
from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import check

HOST = "host"
ROLE_HOST = "realtime.virt.rt_host"
# The per-CPU thread families checked, and when a kernel has them.
FAMILIES = (
    ("ksoftirqd", "every kernel has one per CPU"),
    ("ktimers", "only PREEMPT_RT kernels run them"),
    ("ktimersoftd", "only older PREEMPT_RT kernels run them"),
    ("rcuc", "only kernels that run RCU callbacks in threads have them (PREEMPT_RT, rcutree.use_softirq=0)"),
)
# Families that are only reported when present (a newer name replaced them).
OPTIONAL_FAMILIES = ("ktimersoftd",)
THP_ALLOWED = ("never", "madvise")
KSM_ALLOWED = (0, 2)


def isolated_set(rt_node, isolated=None, option="rt_validate_isolated_cpus"):
    """``(cpus, source)``: the CPUs judged as isolated and where they come from.

    ``isolated`` (a CPU set) overrides the kernel's isolated and nohz_full
    CPUs; it must name online CPUs and leave one for the host.
    """
    cpus = (rt_node or {}).get("cpus") or {}
    online = cpus.get("online") or []
    if isolated in (None, ""):
        kernel = sorted(set(cpus.get("isolated") or []) | set(cpus.get("nohz_full") or []))
        return kernel, "the kernel's isolated and nohz_full CPUs"
    try:
        wanted = parse_cpuset(isolated, allow_exclusion=False)
    except CpusetError as error:
        raise OptionError(option, isolated, str(error), "give a CPU set such as '2-15,18-31', or leave it empty "
                          "to judge the CPUs the kernel isolated")
    offline = sorted(set(wanted) - set(online))
    if offline:
        raise OptionError(option, isolated, "CPU(s) %s are not online (online: %s)" % (
            format_cpuset(offline), format_cpuset(online) or "none"), "name online CPUs only")
    if online and set(online) <= set(wanted):
        raise OptionError(option, isolated, "it names every online CPU, leaving none for the host",
                          "leave at least one online CPU out")
    return wanted, "%s=%s" % (option, format_cpuset(wanted))


def _cpus(cpus):
    return format_cpuset(cpus) if cpus else "none"


def _interrupts(subject, irqs, isolated, housekeeping):
    expected = "no IRQ but kernel-managed ones delivered to CPUs %s" % _cpus(isolated)
    if not irqs:
        return check(subject, "interrupts", expected, "no /proc/irq/<N> could be read", "skip")
    verdicts = irq_verdicts(irqs, isolated)

    def seen(irq):
        counts = dict((int(cpu), number) for cpu, number in (irq.get("counts") or {}).items())
        counted = sum(counts.get(cpu, 0) for cpu in irq["on"])
        return "%s on CPU %s (affinity %s, %d interrupts there)" % (
            describe_irq(irq), _cpus(irq["on"]), _cpus(irq["affinity"]), counted)

    managed = len(verdicts["managed"])
    if verdicts["offending"]:
        listed = "; ".join(seen(irq) for irq in verdicts["offending"])
        fix = ("move each off them, e.g. echo %s > /proc/irq/%d/smp_affinity_list, keep irqbalance off the isolated "
               "CPUs (%s bans them) and boot with irqaffinity=%s; an IRQ whose smp_affinity write fails (EIO or EPERM) "
               "is managed: boot with isolcpus=managed_irq,..." % (
                   _cpus(housekeeping), verdicts["offending"][0]["irq"], ROLE_HOST, _cpus(housekeeping)))
        return check(subject, "interrupts", expected, listed, "fail",
                     "%s: %d interrupt(s) delivered to isolated CPUs: %s; fix: %s"
                     % (subject, len(verdicts["offending"]), listed, fix))
    if verdicts["possible"]:
        listed = "; ".join(seen(irq) for irq in verdicts["possible"])
        return check(subject, "interrupts", expected, "possibly kernel-managed: " + listed, "warn",
                     "%s: cannot tell whether %s are managed (no debugfs irq directory, and this kernel does not mark "
                     "them read-only); a managed queue IRQ whose mask is only isolated CPUs fires for I/O submitted "
                     "there. Mount debugfs on a kernel with GENERIC_IRQ_DEBUGFS to tell"
                     % (subject, ", ".join(describe_irq(irq) for irq in verdicts["possible"])))
    return check(subject, "interrupts", expected, "%d IRQs, none on CPUs %s%s" % (
        len(irqs), _cpus(isolated), " but %d kernel-managed" % managed if managed else ""), "pass")


def _mask(subject, name, path, cpus, isolated, fix):
    expected = "leaves out CPUs %s" % _cpus(isolated)
    if cpus is None:
        return check(subject, name, expected, "%s cannot be read (not in this kernel)" % path, "skip")
    overlap = sorted(set(cpus) & set(isolated))
    observed = "%s: %s" % (path, _cpus(cpus))
    if overlap:
        return check(subject, name, expected, observed, "fail", "%s: %s %s includes isolated CPU(s) %s; fix: %s"
                     % (subject, name, _cpus(cpus), _cpus(overlap), fix))
    return check(subject, name, expected, observed, "pass")


def _masks(subject, rt_node, masks, isolated, housekeeping):
    hk = _cpus(housekeeping)
    out = [_mask(subject, "default IRQ affinity", paths.DEFAULT_IRQ_AFFINITY,
                 ((rt_node or {}).get("cpus") or {}).get("irq_default_affinity"), isolated,
                 "boot with irqaffinity=%s (%s) or write its mask to %s" % (hk, ROLE_HOST, paths.DEFAULT_IRQ_AFFINITY))]
    by_name = dict((mask["name"], mask) for mask in masks or [])
    workqueue = by_name.pop("workqueue cpumask", {"path": paths.WORKQUEUE_CPUMASK, "cpus": None})
    fixes = {
        "workqueue cpumask": "write the housekeeping CPUs' mask to %s (tuned's realtime profiles set it) or boot with "
                             "isolcpus=domain,... / nohz_full=..." % workqueue["path"],
        "writeback workqueue cpumask": "write the housekeeping CPUs' mask to it (tuned's realtime profiles do)",
        "kthread_cpus": "boot with kthread_cpus=%s" % hk,
    }
    out.append(_mask(subject, "workqueue cpumask", workqueue["path"], workqueue["cpus"], isolated,
                     fixes["workqueue cpumask"]))
    for name in sorted(by_name):
        mask = by_name[name]
        out.append(_mask(subject, name, mask["path"], mask["cpus"], isolated,
                         fixes.get(name, "boot with the isolation arguments of %s (%s)" % (ROLE_HOST, hk))))
    return out


def _family(subject, family, why, threads, isolated, tuned):
    name = "%s/N scheduling" % family
    mine = [thread for thread in threads if thread["family"] == family and thread["cpu"] in isolated]
    if not mine:
        if family in OPTIONAL_FAMILIES:
            return None
        return check(subject, name, "the policy the tuned profile sets", "no %s/N thread on CPUs %s" % (
            family, _cpus(isolated)), "skip", "%s: no %s/N threads (%s)" % (subject, family, why))
    tuned = tuned or {}
    reason = None
    rule = None
    if not tuned.get("active"):
        reason = ("no tuned profile is active (%s is empty or missing), so nothing sets their scheduling"
                  % ACTIVE_PROFILE if tuned.get("installed") else "tuned is not installed, so nothing sets their scheduling")
    elif tuned.get("errors"):
        reason = "the active tuned profile cannot be read: %s" % "; ".join(tuned["errors"])
    else:
        rule = rule_for(tuned.get("rules"), mine[0]["comm"])
        if rule is None or rule["policy"] is None:
            reason = "the active tuned profile %s sets no policy for %s/N (no [scheduler] group.* rule matches [%s])" % (
                " ".join(tuned["active"]), family, mine[0]["comm"])
    if reason:
        return check(subject, name, "the policy the tuned profile sets", "%d thread(s), %s" % (
            len(mine), _summary(mine)), "skip", "%s: %s/N not checked: %s" % (subject, family, reason))
    expected = "%s priority %d (tuned %s group.%s)" % (
        rule["policy"], rule["priority"], " ".join(tuned["active"]), rule["group"])
    realtime = rule["policy"] in ("SCHED_FIFO", "SCHED_RR")
    wrong = [thread for thread in mine if thread["policy"] != rule["policy"]
             or (realtime and thread["priority"] != rule["priority"])]
    if wrong:
        listed = ", ".join("%s %s priority %d (pid %d)" % (t["comm"], t["policy"], t["priority"], t["pid"]) for t in wrong)
        return check(subject, name, expected, listed, "fail",
                     "%s: %s, not %s; fix: restart tuned (tuned-adm profile %s) or chrt -p %s%d <pid>"
                     % (subject, listed, expected, " ".join(tuned["active"]),
                        {"SCHED_FIFO": "-f ", "SCHED_RR": "-r "}.get(rule["policy"], "-o "), rule["priority"]))
    return check(subject, name, expected, "%d thread(s), %s" % (len(mine), _summary(mine)), "pass")


def _summary(threads):
    kinds = sorted(set("%s %d" % (thread["policy"], thread["priority"]) for thread in threads))
    return "all " + kinds[0] if len(kinds) == 1 else ", ".join(kinds)


def _housekeeping_threads(subject, threads, isolated, housekeeping):
    expected = "kswapd, kcompactd, khugepaged and unbound kworkers only on CPUs %s" % _cpus(housekeeping)
    if not threads:
        return check(subject, "housekeeping threads", expected, "no such thread could be read", "skip")
    wrong = [thread for thread in threads if thread["cpus"] and set(thread["cpus"]) & set(isolated)]
    if wrong:
        listed = ", ".join("%s (pid %d) may run on %s" % (t["comm"], t["pid"], t["cpuset"]) for t in wrong)
        return check(subject, "housekeeping threads", expected, listed, "fail",
                     "%s: %s; fix: keep them on the housekeeping CPUs (taskset -pc %s <pid>; tuned's [scheduler] "
                     "isolated_cores moves them, isolcpus=domain and nohz_full keep new ones off)"
                     % (subject, listed, _cpus(housekeeping)))
    return check(subject, "housekeeping threads", expected, "%d thread(s), allowed on %s" % (
        len(threads), " or ".join(sorted(set(t["cpuset"] for t in threads)))), "pass")


def _covered(subject, name, isolated, covering, observed, fix):
    missing = sorted(set(isolated) - set(covering or []))
    expected = "covers CPUs %s" % _cpus(isolated)
    if missing:
        return check(subject, name, expected, observed, "fail", "%s: CPU(s) %s are not in %s (%s); fix: %s"
                     % (subject, _cpus(missing), name, observed, fix))
    return check(subject, name, expected, observed, "pass")


def _tick(subject, rt_node, isolated, reported):
    cpus = (rt_node or {}).get("cpus") or {}
    nohz = cpus.get("nohz_full") or []
    fix = "boot with nohz_full=%s (%s)" % (_cpus(isolated), ROLE_HOST)
    if not reported:
        tick = check(subject, "nohz_full", "covers CPUs %s" % _cpus(isolated),
                     "%s/nohz_full absent" % paths.CPU, "skip",
                     "%s: the kernel reports no nohz_full CPUs (built without NO_HZ_FULL)" % subject)
    else:
        tick = _covered(subject, "nohz_full", isolated, nohz, "nohz_full %s" % _cpus(nohz), fix)
    rcu = sorted(set(cpus.get("rcu_nocbs") or []) | set(nohz))
    rcu_check = _covered(subject, "rcu_nocbs", isolated, rcu, "rcu_nocbs %s, nohz_full %s" % (
        _cpus(cpus.get("rcu_nocbs")), _cpus(nohz)), "boot with rcu_nocbs=%s (%s)" % (_cpus(isolated), ROLE_HOST))
    return [tick, rcu_check]


def _memory(rt_node, thp_allowed, ksm_allowed):
    thp = ((rt_node or {}).get("thp") or {}).get("enabled")
    allowed = list(thp_allowed or THP_ALLOWED)
    expected = "one of %s" % ", ".join(allowed)
    if thp is None:
        out = [check(HOST, "transparent hugepages", expected, "no THP in this kernel", "skip")]
    else:
        good = thp in allowed
        out = [check(HOST, "transparent hugepages", expected, "enabled: %s" % thp, "pass" if good else "fail",
                     None if good else "host: transparent hugepages are %s; fix: echo %s > "
                     "/sys/kernel/mm/transparent_hugepage/enabled (tuned's realtime profiles set never)" % (thp, allowed[0]))]
    run = ((rt_node or {}).get("ksm") or {}).get("run")
    allowed_runs = [int(value) for value in (ksm_allowed if ksm_allowed is not None else KSM_ALLOWED)]
    expected = "run in %s" % ", ".join(str(value) for value in allowed_runs)
    if run is None:
        out.append(check(HOST, "KSM", expected, "no KSM in this kernel", "skip"))
    else:
        good = run in allowed_runs
        out.append(check(HOST, "KSM", expected, "/sys/kernel/mm/ksm/run: %d" % run, "pass" if good else "fail",
                         None if good else "host: KSM runs (run=%d); fix: echo 2 > /sys/kernel/mm/ksm/run "
                         "(tuned's realtime-virtual-host does)" % run))
    return out


def tuned_verify_check(result, tuned=None):
    """The check of ``tuned-adm verify``: its registered result (None: tuned-adm absent)."""
    expected = "tuned-adm verify succeeds"
    tuned = tuned or {}
    if not result or result.get("skipped"):
        return check(HOST, "tuned-adm verify", expected, "no tuned-adm", "skip", "host: tuned is not installed")
    text = "\n".join(part for part in ((result.get("stdout") or "").strip(), (result.get("stderr") or "").strip()) if part)
    quoted = " / ".join(line.strip() for line in text.splitlines() if line.strip()) or "(no output)"
    if not tuned.get("active"):
        return check(HOST, "tuned-adm verify", expected, "no active tuned profile", "skip",
                     "host: tuned does not manage this host (%s names no profile)" % ACTIVE_PROFILE)
    if "Cannot talk to TuneD daemon" in text or "no_daemon" in text:
        return check(HOST, "tuned-adm verify", expected, quoted, "skip",
                     "host: tuned's daemon does not answer, so the profile cannot be verified: %s" % quoted)
    if result.get("rc") == 0:
        return check(HOST, "tuned-adm verify", expected, quoted, "pass")
    return check(HOST, "tuned-adm verify", expected, quoted, "fail",
                 "host: tuned-adm verify failed for profile %s (rc %s): %s; fix: tuned-adm profile %s (details in "
                 "/var/log/tuned/tuned.log)" % (" ".join(tuned["active"]), result.get("rc"), quoted,
                                                " ".join(tuned["active"])))


def isolation_checks(isolation, rt_node, isolated=None, thp_allowed=None, ksm_allowed=None, tuned_verify=None):
    """Every isolation check, in report order."""
    isolation = isolation or {}
    cpus, source = isolated_set(rt_node, isolated)
    online = ((rt_node or {}).get("cpus") or {}).get("online") or []
    out = []
    if not cpus:
        out.append(check("isolated CPUs", "CPU isolation", "isolated CPUs to check", "none", "skip",
                         "host: no CPU is isolated (%s are empty), so interrupts, masks and kernel threads are not "
                         "checked; %s isolates them (reboot after)" % (source, ROLE_HOST)))
    else:
        housekeeping = sorted(set(online) - set(cpus))
        subject = "isolated CPUs %s" % format_cpuset(cpus)
        out.append(_interrupts(subject, isolation.get("irqs") or [], cpus, housekeeping))
        out.extend(_masks(subject, rt_node, isolation.get("masks"), cpus, housekeeping))
        threads = isolation.get("threads") or {}
        for family, why in FAMILIES:
            item = _family(subject, family, why, threads.get("per_cpu") or [], cpus, isolation.get("tuned"))
            if item is not None:
                out.append(item)
        out.append(_housekeeping_threads(subject, threads.get("housekeeping") or [], cpus, housekeeping))
        out.extend(_tick(subject, rt_node, cpus, isolation.get("nohz_full_reported")))
    out.extend(_memory(rt_node, thp_allowed, ksm_allowed))
    out.append(tuned_verify_check(tuned_verify, isolation.get("tuned")))
    return out
