#!/usr/bin/env python
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Print the lab scenario's steps as a table: one row per ansible-playbook run.

    scripts/lab_steps.py tests/output/molecule/lab-steps.jsonl

The lab's recap callback (extensions/molecule/lab/callback_plugins) appends
one JSON line per run: molecule's own playbooks (create, prepare, converge,
verify, destroy) and the runs they start (the --check run of converge.yml,
site.yml, guest.yml), which the table indents under the run that started
them. Prints nothing and exits 0 when the file is missing or empty.
"""

import json
import sys


def label(step):
    text = step["playbook"] or "?"
    if step.get("check_mode"):
        text += " --check"
    for extra in step.get("extra_vars") or ():
        text += " -e " + extra
    return text


def main(path):
    try:
        with open(path) as handle:
            steps = [json.loads(line) for line in handle if line.strip()]
    except (OSError, ValueError) as error:
        print("lab steps: cannot read %s: %s" % (path, error))
        return 0
    if not steps:
        return 0
    steps.sort(key=lambda step: step["started"])
    first = steps[0]["started"]
    rows = []
    for step in steps:
        # started inside another run that ended after it: one of its children
        depth = sum(1 for other in steps if other is not step
                    and other["started"] <= step["started"] and other["finished"] >= step["finished"])
        rows.append(("  " * depth + label(step), step["started"] - first, step["finished"] - step["started"]))
    header = "lab step (ansible-playbook run)"
    width = max([len(header)] + [len(row[0]) for row in rows])
    print("%-*s  %8s  %8s" % (width, header, "start s", "seconds"))
    for name, start, seconds in rows:
        print("%-*s  %8.0f  %8.0f" % (width, name, start, seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "tests/output/molecule/lab-steps.jsonl"))
