# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Processes and threads as /proc shows them (read only).

A QEMU process names its vCPU threads ``CPU <n>/KVM`` (``/TCG`` under
emulation) and the thread of libvirt's IO thread ``<n>`` ``IO iothread<n>``;
every other thread (the main thread, ``call_rcu``, ``IO mon_iothread``,
``worker``) is an emulator thread.  ``/proc/<pid>/task/<tid>/stat`` gives each thread's
scheduling policy and real-time priority, ``status`` its allowed CPUs,
and ``/proc/<pid>/smaps_rollup`` how much hugetlb memory the process maps.
Everything goes through :class:`HostReader`.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError, parse_kernel_cpulist

# sched_setscheduler(2) policy numbers -> names
POLICIES = {0: "SCHED_OTHER", 1: "SCHED_FIFO", 2: "SCHED_RR", 3: "SCHED_BATCH", 5: "SCHED_IDLE", 6: "SCHED_DEADLINE"}
VCPU_THREAD = re.compile(r"^CPU (\d+)/(KVM|TCG|HVF|WHPX)$")
IO_THREAD = re.compile(r"^IO iothread(\d+)$")
HUGETLB_LINE = re.compile(r"^(Shared|Private)_Hugetlb:\s+(\d+)\s+kB", re.MULTILINE)
# Fields of /proc/<pid>/stat after the command name: flags, rt_priority and policy.
_FLAGS, _RT_PRIORITY, _POLICY = 6, 37, 38
# task flag of kernel threads (include/linux/sched.h)
PF_KTHREAD = 0x00200000


def pid_from_file(reader, path):
    """The pid written in a pid file, or None."""
    text = reader.read(path, optional=True)
    try:
        return int((text or "").split()[0])
    except (ValueError, IndexError):
        return None


def thread_scheduling(reader, pid, tid):
    """``{policy, priority, affinity}`` of one thread, or None when it is gone."""
    base = "/proc/%d/task/%s" % (pid, tid)
    stat = reader.read(base + "/stat", optional=True) or ""
    fields = stat[stat.rfind(")") + 2:].split()
    if len(fields) <= _POLICY:
        return None
    priority, policy = int(fields[_RT_PRIORITY]), int(fields[_POLICY])
    affinity = ""
    for line in (reader.read(base + "/status", optional=True) or "").splitlines():
        if line.startswith("Cpus_allowed_list:"):
            affinity = line.split(":", 1)[1].strip()
    return {"policy": POLICIES.get(policy, str(policy)), "priority": priority, "affinity": affinity}


def allowed_cpus(affinity):
    """The CPU ids of a ``Cpus_allowed_list`` text, or None when it cannot be read."""
    try:
        return parse_kernel_cpulist(affinity)
    except CpusetError:
        return None


def kernel_threads(reader, names):
    """Kernel threads whose name matches the regular expression ``names``.

    Each is ``{pid, comm, policy, priority, cpus, cpuset}``: a process of
    ``/proc`` with ``PF_KTHREAD`` in the flags of its ``stat``, its
    scheduling from the same line and ``cpus`` from ``Cpus_allowed_list``
    of its ``status``.  A thread that exits while it is read is left out.
    """
    pattern = re.compile(names)
    threads = []
    for pid in reader.listdir("/proc", optional=True):
        if not pid.isdigit():
            continue
        stat = reader.read("/proc/%s/stat" % pid, optional=True) or ""
        comm = stat[stat.find("(") + 1:stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) <= _POLICY or not int(fields[_FLAGS]) & PF_KTHREAD or not pattern.search(comm):
            continue
        scheduling = thread_scheduling(reader, int(pid), pid)
        if scheduling is None:
            continue
        threads.append({"pid": int(pid), "comm": comm, "policy": scheduling["policy"],
                        "priority": scheduling["priority"], "cpus": allowed_cpus(scheduling["affinity"]),
                        "cpuset": scheduling["affinity"]})
    return sorted(threads, key=lambda item: item["pid"])


def qemu_threads(reader, pid):
    """The threads of a QEMU process by role, read in one pass over its tasks.

    ``{vcpu, iothread, emulator}``: ``vcpu`` as :func:`vcpu_threads` gives
    them; ``iothread`` ``{iothread, tid, policy, priority, affinity, cpus}``
    per ``IO iothread<n>`` thread, by IO thread id; ``emulator`` ``{tid,
    comm, policy, priority, affinity, cpus}`` per other thread, by tid.
    ``affinity`` is the ``Cpus_allowed_list`` text, ``cpus`` its CPU ids
    (None when it cannot be read).  A thread that exits while it is read is
    left out.
    """
    found = {"vcpu": [], "iothread": [], "emulator": []}
    for tid in reader.listdir("/proc/%d/task" % pid, optional=True):
        comm = reader.read("/proc/%d/task/%s/comm" % (pid, tid), optional=True)
        if comm is None:
            continue
        scheduling = thread_scheduling(reader, pid, tid)
        if scheduling is None:
            continue
        vcpu, iothread = VCPU_THREAD.match(comm), IO_THREAD.match(comm)
        if vcpu:
            entry = {"vcpu": int(vcpu.group(1)), "tid": int(tid)}
        elif iothread:
            entry = {"iothread": int(iothread.group(1)), "tid": int(tid), "cpus": allowed_cpus(scheduling["affinity"])}
        else:
            entry = {"tid": int(tid), "comm": comm, "cpus": allowed_cpus(scheduling["affinity"])}
        entry.update(scheduling)
        found["vcpu" if vcpu else "iothread" if iothread else "emulator"].append(entry)
    found["vcpu"].sort(key=lambda item: item["vcpu"])
    found["iothread"].sort(key=lambda item: (item["iothread"], item["tid"]))
    found["emulator"].sort(key=lambda item: item["tid"])
    return found


def vcpu_threads(reader, pid):
    """Per vCPU thread of a QEMU process: vcpu, tid, policy, priority, affinity."""
    return qemu_threads(reader, pid)["vcpu"]


def parse_hugetlb(smaps_rollup):
    """KiB of hugetlb memory in a /proc/<pid>/smaps_rollup text."""
    return sum(int(match.group(2)) for match in HUGETLB_LINE.finditer(smaps_rollup or ""))


def hugetlb_kib(reader, pid):
    """KiB of hugetlb memory the process maps."""
    return parse_hugetlb(reader.read("/proc/%d/smaps_rollup" % pid, optional=True))
