# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""cyclictest: its output parsed, and a run judged against the threshold (pure)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import check

LATENCY_LINE = re.compile(r"^#\s*(Min|Avg|Max) Latencies:\s*(.*)$")
TOTAL_LINE = re.compile(r"^#\s*Total:\s*(.*)$")
OVERFLOW_LINE = re.compile(r"^#\s*Histogram Overflows:\s*(.*)$")
BUCKET_LINE = re.compile(r"^(\d{3,})((?:\s+\d+)+)\s*$")


def _numbers(text):
    return [int(token) for token in text.split() if token.isdigit()]


def parse_cyclictest(text):
    """Parse cyclictest ``-q -H`` output (also inside a serial log).

    Returns ``{threads, min, avg, max, min_us, avg_us, max_us, total,
    overflows, histogram}``; ``histogram`` keeps the non-empty buckets as
    ``[latency_us, count summed over threads]``.  ``max_us`` is None with
    an ``error`` when no summary line was found.
    """
    result = {"threads": 0, "min": [], "avg": [], "max": [], "min_us": None, "avg_us": None, "max_us": None,
              "total": [], "overflows": [], "histogram": [], "error": None}
    in_histogram = False
    for raw in (text or "").splitlines():
        line = raw.replace("\r", "").strip()
        if line.startswith("# Histogram") and not line.startswith("# Histogram Overflow"):
            in_histogram = True
            continue
        match = LATENCY_LINE.match(line)
        if match:
            in_histogram = False
            result[match.group(1).lower()] = _numbers(match.group(2))
            continue
        match = TOTAL_LINE.match(line)
        if match:
            in_histogram = False
            result["total"] = _numbers(match.group(1))
            continue
        match = OVERFLOW_LINE.match(line)
        if match:
            result["overflows"] = _numbers(match.group(1))
            continue
        if in_histogram:
            match = BUCKET_LINE.match(line)
            if match:
                counts = _numbers(match.group(2))
                if sum(counts):
                    result["histogram"].append([int(match.group(1)), sum(counts)])
    if result["max"]:
        result["threads"] = len(result["max"])
        result["max_us"] = max(result["max"])
        result["min_us"] = min(result["min"]) if result["min"] else None
        result["avg_us"] = int(round(float(sum(result["avg"])) / len(result["avg"]))) if result["avg"] else None
    else:
        result["error"] = "no 'Max Latencies' line in the cyclictest output"
    return result


def latency_check(parsed, subject, threshold_us, advisory=False, skip_reason=None):
    """One check of a parsed cyclictest run against the max-latency threshold."""
    expected = "max latency <= %d us" % threshold_us
    if skip_reason:
        return check(subject, "cyclictest", expected, "skipped: %s" % skip_reason, "skip")
    if not parsed or parsed.get("max_us") is None:
        why = (parsed or {}).get("error") or "no output"
        return check(subject, "cyclictest", expected, "no result (%s)" % why, "warn" if advisory else "fail",
                     "%s: cyclictest gave no result (%s)" % (subject, why))
    observed = "max %d us, avg %s us, min %s us, %d thread(s)%s" % (
        parsed["max_us"], parsed.get("avg_us"), parsed.get("min_us"), parsed.get("threads") or 0,
        ", %d over histogram" % sum(parsed["overflows"]) if parsed.get("overflows") and sum(parsed["overflows"]) else "")
    if parsed["max_us"] <= threshold_us:
        return check(subject, "cyclictest", expected, observed, "pass")
    status = "warn" if advisory else "fail"
    return check(subject, "cyclictest", expected, observed, status,
                 "%s: max latency %d us is above %d us%s" % (
                     subject, parsed["max_us"], threshold_us,
                     " (advisory: emulated CPU, no real-time guarantee)" if advisory else
                     "; check CPU isolation (realtime.virt.rt_host), SMIs and power management"))
