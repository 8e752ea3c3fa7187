#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Print the first failed task of an ansible-playbook log: its TASK line and what follows, cut short.

tests/integration/run.sh prints it for each failed target after the last
target, so the tail of a long log (a CI log) says what failed, not only which
target.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import sys

MARKERS = ("fatal: [", "failed: [", "[ERROR]:")
MAX_LINES = 60
MAX_WIDTH = 300


def first_failure(lines):
    """The lines from the TASK header before the first failure marker, at most MAX_LINES of them."""
    task = None
    for number, line in enumerate(lines):
        if line.startswith("TASK [") or line.startswith("RUNNING HANDLER ["):
            task = number
        if line.startswith(MARKERS):
            start = task if task is not None else number
            return [text[:MAX_WIDTH] for text in lines[start:start + MAX_LINES]]
    return []


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: first_failure.py LOG\n")
        return 2
    try:
        with open(argv[1], errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError as err:
        print("  (no log: %s)" % err)
        return 0
    found = first_failure(lines)
    if not found:
        print("  (no failed task in the log; the failure came before or after the plays)")
        print("\n".join("  " + text[:MAX_WIDTH] for text in lines[-10:]))
    for text in found:
        print("  " + text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
