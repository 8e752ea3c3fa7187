# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One host's report as node_exporter textfile metrics (pure).

Input: the JSON document rt_validate writes on the host (``build_report``
plus ``measurements``) and the time of the run. Output: the text of a
``*.prom`` file in Prometheus' text exposition format (version 0.0.4), which
node_exporter's textfile collector serves with the host's other metrics.

Every family is a gauge: a run replaces the previous one, nothing counts
up. Latencies are in seconds, Prometheus' base unit (cyclictest's
microseconds divided by a million). The samples carry no timestamp, which
the textfile collector refuses; the run's time is a metric of its own.
Each series has the label ``host`` (the report's host). The families and
their other labels are in :data:`FAMILIES`; docs/rollout.md lists them too.

A series must appear once in a file, or node_exporter drops the file: when
two checks share subject and check name (or two measurements subject and
kind), the later ones get `` (2)``, `` (3)``... after the name.

A measurement of kind ``ptp`` (``ptp.ptp_measurement``) is no latency: it
writes the families of :data:`PTP_FAMILIES` (offset from the master and
path delay in seconds, its bound, its verdict), only when the report has
one, so a report without PTP gives the same file as before.
:func:`metric_names` lists the latency and check families,
:func:`ptp_metric_names` the PTP ones.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar
import math
import time as _time

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import STATUSES
from ansible_collections.realtime.virt.plugins.module_utils._validate.fleet import PTP_KIND
from ansible_collections.realtime.virt.plugins.module_utils._validate.html import (
    MEASUREMENT_STATUSES, measurement_summary, percentile, ptp_summary)

PREFIX = "realtime_virt_validate_"
TIME_OPTION = "time"
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
# The percentiles written per measurement, read from its histogram.
QUANTILES = (("0.5", 0.5), ("0.99", 0.99), ("0.999", 0.999))

# name (after PREFIX), labels besides host, help text
FAMILIES = (
    ("run_timestamp_seconds", (), "When rt_validate wrote this report, as seconds since the Unix epoch (UTC)."),
    ("passed", (), "1 when no check of the run failed, else 0."),
    ("checks", ("status",), "Number of checks of the run with each status (pass, fail, warn, skip)."),
    ("check_status", ("subject", "check", "status"),
     "Verdict of one check: 1 on the series of the status it has, 0 on the other statuses."),
    ("measurement_status", ("measurement", "kind", "status"),
     "Verdict of one latency measurement against its threshold (baseline: a reference, not judged): "
     "1 on the series of its status, 0 on the others."),
    ("latency_max_seconds", ("measurement", "kind"), "Highest latency the measurement saw."),
    ("latency_avg_seconds", ("measurement", "kind"), "Average latency of the measurement (mean over its threads)."),
    ("latency_min_seconds", ("measurement", "kind"), "Lowest latency the measurement saw."),
    ("latency_quantile_seconds", ("measurement", "kind", "quantile"),
     "Latency at or below which this fraction of the samples lie, read from the histogram (1 us buckets); "
     "absent when it falls among the samples beyond the histogram."),
    ("latency_threshold_seconds", ("measurement", "kind"), "The max latency the measurement is judged against."),
    ("latency_samples", ("measurement", "kind"), "Samples the measurement took (histogram and beyond)."),
    ("latency_overflow_samples", ("measurement", "kind"), "Samples above the histogram's last bucket."),
)
NAMES = tuple(PREFIX + name for name, _labels, _help in FAMILIES)
# The families of a measurement of kind ptp, written after the others when the report has one.
PTP_FAMILIES = (
    ("ptp_offset_seconds", ("measurement",), "PTP offset of the clock from its master (signed), from pmc or ptp4l's "
                                             "log."),
    ("ptp_path_delay_seconds", ("measurement",), "PTP mean path delay to the master."),
    ("ptp_offset_threshold_seconds", ("measurement",), "The largest |offset| the PTP measurement is judged against."),
    ("ptp_status", ("measurement", "status"),
     "Verdict of the PTP measurement (port, servo, offset, grandmaster): 1 on the series of its status, 0 on the "
     "others."),
)


def metric_names():
    """Every metric name of the latency and check families, in the order the textfile writes them."""
    return list(NAMES)


def ptp_metric_names():
    """The metric names of a PTP measurement, in the order the textfile writes them (after the others)."""
    return [PREFIX + name for name, _labels, _help in PTP_FAMILIES]


def run_time(value):
    """Seconds since the epoch of ``value``: a number, or UTC text such as ``2026-12-04T12:15:00Z``."""
    if isinstance(value, bool):
        value = None
    if isinstance(value, (int, float)) and math.isfinite(value) and value >= 0:
        return value
    if isinstance(value, str):
        try:
            return calendar.timegm(_time.strptime(value.strip(), TIME_FORMAT))
        except ValueError:
            pass
    raise OptionError(TIME_OPTION, value, "not the time of the run",
                      "give seconds since the epoch or UTC text such as 2026-12-04T12:15:00Z, as "
                      "now(utc=true, fmt='%s') writes it" % TIME_FORMAT)


def label_value(text):
    """A label value escaped as the exposition format asks (backslash, double quote, line feed)."""
    return str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def number(value):
    """A sample value as the exposition format writes it."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(value)


def _seconds(microseconds):
    return None if microseconds is None else int(microseconds) / 1000000.0


def _unique(keys):
    """Each key's position made unique: the second of a kind gets " (2)", the third " (3)"."""
    seen = {}
    out = []
    for key in keys:
        seen[key] = seen.get(key, 0) + 1
        out.append("" if seen[key] == 1 else " (%d)" % seen[key])
    return out


def samples(report, when):
    """``{family name (without PREFIX): [(labels, value)]}`` of one report; labels exclude host."""
    found = dict((name, []) for name, _labels, _help in FAMILIES + PTP_FAMILIES)
    counts = dict((status, 0) for status in STATUSES)
    counts.update(dict((k, v) for k, v in (report.get("counts") or {}).items() if k in counts))
    found["run_timestamp_seconds"].append(((), when))
    found["passed"].append(((), 1 if report.get("passed") else 0))
    for status in STATUSES:
        found["checks"].append(((("status", status),), int(counts[status] or 0)))
    checks = [item for item in report.get("checks") or [] if isinstance(item, dict)]
    suffixes = _unique([(str(item.get("subject")), str(item.get("check"))) for item in checks])
    for item, suffix in zip(checks, suffixes):
        for status in STATUSES:
            labels = (("subject", item.get("subject")), ("check", "%s%s" % (item.get("check"), suffix)),
                      ("status", status))
            found["check_status"].append((labels, 1 if item.get("status") == status else 0))
    items = [m for m in report.get("measurements") or [] if isinstance(m, dict)]
    summaries = [measurement_summary(m) for m in items if m.get("kind") != PTP_KIND]
    suffixes = _unique([(s["subject"], s["kind"]) for s in summaries])
    for summary, suffix in zip(summaries, suffixes):
        key = (("measurement", summary["subject"] + suffix), ("kind", summary["kind"]))
        for status in MEASUREMENT_STATUSES:
            found["measurement_status"].append((key + (("status", status),), 1 if summary["status"] == status else 0))
        for name, field in (("latency_max_seconds", "max_us"), ("latency_avg_seconds", "avg_us"),
                            ("latency_min_seconds", "min_us"), ("latency_threshold_seconds", "threshold_us")):
            if summary[field] is not None:
                found[name].append((key, _seconds(summary[field])))
        if summary["max_us"] is None and not summary["buckets"]:
            continue
        for text, fraction in QUANTILES:
            value = percentile(summary["buckets"], fraction, summary["overflows"])
            if value is not None:
                found["latency_quantile_seconds"].append((key + (("quantile", text),), _seconds(value)))
        found["latency_samples"].append((key, summary["samples"]))
        found["latency_overflow_samples"].append((key, summary["overflows"]))
    ptp = [ptp_summary(m) for m in items if m.get("kind") == PTP_KIND]
    for summary, suffix in zip(ptp, _unique([p["subject"] for p in ptp])):
        key = (("measurement", summary["subject"] + suffix),)
        for name, field in (("ptp_offset_seconds", "offset_ns"), ("ptp_path_delay_seconds", "path_delay_ns"),
                            ("ptp_offset_threshold_seconds", "max_offset_ns")):
            if summary[field] is not None:
                found[name].append((key, summary[field] / 1e9))
        for status in STATUSES:
            found["ptp_status"].append((key + (("status", status),), 1 if summary["status"] == status else 0))
    return found


def render_textfile(report, when):
    """The ``*.prom`` text of one host's report; ``when``: the run's time (see :func:`run_time`)."""
    host = str(report.get("host") or "")
    found = samples(report, run_time(when))
    lines = []
    for name, _labels, text in FAMILIES + PTP_FAMILIES:
        if not found[name]:
            continue
        lines.append("# HELP %s%s %s" % (PREFIX, name, text.replace("\\", "\\\\").replace("\n", "\\n")))
        lines.append("# TYPE %s%s gauge" % (PREFIX, name))
        for labels, value in found[name]:
            pairs = (("host", host),) + tuple(labels)
            lines.append("%s%s{%s} %s" % (PREFIX, name, ",".join('%s="%s"' % (k, label_value(v)) for k, v in pairs),
                                          number(value)))
    return "\n".join(lines) + "\n"
