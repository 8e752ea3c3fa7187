# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tuned against untuned vCPU: run-queue wait per slice, side by side.

Two probe domains (rt_validate's probe guest: kernel + busybox +
cyclictest) are defined and started by libvirt_rt_domain's own manager
with the same options except ``realtime`` (the tuned one has
``realtime: {}``, so the module writes ``<vcpusched scheduler='fifo'
priority='1'>``). Before anything is measured the bench checks in /proc
that the tuned vCPU thread really runs SCHED_FIFO priority 1 and the
untuned one SCHED_OTHER; otherwise it stops. Both vCPUs are pinned to the
same host CPU as two busy loops (``taskset``). For each vCPU thread the
run-queue wait per slice is read from ``/proc/<pid>/task/<tid>/schedstat``
(2nd field: ns waited, 3rd: slices) over a window; the ratio
tuned/untuned is printed (target <= 1/20), with each guest's cyclictest
max/avg from its serial log.

The floor: before the domains start, the same two busy loops run on the
same CPU beside a plain SCHED_FIFO priority 1 thread (the host's
cyclictest, one thread waking every 100 us like the guest's), and its
run-queue wait per slice is read the same way over the same window. The
tuned vCPU thread's wait per slice against that floor is the kernel's own
bound on what pinning and SCHED_FIFO can give (target <= 2x). The exit
status is 1 when either target is missed.
Bounded in time (about a minute), everything is removed afterwards and
the sysctl restored.

Run as root on a host with libvirtd:  .venv/bin/python tests/bench/bench_rt_tuning.py
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import argparse
import os
import subprocess
import sys
import time

import libvirt

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, ".cache", "collections"))

from ansible_collections.realtime.virt.plugins.module_utils._kernel import proc  # noqa: E402
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader  # noqa: E402
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.manager import DomainManager  # noqa: E402
from ansible_collections.realtime.virt.plugins.module_utils._validate.cyclictest import parse_cyclictest  # noqa: E402

SYSCTL = "/proc/sys/kernel/sched_rt_runtime_us"
TARGET = 0.05
FLOOR_TARGET = 2.0


def read(path):
    with open(path) as handle:
        return handle.read()


def write(path, text):
    with open(path, "w") as handle:
        handle.write(text)


def domain_options(name, args, duration, log, tuned):
    """libvirt_rt_domain's options for one probe domain; only ``realtime`` differs."""
    options = {
        "name": name, "state": "running", "domain_type": "qemu", "vcpus": 1, "memory_mib": 128,
        "cpu": {"mode": "maximum", "pinning": [{"vcpu": 0, "cpuset": args.cpu}], "emulator_cpuset": args.emulator},
        "memory": {"locked": False},
        "boot": {"kernel": os.path.join(args.cache, "vmlinuz"), "initrd": os.path.join(args.cache, "initrd.img"),
                 "cmdline": "console=ttyS0 quiet rtv.duration=%d" % duration},
        "serial_log": log,
    }
    if tuned:
        options["realtime"] = {}
    return options


def vcpu_thread(name):
    pid = proc.pid_from_file(HostReader("/"), "/run/libvirt/qemu/%s.pid" % name)
    threads = proc.vcpu_threads(HostReader("/"), pid) if pid else []
    if not threads:
        raise RuntimeError("no vCPU thread in domain %s" % name)
    return pid, threads[0]


def schedstat(pid, tid):
    fields = read("/proc/%d/task/%d/schedstat" % (pid, tid)).split()
    return int(fields[1]), int(fields[2])


def floor_thread(pid, deadline):
    """The SCHED_FIFO thread of the host's cyclictest ``pid`` (its measuring thread), once it has started."""
    while time.time() < deadline:
        for tid in sorted(int(task) for task in os.listdir("/proc/%d/task" % pid)):
            if os.sched_getscheduler(tid) == os.SCHED_FIFO:
                return tid
        time.sleep(0.05)
    raise RuntimeError("cyclictest %d started no SCHED_FIFO thread" % pid)


def measure_floor(args):
    """Run-queue wait per slice of a plain SCHED_FIFO 1 thread beside the busy loops, in ns."""
    floor = subprocess.Popen(["cyclictest", "--policy", "fifo", "--priority", "1", "--affinity", args.cpu,
                              "--threads", "1", "--interval", "100", "--quiet",
                              "--duration", "%d" % int(args.window + 10)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        tid = floor_thread(floor.pid, time.time() + 10)
        before = schedstat(floor.pid, tid)
        time.sleep(args.window)
        after = schedstat(floor.pid, tid)
    finally:
        floor.kill()
        floor.wait()
    wait, slices = after[0] - before[0], max(1, after[1] - before[1])
    print("%-8s FIFO 1 thread: waited %8.1f ms in %6d slices = %9.2f us per slice"
          % ("floor", wait / 1e6, slices, wait / float(slices) / 1e3))
    return wait / float(slices)


def measure(names, threads, window):
    before = dict((kind, schedstat(pid, thread["tid"])) for kind, (pid, thread) in threads.items())
    time.sleep(window)
    after = dict((kind, schedstat(pid, thread["tid"])) for kind, (pid, thread) in threads.items())
    per_slice = {}
    for kind in names:
        wait = after[kind][0] - before[kind][0]
        slices = max(1, after[kind][1] - before[kind][1])
        per_slice[kind] = wait / float(slices)
        print("%-8s vCPU thread: waited %8.1f ms in %6d slices = %9.2f us per slice"
              % (kind, wait / 1e6, slices, per_slice[kind] / 1e3))
    return per_slice


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", default="1", help="host CPU shared by both vCPUs and the busy loops")
    parser.add_argument("--emulator", default="0", help="host CPU of the emulator threads")
    parser.add_argument("--window", type=float, default=15.0, help="seconds measured")
    parser.add_argument("--cache", default=os.path.join(TOP, ".cache", "probe"))
    args = parser.parse_args()

    subprocess.check_call([os.path.join(TOP, "roles", "rt_validate", "files", "build-probe-guest.sh"), args.cache])
    libvirt.registerErrorHandler(lambda context, error: None, None)  # the manager reports what matters
    duration = int(args.window + 12)
    saved = read(SYSCTL).strip()
    names = {"tuned": "rtv-bench-tuned", "untuned": "rtv-bench-untuned"}
    logs = dict((kind, "/var/log/libvirt/qemu/%s-serial.log" % name) for kind, name in names.items())
    loops = []
    ratio = floor_ratio = None
    try:
        write(SYSCTL, "-1")
        for dummy in range(2):
            loops.append(subprocess.Popen(["taskset", "-c", args.cpu, sys.executable, "-c", "while True: pass"]))
        floor = measure_floor(args)
        for kind, name in names.items():
            if os.path.exists(logs[kind]):
                os.unlink(logs[kind])
            DomainManager(domain_options(name, args, duration, logs[kind], kind == "tuned")).run()
        threads = dict((kind, vcpu_thread(name)) for kind, name in names.items())
        wanted = {"tuned": ("SCHED_FIFO", 1), "untuned": ("SCHED_OTHER", 0)}
        for kind, (pid, thread) in threads.items():
            seen = (thread["policy"], thread["priority"])
            print("%-8s vCPU thread %d: %s priority %d" % (kind, thread["tid"], seen[0], seen[1]))
            if seen != wanted[kind]:
                print("the %s domain's vCPU thread runs %s priority %d, not %s priority %d: nothing to compare"
                      % (kind, seen[0], seen[1], wanted[kind][0], wanted[kind][1]))
                return 1
        time.sleep(4)  # boot
        per_slice = measure(names, threads, args.window)
        for loop in loops:
            loop.kill()
        ratio = per_slice["tuned"] / per_slice["untuned"] if per_slice["untuned"] else float("inf")
        floor_ratio = per_slice["tuned"] / floor if floor else float("inf")
        print("ratio tuned/untuned run-queue wait per slice: %.4f (1/%.0f; target <= 1/20: %s)"
              % (ratio, 1 / ratio if ratio else float("inf"), "met" if ratio <= TARGET else "NOT met"))
        print("ratio tuned/floor (a plain SCHED_FIFO 1 thread, same CPU, same loops): %.2f (target <= %.0fx: %s)"
              % (floor_ratio, FLOOR_TARGET, "met" if floor_ratio <= FLOOR_TARGET else "NOT met"))
        conn = libvirt.open("qemu:///system")
        deadline = time.time() + duration + 30
        while time.time() < deadline and any(conn.lookupByName(n).isActive() for n in names.values()):
            time.sleep(1)
        conn.close()
        for kind in names:
            parsed = parse_cyclictest(read(logs[kind]) if os.path.exists(logs[kind]) else "")
            print("%-8s guest cyclictest: max %s us, avg %s us, min %s us%s" % (
                kind, parsed["max_us"], parsed["avg_us"], parsed["min_us"],
                " (%s)" % parsed["error"] if parsed["error"] else ""))
    finally:
        for loop in loops:
            if loop.poll() is None:
                loop.kill()
        for name in names.values():
            DomainManager({"name": name, "state": "absent"}).run()
        for log in logs.values():
            if os.path.exists(log):
                os.unlink(log)
        write(SYSCTL, saved)
    return 0 if ratio is not None and ratio <= TARGET and floor_ratio <= FLOOR_TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
