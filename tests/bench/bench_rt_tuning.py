# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tuned against untuned vCPU: run-queue wait per slice, side by side.

Two probe domains (rt_validate's probe guest: kernel + busybox +
cyclictest) identical but for the real-time tuning (``<vcpusched
scheduler='fifo' priority='1'>``) run at the same time, each vCPU pinned
to the same host CPU as two busy loops (``taskset``).  For each vCPU
thread the run-queue wait per slice is read from
``/proc/<pid>/task/<tid>/schedstat`` (2nd field: ns waited, 3rd: slices)
over a window; the ratio tuned/untuned is printed (target <= 1/20), with
each guest's cyclictest max/avg from its serial log.  Bounded in time
(about a minute), everything is removed afterwards and the sysctl restored.

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

from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import parse_cyclictest  # noqa: E402

SYSCTL = "/proc/sys/kernel/sched_rt_runtime_us"
DOMAIN = """<domain type='qemu'>
  <name>{name}</name>
  <memory unit='MiB'>128</memory>
  <vcpu placement='static'>1</vcpu>
  <cputune>
    <vcpupin vcpu='0' cpuset='{cpu}'/>
    <emulatorpin cpuset='{emulator}'/>
    {sched}
  </cputune>
  <os>
    <type arch='x86_64'>hvm</type>
    <kernel>{cache}/vmlinuz</kernel>
    <initrd>{cache}/initrd.img</initrd>
    <cmdline>console=ttyS0 quiet rtv.duration={duration}</cmdline>
  </os>
  <cpu mode='maximum'/>
  <on_poweroff>destroy</on_poweroff>
  <devices>
    <serial type='file'><source path='{log}'/><target port='0'/></serial>
    <memballoon model='none'/>
  </devices>
</domain>"""


def read(path):
    with open(path) as handle:
        return handle.read()


def write(path, text):
    with open(path, "w") as handle:
        handle.write(text)


def vcpu_tid(name):
    pid = int(read("/run/libvirt/qemu/%s.pid" % name).split()[0])
    for tid in os.listdir("/proc/%d/task" % pid):
        if read("/proc/%d/task/%s/comm" % (pid, tid)).startswith("CPU 0/"):
            return pid, int(tid)
    raise RuntimeError("no vCPU thread in domain %s" % name)


def schedstat(pid, tid):
    fields = read("/proc/%d/task/%d/schedstat" % (pid, tid)).split()
    return int(fields[1]), int(fields[2])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", default="1", help="host CPU shared by both vCPUs and the busy loops")
    parser.add_argument("--emulator", default="0", help="host CPU of the emulator threads")
    parser.add_argument("--window", type=float, default=15.0, help="seconds measured")
    parser.add_argument("--cache", default=os.path.join(TOP, ".cache", "probe"))
    args = parser.parse_args()

    subprocess.check_call([os.path.join(TOP, "roles", "rt_validate", "files", "build-probe-guest.sh"), args.cache])
    duration = int(args.window + 12)
    saved = read(SYSCTL).strip()
    conn = libvirt.open("qemu:///system")
    names = {"tuned": "rtv-bench-tuned", "untuned": "rtv-bench-untuned"}
    logs = dict((kind, "/var/log/libvirt/qemu/%s-serial.log" % name) for kind, name in names.items())
    loops = []
    try:
        write(SYSCTL, "-1")
        for kind, name in names.items():
            if os.path.exists(logs[kind]):
                os.unlink(logs[kind])
            sched = "<vcpusched vcpus='0' scheduler='fifo' priority='1'/>" if kind == "tuned" else ""
            xml = DOMAIN.format(name=name, cpu=args.cpu, emulator=args.emulator, sched=sched, cache=args.cache,
                                duration=duration, log=logs[kind])
            conn.defineXML(xml).create()
        for dummy in range(2):
            loops.append(subprocess.Popen(["taskset", "-c", args.cpu, sys.executable, "-c", "while True: pass"]))
        time.sleep(4)  # boot
        threads = dict((kind, vcpu_tid(name)) for kind, name in names.items())
        before = dict((kind, schedstat(*ids)) for kind, ids in threads.items())
        time.sleep(args.window)
        after = dict((kind, schedstat(*ids)) for kind, ids in threads.items())
        for proc in loops:
            proc.kill()
        per_slice = {}
        for kind in names:
            wait = after[kind][0] - before[kind][0]
            slices = max(1, after[kind][1] - before[kind][1])
            per_slice[kind] = wait / float(slices)
            print("%-8s vCPU thread: waited %8.1f ms in %6d slices = %8.3f ms per slice"
                  % (kind, wait / 1e6, slices, per_slice[kind] / 1e6))
        ratio = per_slice["tuned"] / per_slice["untuned"] if per_slice["untuned"] else float("inf")
        print("ratio tuned/untuned run-queue wait per slice: %.4f (1/%.0f; target <= 1/20: %s)"
              % (ratio, 1 / ratio if ratio else float("inf"), "met" if ratio <= 0.05 else "NOT met"))
        deadline = time.time() + duration + 30
        while time.time() < deadline and any(conn.lookupByName(n).isActive() for n in names.values()):
            time.sleep(1)
        for kind in names:
            parsed = parse_cyclictest(read(logs[kind]) if os.path.exists(logs[kind]) else "")
            print("%-8s guest cyclictest: max %s us, avg %s us, min %s us%s" % (
                kind, parsed["max_us"], parsed["avg_us"], parsed["min_us"],
                " (%s)" % parsed["error"] if parsed["error"] else ""))
    finally:
        for proc in loops:
            if proc.poll() is None:
                proc.kill()
        for name in names.values():
            try:
                dom = conn.lookupByName(name)
                if dom.isActive():
                    dom.destroy()
                dom.undefine()
            except libvirt.libvirtError:
                pass
        for log in logs.values():
            if os.path.exists(log):
                os.unlink(log)
        write(SYSCTL, saved)
        conn.close()


if __name__ == "__main__":
    main()
