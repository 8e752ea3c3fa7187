#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Prove that playbooks/site.yml --check changes nothing and predicts the real run.

  check_mode_proof.py [--playbook playbooks/site.yml] [--inventory inventory/localhost.yml] [--out result.json]
                      [--undo playbooks/undo.yml] [-e NAME=VALUE ...]

1. keep what is needed to put the host back (host_state.save);
2. make the host look fresh (host_state.reset: no role files, throttling
   on, no 2M pages);
3. snapshot, run --check, snapshot: identical, and the changed count is
   the prediction;
4. real run: its changed count must equal the prediction, task by task;
5. on the now converged host: snapshot, --check, snapshot: identical and
   nothing predicted; a second real run changes nothing; and the running
   domains' emulator and vCPU threads (read from /proc before the --check
   and after the real run) keep their CPU affinity, scheduling policy and
   priority while the host roles are applied again;
6. with --undo: the undo playbook on the converged host, --check (changes
   nothing, predicts the real run task by task), real (the host is as it
   was before step 3: sysctls, pools, hugetlbfs mounts, domains and every
   file under /etc), and again (changes nothing);
7. always put the host back as it was found.

The stages come from the playbook itself, so stages added to site.yml are
covered without touching this script.  Prints one JSON document.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "coverage"))

import host_state  # noqa: E402  pylint: disable=wrong-import-position
import recording  # noqa: E402  pylint: disable=wrong-import-position

RECAP = re.compile(r"^(\S+)\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)")
TASK = re.compile(r"^(TASK|RUNNING HANDLER) \[(.*)\] \**$")


def run_playbook(playbook, inventory, check, extra_vars=()):
    command = ["ansible-playbook", "-i", inventory, playbook] + (["--check"] if check else [])
    for assignment in extra_vars:
        command += ["-e", assignment]
    # recording_environ: the runs record the role tasks they ran (tests/coverage).
    env = dict(recording.recording_environ(os.environ), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0", ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default",
               ANSIBLE_CALLBACK_RESULT_FORMAT="yaml")
    start = time.time()
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, env=env,
                          timeout=600, check=False)
    changed_tasks, task = [], None
    changed = failed = None
    for line in proc.stdout.splitlines():
        match = TASK.match(line)
        if match:
            task = match.group(2)
            continue
        if line.startswith("changed: ["):
            changed_tasks.append(task)
        match = RECAP.match(line)
        if match:
            changed, failed = int(match.group(3)), int(match.group(5))
    return {"rc": proc.returncode, "changed": changed, "failed": failed, "changed_tasks": changed_tasks,
            "seconds": round(time.time() - start, 1), "tail": proc.stdout.splitlines()[-25:] if proc.returncode else []}


VCPU_THREAD = re.compile(r"^CPU \d+/(KVM|TCG)$")


def qemu_threads(run_dir="/run/libvirt/qemu", proc="/proc"):
    """The threads of every running libvirt QEMU domain that stay for its life.

    {domain: {"pid": pid, "threads": {name: {"cpus", "policy", "priority"}}}}
    for the main (emulator) thread and the vCPU threads ("CPU N/KVM" or
    "CPU N/TCG"), read from /proc/<pid>/task/<tid>: Cpus_allowed_list of
    status, and rt_priority and policy, fields 40 and 41 of stat (proc(5)).
    QEMU's worker threads come and go, so they are left out.
    """
    found = {}
    try:
        names = sorted(os.listdir(run_dir))
    except OSError:
        return found
    for entry in names:
        # a running domain has its status XML beside its pid file (driver.pid is libvirtd's own)
        if not entry.endswith(".pid") or entry[:-len(".pid")] + ".xml" not in names:
            continue
        try:
            with open(os.path.join(run_dir, entry)) as handle:
                pid = handle.read().strip()
            tids = os.listdir(os.path.join(proc, pid, "task"))
        except (IOError, OSError):
            continue
        threads = {}
        for tid in tids:
            base = os.path.join(proc, pid, "task", tid)
            try:
                with open(os.path.join(base, "comm")) as handle:
                    name = handle.read().strip()
                with open(os.path.join(base, "status")) as handle:
                    status = handle.read()
                with open(os.path.join(base, "stat")) as handle:
                    stat = handle.read()
            except (IOError, OSError):
                continue  # the thread ended meanwhile
            if tid == pid:
                name = "main (emulator)"
            elif not VCPU_THREAD.match(name):
                continue
            # the fields after "(comm)" start with field 3, state
            fields = stat[stat.rindex(")") + 2:].split()
            cpus = [line.split(":", 1)[1].strip() for line in status.splitlines() if line.startswith("Cpus_allowed_list:")]
            threads[name] = {"cpus": cpus[0] if cpus else None, "priority": int(fields[40 - 3]),
                             "policy": int(fields[41 - 3])}
        found[entry[:-len(".pid")]] = {"pid": pid, "threads": threads}
    return found


def thread_changes(before, after):
    """What moved between two qemu_threads() readings, for the domains running in the first."""
    changes = []
    for domain in sorted(before):
        if domain not in after:
            changes.append("%s stopped" % domain)
            continue
        if after[domain]["pid"] != before[domain]["pid"]:
            changes.append("%s was restarted (pid %s -> %s)" % (domain, before[domain]["pid"], after[domain]["pid"]))
            continue
        for name, old in sorted(before[domain]["threads"].items()):
            new = after[domain]["threads"].get(name)
            if new != old:
                changes.append("%s thread %r: %s -> %s" % (domain, name, old, new))
    return changes


def foreign(snap, pattern):
    """Drop domains another test run owns (pattern from REALTIME_VIRT_FOREIGN_DOMAINS)."""
    if pattern and isinstance(snap.get("domains"), dict):
        snap["domains"] = dict((k, v) for k, v in snap["domains"].items() if not re.search(pattern, k))
    return snap


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--playbook", default="playbooks/site.yml")
    parser.add_argument("--inventory", default="inventory/localhost.yml")
    parser.add_argument("--out")
    parser.add_argument("--undo", help="the undo playbook to prove after the converged phase (playbooks/undo.yml)")
    parser.add_argument("-e", "--extra-vars", dest="extra_vars", action="append", default=[], metavar="NAME=VALUE",
                        help="an extra variable of every run of the playbook (repeatable)")
    args = parser.parse_args()
    ignore = os.environ.get("REALTIME_VIRT_FOREIGN_DOMAINS", "")

    def snap():
        return foreign(host_state.snapshot(), ignore)

    workdir = tempfile.mkdtemp(prefix="rtv-check-proof-")
    host_state.save(workdir)
    original = snap()
    result = {"playbook": args.playbook, "phases": {}, "problems": []}
    try:
        host_state.reset()
        fresh, fresh_etc = snap(), host_state.etc_files()
        for phase in ("fresh", "converged"):
            before = snap()
            threads = qemu_threads()
            checked = run_playbook(args.playbook, args.inventory, check=True, extra_vars=args.extra_vars)
            after = snap()
            diffs = host_state.compare(before, after)
            real = run_playbook(args.playbook, args.inventory, check=False, extra_vars=args.extra_vars)
            result["phases"][phase] = {"check": checked, "real": real, "check_mode_differences": diffs}
            if phase == "converged":
                # 5. the host roles applied again while the domains run
                moved = thread_changes(threads, qemu_threads())
                result["phases"][phase].update(threads=threads, thread_changes=moved)
                if moved:
                    result["problems"].append("converged: applying site.yml again moved running domains' threads: %s"
                                              % "; ".join(moved))
            if checked["rc"] != 0 or real["rc"] != 0:
                result["problems"].append("%s: a run failed (check rc %s, real rc %s)" % (phase, checked["rc"], real["rc"]))
            if diffs:
                result["problems"].append("%s: --check changed the host: %s" % (phase, "; ".join(diffs)))
            if checked["changed"] != real["changed"]:
                result["problems"].append("%s: --check predicted %s changes, the real run made %s (%s vs %s)" % (
                    phase, checked["changed"], real["changed"], checked["changed_tasks"], real["changed_tasks"]))
        if result["phases"]["converged"]["check"]["changed"] != 0 or result["phases"]["converged"]["real"]["changed"] != 0:
            result["problems"].append("converged: the host is not idempotent")
        if result["phases"]["fresh"]["check"]["changed"] in (0, None):
            result["problems"].append("fresh: --check predicted no change on a fresh host; the proof proves nothing")
        # 7. the way back: playbooks/undo.yml on the converged host, --check
        # first (changes nothing, predicts the real run task by task), then
        # for real: the host is as fresh as before the first site run, every
        # file under /etc included; a second undo changes nothing.
        if args.undo:
            before = snap()
            checked = run_playbook(args.undo, args.inventory, check=True)
            diffs = host_state.compare(before, snap())
            real = run_playbook(args.undo, args.inventory, check=False)
            again = run_playbook(args.undo, args.inventory, check=False)
            left = host_state.compare(fresh, snap()) + host_state.compare_etc(fresh_etc, host_state.etc_files())
            result["phases"]["undo"] = {"check": checked, "real": real, "again": again,
                                        "check_mode_differences": diffs, "left_behind": left}
            if checked["rc"] != 0 or real["rc"] != 0 or again["rc"] != 0:
                result["problems"].append("undo: a run failed (check rc %s, real rc %s, second rc %s)" % (
                    checked["rc"], real["rc"], again["rc"]))
            if diffs:
                result["problems"].append("undo: --check changed the host: %s" % "; ".join(diffs))
            if checked["changed_tasks"] != real["changed_tasks"]:
                result["problems"].append("undo: --check predicted %s, the real run changed %s" % (
                    checked["changed_tasks"], real["changed_tasks"]))
            if real["changed"] in (0, None):
                result["problems"].append("undo: the real run changed nothing on a converged host")
            if again["changed"] != 0:
                result["problems"].append("undo: a second run changed %s: %s" % (again["changed"], again["changed_tasks"]))
            if left:
                result["problems"].append("undo: the host is not as fresh as before site.yml: %s" % "; ".join(left))
    finally:
        host_state.restore(workdir)
        restored = host_state.compare(original, snap())
        result["restore_differences"] = restored
        if restored:
            result["problems"].append("the host was not put back: %s" % "; ".join(restored))
    result["ok"] = not result["problems"]
    text = json.dumps(result, indent=1, sort_keys=True)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)
    print(text)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
