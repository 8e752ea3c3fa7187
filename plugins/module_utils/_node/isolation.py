# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the kernel does on the isolated CPUs: interrupts, CPU masks, kernel threads.

Read through :class:`HostReader` (so a captured tree is read like the live
host); :func:`irq_verdicts` is the one rule, pure, that tells which
interrupts are a problem for a set of isolated CPUs.

Which interrupts are the kernel's own to place ("managed"), read only,
strongest evidence first:

1. debugfs ``/sys/kernel/debug/irq/irqs/<N>`` lists ``IRQD_AFFINITY_MANAGED``
   (kernels built with ``GENERIC_IRQ_DEBUGFS`` and debugfs mounted);
2. ``/proc/irq/<N>/smp_affinity`` is read-only: since 2024 ("genirq: procfs:
   Make smp_affinity read-only for interrupts that userspace can't set")
   the kernel creates it without write permission exactly when a write
   would fail (EIO, EPERM since), the test tuned and irqbalance make by
   writing;
3. an interrupt that is no MSI/MSI-X vector of a PCI device (not under any
   ``/sys/bus/pci/devices/*/msi_irqs/``) is never managed: the kernel gives
   managed affinity only to MSI/MSI-X vectors (``PCI_IRQ_AFFINITY``);
4. on a kernel that marks some ``smp_affinity`` read-only (rule 2 is in
   force), a writable one is not managed.

Otherwise (an MSI vector on an older kernel without debugfs) it is unknown.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import stat

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import (
    CpusetError,
    format_cpuset,
    parse_cpumask,
)
from ansible_collections.realtime.virt.plugins.module_utils._kernel import paths, pci, proc
from ansible_collections.realtime.virt.plugins.module_utils._node import parsing

IRQ_DIR = "/proc/irq"
DEBUG_IRQS = "/sys/kernel/debug/irq/irqs"
# Files the kernel creates in /proc/irq/<N>; every other entry is the
# directory of a handler (an "action"), named as the driver named it.
IRQ_FILES = frozenset(("affinity_hint", "effective_affinity", "effective_affinity_list", "node", "smp_affinity",
                       "smp_affinity_list", "spurious"))
# CPU masks that must leave the isolated CPUs out, where the kernel has them:
# (name, path, format); "mask" is hexadecimal, "list" a CPU list.
MASKS = (
    ("workqueue cpumask", paths.WORKQUEUE_CPUMASK, "mask"),
    ("writeback workqueue cpumask", "/sys/bus/workqueue/devices/writeback/cpumask", "mask"),
)
HOUSEKEEPING_DIR = "/sys/kernel/housekeeping"
# Per-CPU kernel threads that serve their CPU (name/N): tuned's real-time
# profiles give them a real-time policy.  ktimersoftd is the older PREEMPT_RT
# name of ktimers.
PER_CPU_THREADS = ("ksoftirqd", "ktimers", "ktimersoftd", "rcuc")
# Threads that do the host's own work and must stay off isolated CPUs:
# memory reclaim and compaction per NUMA node, khugepaged, unbound workers.
HOUSEKEEPING_THREADS = r"^(kswapd\d+|kcompactd\d+|khugepaged|kworker/u\d+:\d+)"
_PER_CPU = r"^(%s)/\d+$" % "|".join(PER_CPU_THREADS)


def _cpus(reader, path, fmt="list"):
    """CPU ids of a list or mask file; None when absent or not understood."""
    text = reader.read(path, optional=True)
    if text is None:
        return None
    try:
        return parse_cpumask(text) if fmt == "mask" else parsing.parse_sysfs_cpulist(text)
    except CpusetError:
        reader.warnings.append("%s holds %r, not a CPU %s; it is left out" % (path, text, fmt))
        return None


def parse_interrupts(text):
    """``/proc/interrupts`` to ``{irq: {"counts": {cpu: n}, "names": "..."}}``.

    The header names the online CPUs (``CPU0 CPU1 ...``); a line of a
    numbered interrupt holds one count per such CPU, then the chip, the
    hardware number and type, and last the handlers' names.
    """
    lines = (text or "").splitlines()
    if not lines:
        return {}
    cpus = [int(word[3:]) for word in lines[0].split() if word.startswith("CPU") and word[3:].isdigit()]
    result = {}
    for line in lines[1:]:
        head, _sep, rest = line.partition(":")
        if not head.strip().isdigit():
            continue
        words = rest.split()
        counts = {}
        for cpu, word in zip(cpus, words):
            if not word.isdigit():
                break
            counts[cpu] = int(word)
        tail = words[len(counts):]
        result[int(head)] = {"counts": counts, "names": " ".join(tail[2:])}
    return result


def msi_irqs(reader):
    """``{irq: PCI address}`` of every MSI/MSI-X vector (``msi_irqs/<N>`` of each device)."""
    result = {}
    for address in reader.listdir(pci.PCI_DEVICES, optional=True):
        for name in reader.listdir("%s/%s/msi_irqs" % (pci.PCI_DEVICES, address), optional=True):
            if name.isdigit():
                result[int(name)] = address
    return result


def read_irqs(reader):
    """Every interrupt of ``/proc/irq/<N>``, with what tells whether the kernel manages it.

    Each is ``{irq, devices, pci, affinity, effective, counts, writable,
    debug_managed, kernel_managed, managed_by}``: ``effective`` is
    ``effective_affinity_list`` (None on kernels without it), ``writable``
    whether ``smp_affinity`` has its owner's write bit, ``kernel_managed``
    True, False or None (unknown) by the rules of this module's docstring,
    ``managed_by`` the rule that decided.
    """
    interrupts = parse_interrupts(reader.read("/proc/interrupts", optional=True))
    msi = msi_irqs(reader)
    irqs = []
    for name in reader.listdir(IRQ_DIR, optional=True):
        if not name.isdigit():
            continue
        number = int(name)
        base = "%s/%s" % (IRQ_DIR, name)
        mode = reader.mode(base + "/smp_affinity")
        debug = reader.read("%s/%s" % (DEBUG_IRQS, name), optional=True)
        devices = [entry for entry in reader.listdir(base, optional=True) if entry not in IRQ_FILES]
        listed = interrupts.get(number) or {}
        if not devices and listed.get("names"):
            devices = [listed["names"]]
        irqs.append({
            "irq": number,
            "devices": devices,
            "pci": msi.get(number),
            "affinity": _cpus(reader, base + "/smp_affinity_list"),
            "effective": _cpus(reader, base + "/effective_affinity_list"),
            "counts": listed.get("counts") or {},
            "writable": None if mode is None else bool(mode & stat.S_IWUSR),
            "debug_managed": None if debug is None else "IRQD_AFFINITY_MANAGED" in debug,
        })
    marks_read_only = any(irq["writable"] is False for irq in irqs)
    for irq in irqs:
        irq["kernel_managed"], irq["managed_by"] = _managed(irq, marks_read_only)
    return sorted(irqs, key=lambda irq: irq["irq"])


def _managed(irq, marks_read_only):
    if irq["debug_managed"] is not None:
        return irq["debug_managed"], "debugfs"
    if irq["writable"] is False:
        return True, "read-only smp_affinity"
    if irq["pci"] is None:
        return False, "not an MSI vector"
    if marks_read_only and irq["writable"]:
        return False, "writable smp_affinity"
    return None, None


def irq_verdicts(irqs, isolated):
    """The interrupts delivered to ``isolated`` CPUs, sorted into three lists.

    An interrupt is delivered where its effective affinity says (its
    ``smp_affinity_list`` on kernels without ``effective_affinity_list``;
    an empty effective affinity means it is not started and goes nowhere).
    ``managed``: the kernel places it (isolcpus=managed_irq keeps such an
    interrupt on an isolated CPU only when its whole queue mask is
    isolated, and then it fires for I/O submitted there); ``possible``:
    unknown whether managed, and its mask lies wholly in the isolated CPUs
    as a managed queue's would; ``offending``: the rest, which userspace
    placed or could move.  Each entry adds ``on`` (the isolated CPUs hit).
    """
    isolated = set(isolated or [])
    result = {"offending": [], "possible": [], "managed": []}
    for irq in irqs or []:
        where = irq["effective"] if irq.get("effective") is not None else irq.get("affinity")
        hit = sorted(set(where or []) & isolated)
        if not hit:
            continue
        entry = dict(irq, on=hit)
        if irq.get("kernel_managed") is True:
            result["managed"].append(entry)
        elif irq.get("kernel_managed") is None and set(irq.get("affinity") or []) <= isolated:
            result["possible"].append(entry)
        else:
            result["offending"].append(entry)
    return result


def describe_irq(irq):
    """``IRQ 36 (virtio1-req.0, PCI 0000:00:02.0)``."""
    names = ", ".join(irq.get("devices") or []) or "no handler name"
    if irq.get("pci"):
        names += ", PCI %s" % irq["pci"]
    return "IRQ %d (%s)" % (irq["irq"], names)


def read_masks(reader, cmdline_args, possible):
    """CPU masks that should leave the isolated CPUs out, where the host has them.

    ``[{name, path, cpus}]``: the workqueue masks, every file of
    ``/sys/kernel/housekeeping/`` and the ``kthread_cpus=`` boot argument.
    """
    masks = []
    for name, path, fmt in MASKS:
        cpus = _cpus(reader, path, fmt)
        if cpus is not None:
            masks.append({"name": name, "path": path, "cpus": cpus})
    for entry in reader.listdir(HOUSEKEEPING_DIR, optional=True):
        path = "%s/%s" % (HOUSEKEEPING_DIR, entry)
        text = reader.read(path, optional=True)
        try:
            cpus = parsing.parse_sysfs_cpulist(text) if text is not None else None
        except CpusetError:
            cpus = None
        if cpus is not None:
            masks.append({"name": "housekeeping %s" % entry, "path": path, "cpus": cpus})
    value = parsing.cmdline_value(cmdline_args or {}, "kthread_cpus")
    if value not in (None, True):
        try:
            masks.append({"name": "kthread_cpus", "path": paths.CMDLINE,
                          "cpus": parsing.parse_cmdline_cpulist(value, possible)})
        except CpusetError:
            reader.warnings.append("the kernel argument kthread_cpus=%s is not a CPU list; it is left out" % value)
    return masks


def read_isolated(reader):
    """``{isolated, nohz_full}``: the CPU ids the kernel isolates, as it reports them.

    ``isolated`` is ``/sys/devices/system/cpu/isolated`` (the CPUs
    ``isolcpus=`` takes out of the scheduler's domains), ``nohz_full`` is
    ``/sys/devices/system/cpu/nohz_full`` (tickless CPUs); each is None
    when the kernel has no such file (``nohz_full`` on a kernel built
    without ``NO_HZ_FULL``) or it is not a CPU list.
    """
    return {"isolated": _cpus(reader, paths.CPU + "/isolated"), "nohz_full": _cpus(reader, paths.CPU + "/nohz_full")}


def read_threads(reader):
    """``{per_cpu, housekeeping}``: the kernel threads the isolation checks look at.

    ``per_cpu`` are the threads of :data:`PER_CPU_THREADS` (``name/N``, one
    per CPU, with ``family`` and ``cpu``), ``housekeeping`` those matching
    :data:`HOUSEKEEPING_THREADS`.
    """
    per_cpu = []
    for thread in proc.kernel_threads(reader, _PER_CPU):
        family, _sep, cpu = thread["comm"].partition("/")
        per_cpu.append(dict(thread, family=family, cpu=int(cpu)))
    return {"per_cpu": per_cpu, "housekeeping": proc.kernel_threads(reader, HOUSEKEEPING_THREADS)}


def irq_summary(irqs, isolated):
    """The ``irqs`` facts of rt_node: counts and the interrupts on isolated CPUs."""
    verdicts = irq_verdicts(irqs, isolated)
    on_isolated = []
    for kind in ("offending", "possible", "managed"):
        for irq in verdicts[kind]:
            on_isolated.append({"irq": irq["irq"], "devices": irq["devices"], "pci": irq["pci"],
                                "effective_cpuset": format_cpuset(irq["on"]),
                                "kernel_managed": irq["kernel_managed"]})
    return {
        "count": len(irqs),
        "kernel_managed": len([irq for irq in irqs if irq["kernel_managed"]]),
        "on_isolated": sorted(on_isolated, key=lambda item: item["irq"]),
    }
