# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The real-time readiness checklist, computed from gathered facts.

Pure: :func:`evaluate` takes the ``rt_node`` dictionary (without the
``realtime_*`` keys) and returns those keys.  Check ids are stable
snake_case names that playbooks may rely on.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import format_cpuset

KUBEVIRT_REALTIME_LABEL = "kubevirt.io/realtime"
TUNED_KERNEL_ARGS = (("skew_tick", "1"), ("nosoftlockup", True), ("tsc", "reliable"))
UNKNOWN = "unknown (the file that tells could not be read)"

ROLE_HOST = "the realtime.virt.rt_host role"
ROLE_HUGEPAGES = "the realtime.virt.hugepages role"
ROLE_PTP = "the realtime.virt.ptp role"
TIME_DAEMONS = "ptp4l, phc2sys, chronyd, ntpd, systemd-timesyncd"


def _cpus(value):
    return "none" if not value else format_cpuset(value)


def _check(check_id, title, blocker, ready, observed, problem, fix):
    return {
        "id": check_id,
        "title": title,
        "blocker": blocker,
        "ready": bool(ready),
        "observed": observed,
        "problem": problem,
        "fix": fix,
    }


def _sched_rt(facts):
    value = facts.get("sched_rt_runtime_us")
    observed = UNKNOWN if value is None else "kernel.sched_rt_runtime_us = %d" % value
    return _check(
        "sched_rt_runtime", "Real-time throttling disabled (kernel.sched_rt_runtime_us = -1)", True,
        value == -1, observed,
        "Real-time throttling is on (%s): the kernel stops real-time threads such as vCPUs for part of every "
        "period, and KubeVirt will not label this node real-time." % observed,
        "set kernel.sched_rt_runtime_us=-1 now with 'sysctl -w kernel.sched_rt_runtime_us=-1' and in a file under "
        "/etc/sysctl.d/ for the next boot (%s does both)." % ROLE_HOST,
    )


def _isolated(cpus):
    isolated = cpus.get("isolated")
    observed = UNKNOWN if isolated is None else "isolated CPUs: %s" % _cpus(isolated)
    return _check(
        "isolated_cpus", "CPUs isolated from the scheduler for real-time vCPUs", True,
        bool(isolated), observed,
        "No CPU is isolated (%s), so host tasks and interrupts share every CPU with the real-time vCPUs." % observed,
        "choose CPUs for the real-time vCPUs, boot with isolcpus=managed_irq,domain,<cpus> nohz_full=<cpus> "
        "rcu_nocbs=<cpus> and reboot (%s writes these kernel arguments)." % ROLE_HOST,
    )


def _housekeeping(cpus):
    housekeeping = cpus.get("housekeeping")
    observed = UNKNOWN if housekeeping is None else "housekeeping CPUs: %s" % _cpus(housekeeping)
    return _check(
        "housekeeping_cpus", "At least one CPU left for the host (housekeeping)", True,
        bool(housekeeping), observed,
        "No online CPU is left for the host's own work (%s)." % observed,
        "leave at least one online CPU out of isolcpus and nohz_full and reboot (%s takes them from "
        "its isolated CPU list)." % ROLE_HOST,
    )


def _covers(check_id, title, isolated, covering, name, observed_extra=""):
    if isolated is None or covering is None:
        observed = UNKNOWN
        ready = False
        missing = None
    else:
        missing = sorted(set(isolated) - set(covering))
        ready = bool(isolated) and not missing
        observed = "isolated %s, %s %s%s" % (_cpus(isolated), name, _cpus(covering), observed_extra)
    if isolated is not None and not isolated:
        problem = "There are no isolated CPUs for %s to cover." % name
    elif missing:
        problem = "Isolated CPUs %s are not in %s (%s)." % (format_cpuset(missing), name, observed)
    else:
        problem = "Whether the isolated CPUs are in %s is %s." % (name, observed)
    fix = "boot with %s=<isolated CPUs>%s and reboot (%s)." % (
        name, "" if not isolated else " (here %s=%s)" % (name, format_cpuset(isolated)), ROLE_HOST)
    return _check(check_id, title, False, ready, observed, problem, fix)


def _irq_affinity(cpus):
    isolated = cpus.get("isolated")
    default = cpus.get("irq_default_affinity")
    if isolated is None or default is None:
        ready, observed = False, UNKNOWN
    else:
        overlap = sorted(set(isolated) & set(default))
        ready = bool(isolated) and not overlap
        observed = "default IRQ affinity %s, isolated %s" % (_cpus(default), _cpus(isolated))
    housekeeping = cpus.get("housekeeping")
    return _check(
        "irq_affinity", "New interrupts avoid isolated CPUs (irqaffinity)", False, ready, observed,
        "New interrupts may land on isolated CPUs (%s)." % observed,
        "boot with irqaffinity=<housekeeping CPUs>%s and keep irqbalance off the isolated CPUs (%s)." % (
            "" if not housekeeping else " (here irqaffinity=%s)" % format_cpuset(housekeeping), ROLE_HOST),
    )


def _isolated_cpus(cpus):
    """The CPUs the kernel keeps for real-time work: isolated and nohz_full."""
    return sorted(set(cpus.get("isolated") or []) | set(cpus.get("nohz_full") or []))


def _kept_off(check_id, title, what, isolated, ready, observed, fix):
    """A check that ``what`` stays off the isolated CPUs (not ready without isolated CPUs)."""
    if isolated:
        problem = "%s may reach isolated CPUs (%s)." % (what, observed)
    else:
        problem = "There are no isolated CPUs to keep %s off (%s)." % (what.lower(), observed)
    return _check(check_id, title, False, bool(isolated) and ready, observed, problem, fix)


def _irqs_on_isolated(cpus, irqs):
    isolated = _isolated_cpus(cpus)
    on_isolated = irqs.get("on_isolated") or []
    managed = {False: "", None: " (possibly kernel-managed)", True: " (kernel-managed)"}
    listed = ["IRQ %d (%s) on %s%s" % (irq["irq"], ", ".join(irq.get("devices") or []) or "no name",
                                       irq["effective_cpuset"], managed[irq["kernel_managed"]]) for irq in on_isolated]
    known = bool(irqs.get("count"))
    observed = UNKNOWN if not known else "%d IRQs, isolated CPUs %s; on them: %s" % (
        irqs["count"], _cpus(isolated), "; ".join(listed) or "none")
    offending = [irq for irq in on_isolated if irq["kernel_managed"] is False]
    return _kept_off(
        "irqs_avoid_isolated", "No interrupt but kernel-managed ones on isolated CPUs",
        "Interrupts that userspace placed or can move", isolated, known and not offending, observed,
        "move them to housekeeping CPUs (/proc/irq/<N>/smp_affinity_list), keep irqbalance off the isolated CPUs "
        "and boot with irqaffinity=<housekeeping CPUs> (%s); realtime.virt.rt_validate names each." % ROLE_HOST)


def _workqueue(cpus):
    isolated = _isolated_cpus(cpus)
    mask = cpus.get("workqueue_cpus")
    observed = UNKNOWN if mask is None else "workqueue cpumask %s, isolated %s" % (_cpus(mask), _cpus(isolated))
    return _kept_off(
        "workqueue_avoids_isolated", "Unbound workqueues kept off isolated CPUs", "Unbound kernel work", isolated,
        mask is not None and not set(isolated) & set(mask), observed,
        "write the housekeeping CPUs' mask to /sys/devices/virtual/workqueue/cpumask (tuned's realtime profiles "
        "do) or boot with isolcpus=domain,<cpus> / nohz_full=<cpus> (%s)." % ROLE_HOST)


def _hugepages_allocated(hugepages):
    sizes = hugepages.get("sizes") or {}
    totals = ["%s: %s" % (name, entry.get("total")) for name, entry in sorted(sizes.items(), key=lambda item: item[1]["size_kb"])]
    ready = any((entry.get("total") or 0) > 0 for entry in sizes.values())
    observed = "hugepages %s" % (", ".join(totals) if totals else "none (no hugepage sizes found)")
    return _check(
        "hugepages_allocated", "Hugepages allocated for guest memory", True, ready, observed,
        "No hugepages are allocated (%s), so guest memory would come from ordinary pages that can be "
        "faulted, compacted and swapped." % observed,
        "allocate 2M or 1G pages on the NUMA nodes of the real-time guests, for example "
        "'sysctl -w vm.nr_hugepages=<count>' or the node's hugepages-2048kB/nr_hugepages file (%s "
        "allocates them per node, verifies the count and reserves 1G pages at boot)." % ROLE_HUGEPAGES,
    )


def _hugetlbfs(hugepages):
    mounts = hugepages.get("mounts")
    if mounts is None:
        observed = UNKNOWN
    elif mounts:
        observed = "hugetlbfs at " + ", ".join("%s (%s kB pages)" % (m["path"], m["pagesize_kb"]) for m in mounts)
    else:
        observed = "no hugetlbfs mount"
    return _check(
        "hugetlbfs_mounted", "hugetlbfs mounted (libvirt backs guests with it)", False, bool(mounts), observed,
        "hugetlbfs is not mounted (%s); libvirt cannot start hugepage-backed guests." % observed,
        "mount it before libvirtd starts: 'mount -t hugetlbfs hugetlbfs /dev/hugepages' and an fstab "
        "entry (%s)." % ROLE_HUGEPAGES,
    )


def _kvm_device(kvm):
    present = kvm.get("device_present")
    modules = [name for name, loaded in sorted((kvm.get("modules") or {}).items()) if loaded]
    observed = "/dev/kvm %s; modules loaded: %s" % ("present" if present else "missing", ", ".join(modules) or "none")
    return _check(
        "kvm_device", "KVM available (/dev/kvm)", True, present, observed,
        "KVM is not available (%s), so guests would run emulated, far too slow for real time." % observed,
        "enable VT-x or AMD-V in the firmware and load kvm with kvm_intel or kvm_amd "
        "('modprobe kvm_intel' or 'modprobe kvm_amd').",
    )


def _virtualization(cpus):
    flag = cpus.get("virtualization")
    observed = UNKNOWN if flag is None else "CPU virtualization flag: %s" % flag
    return _check(
        "virtualization_flag", "CPU hardware virtualization (vmx or svm)", True, flag in ("vmx", "svm"), observed,
        "The CPU does not offer hardware virtualization (%s)." % observed,
        "turn on VT-x (vmx) or AMD-V (svm) in the firmware setup; if this host is itself a virtual machine, "
        "give it a CPU model with nested virtualization.",
    )


def _iommu(iommu):
    observed = "%d IOMMU groups, units: %s" % (iommu.get("group_count") or 0, ", ".join(iommu.get("units") or []) or "none")
    return _check(
        "iommu_enabled", "IOMMU enabled (needed for device passthrough such as QAT VFs)", False,
        iommu.get("enabled"), observed,
        "The IOMMU is off (%s), so no PCI device or VF can be passed to a guest." % observed,
        "enable VT-d or AMD-Vi in the firmware, boot with intel_iommu=on iommu=pt (Intel) or iommu=pt (AMD) "
        "and reboot (the realtime.virt.qat role adds these kernel arguments).",
    )


def _preempt_rt(kernel):
    model = kernel.get("preempt_model")
    observed = UNKNOWN if model is None else "preemption model: %s" % model
    return _check(
        "preempt_rt", "PREEMPT_RT kernel", False, kernel.get("preempt_rt"), observed,
        "The kernel is not a PREEMPT_RT kernel (%s), so worst-case latency is higher." % observed,
        "install and boot a PREEMPT_RT kernel (Debian: linux-image-rt-amd64; %s installs it when "
        "asked) and reboot." % ROLE_HOST,
    )


def _thp(thp):
    enabled = thp.get("enabled")
    observed = UNKNOWN if enabled is None else "transparent hugepages: %s" % enabled
    return _check(
        "thp_not_always", "Transparent hugepages not set to 'always'", False,
        enabled is not None and enabled != "always", observed,
        "Transparent hugepages are %s; khugepaged and compaction can stall real-time threads." % (enabled or "unknown"),
        "write 'madvise' or 'never' to /sys/kernel/mm/transparent_hugepage/enabled or boot with "
        "transparent_hugepage=never.",
    )


def _flag_check(check_id, title, cpus, names, why):
    flags = cpus.get("flags")
    if flags is None:
        ready, observed = False, UNKNOWN
    else:
        missing = [name for name in names if not flags.get(name)]
        ready = not missing
        observed = "CPU flags: " + ", ".join("%s %s" % (name, "yes" if flags.get(name) else "no") for name in names)
    return _check(
        check_id, title, False, ready, observed,
        "The CPU lacks %s (%s): %s" % (" and ".join(names), observed, why),
        "no software fix: use a CPU (or, in a virtual machine, a CPU model) that offers %s." % " and ".join(names),
    )


def _ksm(ksm):
    running = ksm.get("running")
    observed = "KSM not built in" if ksm.get("run") is None else "KSM run = %s" % ksm.get("run")
    return _check(
        "ksm_off", "Kernel same-page merging (KSM) stopped", False, not running, observed,
        "KSM is merging pages (%s); its scanning and copy-on-write faults add latency." % observed,
        "write 0 to /sys/kernel/mm/ksm/run and disable ksm/ksmtuned services.",
    )


def _tuned_args(kernel):
    args = kernel.get("cmdline_args") or {}
    missing = []
    for name, value in TUNED_KERNEL_ARGS:
        given = args.get(name)
        if isinstance(given, list):
            given = given[-1]
        if given != value:
            missing.append(name if value is True else "%s=%s" % (name, value))
    wanted = " ".join(name if value is True else "%s=%s" % (name, value) for name, value in TUNED_KERNEL_ARGS)
    observed = "missing: %s" % " ".join(missing) if missing else "present: %s" % wanted
    return _check(
        "timer_kernel_args", "Timer and watchdog kernel arguments (%s)" % wanted, False,
        kernel.get("cmdline") is not None and not missing, observed if kernel.get("cmdline") is not None else UNKNOWN,
        "Kernel arguments that keep ticks and watchdogs off the isolated CPUs are missing (%s)." % observed,
        "boot with %s and reboot (%s adds them, as tuned's realtime-virtual-host profile does)." % (wanted, ROLE_HOST),
    )


def _cache_allocation(rdt):
    """Whether domains can be given L3/L2 cache ways (libvirt's <cachetune>), and how to get there."""
    flags = rdt.get("cpu_flags") or {}
    offered = [name for name in ("cat_l3", "cat_l2") if flags.get(name)]
    resources = sorted(name for name in (rdt.get("resources") or {}) if name.startswith("L"))
    if not offered:
        observed, fix = "CPU flags: no cat_l3, no cat_l2", "no software fix: the CPU has no cache allocation."
    elif not rdt.get("mounted"):
        observed = "CPU offers %s; resctrl not mounted" % ", ".join(offered)
        fix = ("mount it (mount -t resctrl resctrl /sys/fs/resctrl, or an fstab line); if /sys/fs/resctrl/info "
               "stays empty the kernel turned RDT off: boot with rdt=%s." % ",".join(offered))
    else:
        observed = "resctrl on %s: %s" % (rdt.get("path"), ", ".join(resources) or "no cache resource")
        fix = "boot with rdt=%s so the kernel enables cache allocation." % ",".join(offered)
    return _check(
        "cache_allocation", "Cache allocation for domains (Intel RDT, resctrl)", False,
        bool(offered) and bool(rdt.get("mounted")) and bool(resources), observed,
        "Domains cannot be given cache ways of their own (cachetune): %s; other tenants of the shared cache "
        "can evict a real-time guest's working set." % observed, fix,
    )


def _time_sync(time_sync):
    """PTP running with a hardware clock (a warning: guests keep time without it, less precisely)."""
    clocks = ["%s (%s)" % (nic["name"], nic["phc_device"]) for nic in time_sync.get("interfaces") or []
              if nic.get("phc_index") is not None]
    running = time_sync.get("synchronised_by")
    source = (time_sync.get("clocksource") or {}).get("current")
    observed = "PTP hardware clocks: %s; clock synchronised by: %s; clocksource: %s" % (
        ", ".join(clocks) or "none",
        "unknown (no process under /proc)" if running is None else ", ".join(running) or "nothing",
        source or "unknown")
    problems, fixes = [], []
    if not clocks:
        problems.append("no interface has a PTP hardware clock (ethtool -T shows 'PTP Hardware Clock: none')")
        fixes.append("a NIC with hardware timestamping for sub-microsecond PTP, or allow software timestamping in "
                     "realtime.virt.ptp")
    if running is None:
        problems.append("which time daemons run is unknown (the tree lists no process under /proc)")
        fixes.append("gather the facts on the live host; run %s" % ROLE_PTP)
    elif not running:
        problems.append("nothing synchronises the clock (no %s running)" % TIME_DAEMONS)
        fixes.append("run %s" % ROLE_PTP)
    elif not time_sync.get("ptp_running"):
        problems.append("PTP does not run (ptp4l is not running; the clock is kept by %s)" % ", ".join(running))
        fixes.append("run %s" % ROLE_PTP)
    return _check(
        "time_sync", "Time synchronisation (PTP with a hardware clock)", False,
        bool(time_sync.get("ptp_running")) and bool(clocks), observed,
        "Time is not kept by PTP on a hardware clock: %s." % "; ".join(problems) if problems
        else "PTP runs with a hardware clock (%s)." % observed,
        "; ".join(fixes) + "." if fixes else "nothing to do (%s keeps PTP running)." % ROLE_PTP,
    )


def checks(facts):
    """The ordered readiness checklist for ``facts``."""
    cpus = facts.get("cpus") or {}
    kernel = facts.get("kernel") or {}
    isolated = cpus.get("isolated")
    nohz_full = cpus.get("nohz_full")
    rcu = cpus.get("rcu_nocbs")
    # nohz_full CPUs are offloaded from RCU callbacks too (the kernel adds them to the rcu_nocbs mask).
    effective_rcu = None if nohz_full is None else sorted(set(rcu or []) | set(nohz_full))
    return [
        _sched_rt(facts),
        _isolated(cpus),
        _housekeeping(cpus),
        _covers("nohz_full_covers_isolated", "Isolated CPUs run tickless (nohz_full)", isolated, nohz_full, "nohz_full"),
        _covers("rcu_nocbs_covers_isolated", "Isolated CPUs offloaded from RCU callbacks (rcu_nocbs)", isolated,
                effective_rcu, "rcu_nocbs", " (nohz_full CPUs included)"),
        _irq_affinity(cpus),
        _irqs_on_isolated(cpus, facts.get("irqs") or {}),
        _workqueue(cpus),
        _hugepages_allocated(facts.get("hugepages") or {}),
        _hugetlbfs(facts.get("hugepages") or {}),
        _kvm_device(facts.get("kvm") or {}),
        _virtualization(cpus),
        _iommu(facts.get("iommu") or {}),
        _preempt_rt(kernel),
        _thp(facts.get("thp") or {}),
        _flag_check("tsc_deadline", "TSC-deadline timer (tsc_deadline_timer)", cpus, ["tsc_deadline"],
                    "the local timer needs more costly reprogramming."),
        _flag_check("constant_tsc", "Invariant TSC (constant_tsc, nonstop_tsc)", cpus, ["constant_tsc", "nonstop_tsc"],
                    "the clock source may fall back from the TSC to a slower one."),
        _ksm(facts.get("ksm") or {}),
        _tuned_args(kernel),
        _cache_allocation(facts.get("resctrl") or {}),
        _time_sync(facts.get("time_sync") or {}),
    ]


def kubevirt_labels(sched_rt_runtime_us):
    """KubeVirt's node labeller rule: real-time only when throttling is off (-1)."""
    if sched_rt_runtime_us == -1:
        return {KUBEVIRT_REALTIME_LABEL: "true"}
    return {}


def evaluate(facts):
    """``realtime_ready``, ``realtime_checks``, ``realtime_blockers``, ``kubevirt_labels``."""
    items = checks(facts)
    failed = [item for item in items if item["blocker"] and not item["ready"]]
    return {
        "realtime_ready": not failed,
        "realtime_checks": items,
        "realtime_blockers": ["%s Fix: %s" % (item["problem"], item["fix"]) for item in failed],
        "kubevirt_labels": kubevirt_labels(facts.get("sched_rt_runtime_us")),
    }
