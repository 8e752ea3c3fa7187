# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The checks of rt_validate: one verdict per thing looked at (pure).

A check is a mapping ``{subject, check, expected, observed, status,
message}``; ``status`` is ``pass``, ``fail``, ``warn`` (measured but only
advisory, for example latency under TCG) or ``skip`` (with the reason in
``observed``).  Failed checks carry a ``message`` that names the subject
and the fix.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import format_cpuset

STATUSES = ("pass", "fail", "warn", "skip")
POLICY_NAMES = {"fifo": "SCHED_FIFO", "rr": "SCHED_RR"}


def check(subject, name, expected, observed, status, message=None):
    if status not in STATUSES:
        raise ValueError("unknown check status %r" % status)
    return {"subject": subject, "check": name, "expected": str(expected), "observed": str(observed),
            "status": status, "message": message or ""}


def _cpus_text(cpus):
    return format_cpuset(cpus) if cpus else "none"


def domain_checks(domains, names=None, require_hugepages=True, require_pinning=True):
    """Checks of every real-time domain in ``domains`` (libvirt_rt_domain_info).

    A domain is checked when its XML has ``<vcpusched>`` or it is named in
    ``names``; with ``names`` given, only those.  Without ``names``, a
    real-time domain that is only defined (not running) is reported as
    skipped: nothing runs whose scheduling could be checked.  A named one
    that is not running fails.
    """
    names = list(names or [])
    by_name = dict((dom.get("name"), dom) for dom in domains or [])
    checks = []
    for name in names:
        if name not in by_name:
            checks.append(check("domain %s" % name, "defined", "defined in libvirt", "not defined", "fail",
                                "domain %s is not defined in libvirt; run the realtime.virt.rt_domain role" % name))
    for dom in sorted(domains or [], key=lambda d: d.get("name") or ""):
        if names and dom.get("name") not in names:
            continue
        if not names and not dom.get("realtime"):
            continue
        if not names and not dom.get("running"):
            checks.append(check("domain %s" % dom.get("name"), "running", "running", "shut off (defined only)", "skip",
                                "domain %s is defined but not running; its tuning is checked once it runs"
                                % dom.get("name")))
            continue
        checks.extend(_one_domain(dom, require_hugepages, require_pinning))
    return checks


def _one_domain(dom, require_hugepages, require_pinning):
    name = dom.get("name")
    subject = "domain %s" % name
    out = []
    realtime = dom.get("realtime")
    if not realtime:
        out.append(check(subject, "real-time vCPUs", "<vcpusched> in the definition", "none", "fail",
                         "domain %s has no real-time vCPU (<vcpusched>); give it realtime: {} in rt_domain_domains"
                         % name))
        return out
    if not dom.get("running"):
        out.append(check(subject, "running", "running", "shut off", "fail",
                         "domain %s is not running, so its tuning cannot be checked; start it (state: running)" % name))
        return out
    rt_vcpus = list(realtime.get("vcpus") or [])
    policy = POLICY_NAMES.get(realtime.get("scheduler") or "fifo", str(realtime.get("scheduler")).upper())
    priority = realtime.get("priority") or 1
    pins = dict((pin["vcpu"], pin.get("cpus") or []) for pin in dom.get("pinning") or [])
    threads = dict((thread["vcpu"], thread) for thread in dom.get("vcpu_threads") or [])

    if require_pinning:
        unpinned = [v for v in rt_vcpus if len(pins.get(v, [])) != 1]
        observed = ", ".join("vCPU %d on %s" % (v, _cpus_text(pins.get(v))) for v in rt_vcpus)
        out.append(check(subject, "real-time vCPUs pinned", "one host CPU each (vCPUs %s)" % _cpus_text(rt_vcpus),
                         observed or "no real-time vCPU",
                         "fail" if unpinned else "pass",
                         "domain %s: real-time vCPU(s) %s not pinned to one dedicated host CPU; pin them "
                         "(cpus: auto in rt_domain_domains)" % (name, _cpus_text(unpinned)) if unpinned else None))

    for vcpu in range(int(dom.get("vcpus") or 0)):
        thread = threads.get(vcpu)
        label = "vCPU %d thread scheduling" % vcpu
        if thread is None:
            out.append(check(subject, label, "a thread in /proc", "no thread found", "fail",
                             "domain %s: no thread of vCPU %d found under /proc/%s/task" % (name, vcpu, dom.get("pid"))))
            continue
        seen = "%s priority %s (tid %s, CPUs %s)" % (thread["policy"], thread["priority"], thread["tid"],
                                                     thread.get("affinity") or "?")
        if vcpu in rt_vcpus:
            good = thread["policy"] == policy and thread["priority"] == priority
            out.append(check(subject, label, "%s priority %d" % (policy, priority), seen, "pass" if good else "fail",
                             None if good else "domain %s: vCPU %d thread %s runs %s priority %s, not %s priority %d; "
                             "check kernel.sched_rt_runtime_us=-1 (realtime.virt.rt_host) and restart the domain"
                             % (name, vcpu, thread["tid"], thread["policy"], thread["priority"], policy, priority)))
        else:
            good = thread["policy"] not in ("SCHED_FIFO", "SCHED_RR")
            out.append(check(subject, label, "not real-time (outside the mask)", seen, "pass" if good else "fail",
                             None if good else "domain %s: vCPU %d is outside the real-time mask but runs %s"
                             % (name, vcpu, thread["policy"])))
        pinned = pins.get(vcpu)
        if pinned and thread.get("affinity"):
            good = thread["affinity"] == format_cpuset(pinned)
            out.append(check(subject, "vCPU %d thread affinity" % vcpu, format_cpuset(pinned), thread["affinity"],
                             "pass" if good else "fail",
                             None if good else "domain %s: vCPU %d thread may run on CPUs %s, pinned to %s"
                             % (name, vcpu, thread["affinity"], format_cpuset(pinned))))

    out.append(_emulator_check(dom))
    out.extend(_iothread_checks(dom))

    if require_hugepages:
        pages = dom.get("hugepages")
        used = dom.get("hugetlb_kib")
        if not pages:
            out.append(check(subject, "memory on hugepages", "hugepage backing", "no <hugepages> in memoryBacking",
                             "fail", "domain %s: guest memory is not backed by hugepages; set memory.hugepages "
                             "(page_size 2M or 1G) and allocate pages with realtime.virt.hugepages" % name))
        else:
            good = bool(used)
            out.append(check(subject, "memory on hugepages",
                             "%s KiB pages in use by qemu" % pages.get("page_size_kib"),
                             "%s KiB hugetlb mapped (smaps_rollup)" % (used if used is not None else "?"),
                             "pass" if good else "fail",
                             None if good else "domain %s: the qemu process maps no hugetlb memory" % name))

    for entry in dom.get("hostdev_drivers") or []:
        good = entry.get("driver") == "vfio-pci"
        out.append(check(subject, "VF %s driver" % entry.get("address"), "vfio-pci", entry.get("driver") or "none",
                         "pass" if good else "fail",
                         None if good else "domain %s: PCI device %s is bound to %s, not vfio-pci; bind it "
                         "(realtime.virt.qat role)" % (name, entry.get("address"), entry.get("driver") or "no driver")))
    return out


def _off(cpus, pinned):
    """Whether a thread's CPUs (None when unread) reach outside ``pinned``."""
    return cpus is None or not set(cpus) <= set(pinned)


def _emulator_check(dom):
    """Every thread of the qemu process that is neither a vCPU nor an IO thread stays on <emulatorpin>."""
    name, subject = dom.get("name"), "domain %s" % dom.get("name")
    pinned = dom.get("emulator_cpus") or []
    label = "emulator threads pinned"
    if not pinned:
        return check(subject, label, "<emulatorpin>", "skipped: no <emulatorpin> in the definition", "skip",
                     "domain %s has no <emulatorpin>, so its emulator threads may run on any CPU; set "
                     "cpu.emulator_cpuset to keep them off the real-time CPUs" % name)
    expected = "CPUs %s (<emulatorpin>)" % format_cpuset(pinned)
    threads = dom.get("emulator_threads") or []
    if not threads:
        return check(subject, label, expected, "no thread found", "fail",
                     "domain %s: no emulator thread found under /proc/%s/task; run rt_validate on the domain's "
                     "host with the local URI (qemu:///system)" % (name, dom.get("pid")))
    off = [thread for thread in threads if _off(thread.get("cpus"), pinned)]
    if not off:
        return check(subject, label, expected, "%d threads on CPUs %s" % (len(threads), ", ".join(
            sorted(set(thread.get("affinity") or "?" for thread in threads)))), "pass")
    seen = ", ".join("%s (tid %s) on CPUs %s" % (thread.get("comm"), thread.get("tid"), thread.get("affinity") or "?")
                     for thread in off)
    return check(subject, label, expected, seen, "fail",
                 "domain %s: emulator thread(s) %s may run outside the pinned CPUs %s (<emulatorpin>); restart "
                 "the domain so libvirt pins them again, and find what moved them (taskset, a tuned [scheduler] rule)"
                 % (name, seen, format_cpuset(pinned)))


def _iothread_checks(dom):
    """The thread of each <iothreadpin>'s IO thread stays on its CPUs."""
    name, subject = dom.get("name"), "domain %s" % dom.get("name")
    out = []
    for pin in dom.get("iothread_pins") or []:
        number, pinned = pin.get("iothread"), pin.get("cpus") or []
        label = "IO thread %s pinned" % number
        expected = "CPUs %s (<iothreadpin iothread='%s'>)" % (_cpus_text(pinned), number)
        threads = [thread for thread in dom.get("iothread_threads") or [] if thread.get("iothread") == number]
        if not threads:
            out.append(check(subject, label, expected, "no thread found", "fail",
                             "domain %s: no thread 'IO iothread%s' found under /proc/%s/task; give the domain "
                             "<iothreads> covering IO thread %s (or remove its <iothreadpin>) and restart it"
                             % (name, number, dom.get("pid"), number)))
            continue
        off = [thread for thread in threads if _off(thread.get("cpus"), pinned)]
        seen = ", ".join("tid %s on CPUs %s" % (thread.get("tid"), thread.get("affinity") or "?")
                         for thread in off or threads)
        out.append(check(subject, label, expected, seen, "fail" if off else "pass",
                         "domain %s: IO thread %s (%s) may run outside its pinned CPUs %s; restart the domain so "
                         "libvirt pins it again, and find what moved it (taskset, a tuned [scheduler] rule)"
                         % (name, number, seen, _cpus_text(pinned)) if off else None))
    return out
