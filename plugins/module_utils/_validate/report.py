# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The report of one host: counts, a table a person reads, the failures (pure)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import STATUSES


def _fit(text, width):
    return text if len(text) <= width else text[:width - 3] + "..."


def build_report(checks, host):
    """``{host, passed, counts, failures, table, checks}`` for a list of checks."""
    checks = list(checks or [])
    counts = dict((status, 0) for status in STATUSES)
    for item in checks:
        counts[item["status"]] = counts.get(item["status"], 0) + 1
    headers = ("SUBJECT", "CHECK", "EXPECTED", "OBSERVED", "RESULT")
    limits = (28, 30, 36, 60, 6)
    rows = [(item["subject"], item["check"], item["expected"], item["observed"], item["status"].upper())
            for item in checks]
    widths = []
    for column, limit in enumerate(limits):
        longest = max([len(headers[column])] + [len(row[column]) for row in rows])
        widths.append(min(longest, limit))
    lines = ["rt_validate report for %s: %s (%d pass, %d fail, %d warn, %d skip)" % (
        host, "PASSED" if not counts["fail"] else "FAILED", counts["pass"], counts["fail"], counts["warn"],
        counts["skip"])]
    lines.append("  ".join(_fit(h, w).ljust(w) for h, w in zip(headers, widths)).rstrip())
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append("  ".join(_fit(cell, w).ljust(w) for cell, w in zip(row, widths)).rstrip())
    if not rows:
        lines.append("(nothing to check)")
    failures = [item["message"] or "%s: %s" % (item["subject"], item["check"]) for item in checks
                if item["status"] == "fail"]
    return {"host": host, "passed": not counts["fail"], "counts": counts, "failures": failures,
            "table": "\n".join(lines), "checks": checks}
