#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Print, as JSON, the threads of a running libvirt domain's QEMU (run inside the VM).

Usage: qemu_threads.py DOMAIN. Reads libvirt's pid file of the domain and,
per thread, what the kernel shows: its name (comm), its CPU affinity
(Cpus_allowed_list of /proc/PID/task/TID/status) and its scheduling policy
and real-time priority (fields 41 and 40 of /proc/PID/task/TID/stat). Prints
{"pid": null} when the domain has no QEMU process.
"""

import json
import os
import sys

POLICIES = {0: "SCHED_OTHER", 1: "SCHED_FIFO", 2: "SCHED_RR", 3: "SCHED_BATCH", 5: "SCHED_IDLE", 6: "SCHED_DEADLINE"}


def read(path):
    with open(path) as handle:
        return handle.read()


def thread(task_dir):
    status = dict(line.split(":", 1) for line in read(os.path.join(task_dir, "status")).splitlines() if ":" in line)
    stat = read(os.path.join(task_dir, "stat"))
    # fields after the ')' that closes comm start at field 3
    fields = stat[stat.rindex(")") + 2:].split()
    return {
        "tid": int(os.path.basename(task_dir)),
        "comm": read(os.path.join(task_dir, "comm")).strip(),
        "affinity": status["Cpus_allowed_list"].strip(),
        "priority": int(fields[40 - 3]),
        "policy": POLICIES.get(int(fields[41 - 3]), fields[41 - 3]),
    }


def main():
    pid_file = "/run/libvirt/qemu/%s.pid" % sys.argv[1]
    try:
        pid = int(read(pid_file).strip())
    except (IOError, OSError, ValueError):
        print(json.dumps({"pid": None, "threads": []}))
        return
    task = "/proc/%d/task" % pid
    threads = [thread(os.path.join(task, tid)) for tid in sorted(os.listdir(task), key=int)]
    print(json.dumps({"pid": pid, "threads": threads}))


if __name__ == "__main__":
    main()
