#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Prove that playbooks/site.yml --check changes nothing and predicts the real run.

  check_mode_proof.py [--playbook playbooks/site.yml] [--inventory inventory/localhost.yml] [--out result.json]
                      [--undo playbooks/undo.yml]

1. keep what is needed to put the host back (host_state.save);
2. make the host look fresh (host_state.reset: no role files, throttling
   on, no 2M pages);
3. snapshot, run --check, snapshot: identical, and the changed count is
   the prediction;
4. real run: its changed count must equal the prediction, task by task;
5. on the now converged host: snapshot, --check, snapshot: identical and
   nothing predicted; a second real run changes nothing;
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


def run_playbook(playbook, inventory, check):
    command = ["ansible-playbook", "-i", inventory, playbook] + (["--check"] if check else [])
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
            checked = run_playbook(args.playbook, args.inventory, check=True)
            after = snap()
            diffs = host_state.compare(before, after)
            real = run_playbook(args.playbook, args.inventory, check=False)
            result["phases"][phase] = {"check": checked, "real": real, "check_mode_differences": diffs}
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
