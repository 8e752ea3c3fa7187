# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""cyclictest and oslat (rt-tests): their output parsed, and a run judged against the threshold (pure)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import check

LATENCY_LINE = re.compile(r"^#\s*(Min|Avg|Max) Latencies:\s*(.*)$")
TOTAL_LINE = re.compile(r"^#\s*Total:\s*(.*)$")
OVERFLOW_LINE = re.compile(r"^#\s*Histogram Overflows:\s*(.*)$")
BUCKET_LINE = re.compile(r"^(\d{3,})((?:\s+\d+)+)\s*$")


def _numbers(text):
    return [int(token) for token in text.split() if token.isdigit()]


JSON_MARK = '"file_version"'


def parse_cyclictest(text):
    """Parse what cyclictest printed: its ``--json`` document when the text holds one, else its text.

    The role runs cyclictest with ``--json=/dev/stderr`` and hands stdout
    and stderr together; the probe guest's serial log holds only the text.
    Both give the same mapping (see ``parse_cyclictest_text``), with
    ``source`` saying which was read.
    """
    text = text or ""
    if JSON_MARK in text:
        return parse_cyclictest_json(text)
    return parse_cyclictest_text(text)


def _empty():
    return {"threads": 0, "min": [], "avg": [], "max": [], "min_us": None, "avg_us": None, "max_us": None,
            "total": [], "overflows": [], "histogram": [], "error": None, "source": None}


def _summarise(result):
    if result["max"]:
        result["threads"] = len(result["max"])
        result["max_us"] = max(result["max"])
        result["min_us"] = min(result["min"]) if result["min"] else None
        result["avg_us"] = int(round(float(sum(result["avg"])) / len(result["avg"]))) if result["avg"] else None
    return result


def parse_cyclictest_json(text):
    """Parse the document cyclictest ``--json`` writes (rt-tests 2.x), found anywhere in ``text``.

    Per thread it has ``cycles``, ``min``, ``avg``, ``max`` and a
    ``histogram`` of the buckets it counted (latency in us -> count); the
    samples beyond the last bucket are the cycles the histogram lacks.
    oslat writes the same document without ``cycles``.
    """
    result = _empty()
    result["source"] = "json"
    # the document opens with the brace before its first key
    start = text.rfind("{", 0, max(text.find(JSON_MARK), 0))
    try:
        document, _end = json.JSONDecoder().raw_decode(text[start:])
        threads = document["thread"]
        order = sorted(threads, key=int)
    except (ValueError, KeyError, TypeError, AttributeError):
        result["error"] = "cyclictest's --json output could not be read"
        return result
    buckets = {}
    for key in order:
        thread = threads[key] or {}
        histogram = thread.get("histogram") or {}
        counted = 0
        for latency, count in histogram.items():
            buckets[int(latency)] = buckets.get(int(latency), 0) + int(count)
            counted += int(count)
        # cyclictest counts its cycles; oslat has none, its last bucket takes every longer sample
        cycles = int(thread["cycles"]) if thread.get("cycles") is not None else counted
        result["min"].append(int(thread.get("min") or 0))
        result["avg"].append(float(thread.get("avg") or 0))
        result["max"].append(int(thread.get("max") or 0))
        result["total"].append(cycles)
        result["overflows"].append(max(cycles - counted, 0))
    result["histogram"] = [[latency, buckets[latency]] for latency in sorted(buckets) if buckets[latency]]
    result["rt_tests_version"] = str(document.get("rt_test_version:") or document.get("rt_test_version") or "")
    result["start_time"] = document.get("start_time")
    result["end_time"] = document.get("end_time")
    if not order:
        result["error"] = "cyclictest's --json output has no thread"
        return result
    return _summarise(result)


def parse_cyclictest_text(text):
    """Parse cyclictest ``-q -H`` text output (also inside a serial log).

    Returns ``{threads, min, avg, max, min_us, avg_us, max_us, total,
    overflows, histogram, source}``; ``histogram`` keeps the non-empty
    buckets as ``[latency_us, count summed over threads]``.  ``max_us`` is
    None with an ``error`` when no summary line was found.  With more than
    one thread, cyclictest adds a column for all threads together to the
    histogram and to the Total, Max and Overflows lines; it is dropped, so
    that every list has one value per thread.
    """
    result = _empty()
    result["source"] = "text"
    in_histogram = False
    columns = []
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
                columns.append((int(match.group(1)), _numbers(match.group(2))))
    threads = len(result["min"]) or len(result["max"])
    if threads > 1 and len(result["max"]) == threads + 1:
        # the all-threads column: one more value than threads
        for key in ("max", "total", "overflows"):
            result[key] = result[key][:threads]
        columns = [(latency, counts[:threads]) for latency, counts in columns]
    result["histogram"] = [[latency, sum(counts)] for latency, counts in columns if sum(counts)]
    if not result["max"]:
        result["error"] = "no 'Max Latencies' line in the cyclictest output"
        return result
    return _summarise(result)


def parse_oslat(text):
    """Parse the document oslat ``--json`` writes (rt-tests 2.x), found anywhere in ``text``.

    The same mapping as ``parse_cyclictest``: per measured CPU ``min``,
    ``avg``, ``max`` (us) and the histogram of its loop latencies (oslat's
    last bucket also holds every longer sample, so ``overflows`` is 0 and
    ``total`` is the number of samples).
    """
    text = text or ""
    if JSON_MARK not in text:
        result = _empty()
        result["source"] = "json"
        result["error"] = "no --json output from oslat (it needs rt-tests 2.0 or later)"
        return result
    return parse_cyclictest_json(text)


def latency_check(parsed, subject, threshold_us, advisory=False, skip_reason=None, tool="cyclictest"):
    """One check of a parsed cyclictest (or oslat) run against the max-latency threshold."""
    expected = "max latency <= %d us" % threshold_us
    if skip_reason:
        return check(subject, tool, expected, "skipped: %s" % skip_reason, "skip")
    if not parsed or parsed.get("max_us") is None:
        why = (parsed or {}).get("error") or "no output"
        return check(subject, tool, expected, "no result (%s)" % why, "warn" if advisory else "fail",
                     "%s: %s gave no result (%s)" % (subject, tool, why))
    observed = "max %d us, avg %s us, min %s us, %d thread(s)%s" % (
        parsed["max_us"], parsed.get("avg_us"), parsed.get("min_us"), parsed.get("threads") or 0,
        ", %d over histogram" % sum(parsed["overflows"]) if parsed.get("overflows") and sum(parsed["overflows"]) else "")
    if parsed["max_us"] <= threshold_us:
        return check(subject, tool, expected, observed, "pass")
    status = "warn" if advisory else "fail"
    return check(subject, tool, expected, observed, status,
                 "%s: max latency %d us is above %d us%s" % (
                     subject, parsed["max_us"], threshold_us,
                     " (advisory: emulated CPU, no real-time guarantee)" if advisory else
                     "; check CPU isolation (realtime.virt.rt_host), SMIs and power management"))
