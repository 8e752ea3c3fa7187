# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet report: one self-contained HTML page for the reports of many hosts (pure).

Input: the JSON documents rt_validate writes on each host (``build_report``
plus ``measurements``). Output: a page with no script and no external file:
a fleet table, then one section per host with its checks and one inline SVG
histogram per latency measurement (latency in us on a linear x axis, sample
count on a log y axis, the threshold as a vertical line). Where a host has
two or more measured histograms, one more SVG lays them over each other. A
guest's measurement also says, beside its latency, whether the guest is
tuned for real time and what it lacks (its ``tuning`` record).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import STATUSES

# A measurement is judged like a check, or is a reference that is not judged
# (the untuned probe guest, drawn beside the tuned one).
MEASUREMENT_STATUSES = STATUSES + ("baseline",)

# Plot area of one histogram, in SVG user units.
WIDTH = 640
HEIGHT = 220
LEFT = 56
RIGHT = 16
TOP = 18
BOTTOM = 40
SERIES_COLOURS = ("#1f6fb4", "#d9661f", "#2e8b57", "#8e44ad", "#b03a48", "#6b6b6b")
STATUS_COLOURS = {"pass": "#1e7d32", "fail": "#b71c1c", "warn": "#b26a00", "skip": "#5f6368"}

STYLE = """
body{font-family:sans-serif;margin:1.5em;color:#202124}
table{border-collapse:collapse;margin:.5em 0 1em}
th,td{border:1px solid #dadce0;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f1f3f4}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#1e7d32;font-weight:bold}.fail{color:#b71c1c;font-weight:bold}
.warn{color:#b26a00;font-weight:bold}.skip{color:#5f6368}.baseline{color:#1a4f8b}
.accepted{font-size:.85em;color:#5f6368;border-bottom:1px dotted #5f6368}
figure{margin:0 0 1.5em}figcaption{font-size:.9em;color:#5f6368}
section{border-top:2px solid #dadce0;margin-top:1.5em}
"""


def escape(text):
    """Text made safe for HTML element content and quoted attributes."""
    text = "" if text is None else str(text)
    for plain, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("'", "&#39;")):
        text = text.replace(plain, entity)
    return text


def anchor(host):
    """An id for a host's section (letters, digits, '-' and '_' only)."""
    return "host-" + "".join(c if c.isalnum() or c in "-_" else "_" for c in str(host))


def buckets(histogram):
    """The non-empty ``[latency_us, count]`` buckets, sorted by latency."""
    out = []
    for entry in histogram or []:
        try:
            latency, count = int(entry[0]), int(entry[1])
        except (TypeError, ValueError, IndexError):
            continue
        if count > 0:
            out.append((latency, count))
    return sorted(out)


def percentile(histogram, fraction, overflows=0):
    """The smallest latency (us) at or below which ``fraction`` of the samples lie.

    Samples beyond the histogram (``overflows``) count as higher than every
    bucket: when the percentile falls among them, None is returned (the
    histogram cannot say how high they were).
    """
    data = buckets(histogram)
    total = sum(count for _latency, count in data) + int(overflows or 0)
    if not total:
        return None
    needed = fraction * total
    seen = 0
    for latency, count in data:
        seen += count
        if seen >= needed:
            return latency
    return None


def measurement_summary(measurement):
    """``{subject, kind, status, threshold_us, max_us, avg_us, min_us, p999_us, samples, buckets, overflows,
    error, tuning}``; ``tuning`` is a guest's ``guest_tuning`` record (None for other measurements)."""
    parsed = measurement.get("cyclictest") or {}
    overflows = sum(parsed.get("overflows") or [])
    data = buckets(parsed.get("histogram"))
    p999 = percentile(data, 0.999, overflows) if data else None
    return {
        "subject": measurement.get("subject") or "measurement",
        "kind": measurement.get("kind") or "",
        "status": measurement.get("status") if measurement.get("status") in MEASUREMENT_STATUSES else "skip",
        "threshold_us": measurement.get("threshold_us"),
        "max_us": parsed.get("max_us"),
        "avg_us": parsed.get("avg_us"),
        "min_us": parsed.get("min_us"),
        "p999_us": p999,
        # the 99.9th percentile is among the overflows: all that is known is
        # that it is above the highest bucket
        "p999_above_us": data[-1][0] if data and overflows and p999 is None else None,
        "samples": sum(count for _latency, count in data) + overflows,
        "buckets": data,
        "overflows": overflows,
        "error": parsed.get("error"),
        "tuning": measurement.get("tuning") if isinstance(measurement.get("tuning"), dict) else None,
    }


def _tuning(summary):
    """`` &middot; tuned: yes``, ``no (what is missing)`` or ``unknown (why)`` of a guest; "" for others."""
    tuning = summary.get("tuning")
    if tuning is None:
        return ""
    missing = "; ".join(str(item) for item in tuning.get("missing") or [])
    if tuning.get("tuned") is True:
        word, text = "yes", "tuned: yes"
    elif tuning.get("tuned") is False:
        word, text = "no", "tuned: no (missing: %s)" % missing
    else:
        word, text = "unknown", "tuned: unknown (%s)" % missing
    return ' &middot; <span class="tuning" data-tuned="%s">%s</span>' % (word, escape(text))


def _accepted(item):
    """A note after the result of a failure that rt_validate_accept accepted, its message as the tooltip."""
    if item.get("accepted") is not True:
        return ""
    return ' <span class="accepted" title="%s">accepted (rt_validate_accept)</span>' % escape(item.get("message"))


def _number(value, unit=" us"):
    return "&ndash;" if value is None else "%s%s" % (escape(value), unit)


def _p999(summary):
    if summary["p999_us"] is None and summary.get("p999_above_us") is not None:
        return "&gt; %d us" % summary["p999_above_us"]
    return _number(summary["p999_us"])


def _y(count, top_log):
    """y of a count on the log axis (count 1 sits on the baseline's first decade)."""
    plot = HEIGHT - TOP - BOTTOM
    if count <= 0:
        return HEIGHT - BOTTOM
    return HEIGHT - BOTTOM - plot * (math.log10(count) + 1) / (top_log + 1)


def _axes(x_max, top_log, threshold):
    """Frame, ticks and labels of a plot: (svg parts, x of a latency, threshold parts to draw last)."""
    plot_w = WIDTH - LEFT - RIGHT

    def x_of(latency):
        return LEFT + plot_w * float(latency) / x_max

    parts = ['<rect x="%d" y="%d" width="%d" height="%d" fill="#fff" stroke="#9aa0a6"/>'
             % (LEFT, TOP, plot_w, HEIGHT - TOP - BOTTOM)]
    for decade in range(0, top_log + 1):
        y = _y(10 ** decade, top_log)
        parts.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eceff1"/>' % (LEFT, WIDTH - RIGHT, y, y))
        parts.append('<text x="%d" y="%.1f" font-size="10" text-anchor="end">1e%d</text>' % (LEFT - 4, y + 3, decade))
    step = _tick_step(x_max)
    tick = 0
    while tick <= x_max:
        x = x_of(tick)
        parts.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#9aa0a6"/>'
                     % (x, x, HEIGHT - BOTTOM, HEIGHT - BOTTOM + 4))
        parts.append('<text x="%.1f" y="%d" font-size="10" text-anchor="middle">%d</text>'
                     % (x, HEIGHT - BOTTOM + 15, tick))
        tick += step
    parts.append('<text x="%d" y="%d" font-size="11" text-anchor="middle">latency (us)</text>'
                 % (LEFT + plot_w // 2, HEIGHT - 6))
    parts.append('<text x="12" y="%d" font-size="11" text-anchor="middle" transform="rotate(-90 12 %d)">'
                 'samples (log)</text>' % (TOP + (HEIGHT - TOP - BOTTOM) // 2, TOP + (HEIGHT - TOP - BOTTOM) // 2))
    marks = []
    if threshold is not None:
        beyond = threshold > x_max
        x = WIDTH - RIGHT if beyond else x_of(threshold)
        marks.append('<line class="threshold" data-us="%d" data-beyond-axis="%s" x1="%.1f" x2="%.1f" y1="%d" y2="%d" '
                     'stroke="#b71c1c" stroke-width="2" stroke-dasharray="6 3"/>'
                     % (threshold, "true" if beyond else "false", x, x, TOP - 4, HEIGHT - BOTTOM))
        # The label sits above the plot, clear of bars and legend, on the side with room for it.
        right = x > LEFT + plot_w * 0.7
        marks.append('<text x="%.1f" y="%d" font-size="10" fill="#b71c1c" text-anchor="%s">threshold %d us%s</text>'
                     % (x - 3 if right else x + 3, TOP - 6, "end" if right else "start", threshold,
                        " (beyond the axis) &#8594;" if beyond else ""))
    return parts, x_of, marks


def _tick_step(x_max):
    """A step of 1, 2 or 5 times a power of ten that gives at most ten ticks."""
    power = 1
    while True:
        for factor in (1, 2, 5):
            if x_max / float(factor * power) <= 10:
                return factor * power
        power *= 10


def _scale(series, threshold):
    """x range (us) and the top decade of the y axis for some series of buckets.

    The x axis covers the buckets, and the threshold when it is at most
    twice the highest bucket: a threshold far above the data (a loose one
    on a test machine) would squeeze every bar against the y axis, so it is
    drawn at the right edge instead, labelled as beyond the axis.
    """
    latencies = [latency for data in series for latency, _count in data]
    counts = [count for data in series for _latency, count in data]
    highest = max(latencies + [1]) + 1
    if threshold is not None and threshold <= 2 * highest:
        highest = max(highest, threshold)
    x_max = int(math.ceil(highest * 1.05))
    top_log = int(math.ceil(math.log10(max(counts + [10]))))
    return x_max, max(top_log, 1)


def histogram_svg(summary, index=0):
    """One measurement's histogram: one ``rect.bar`` per non-empty bucket."""
    threshold = summary.get("threshold_us")
    threshold = int(threshold) if threshold is not None else None
    data = summary["buckets"]
    x_max, top_log = _scale([data], threshold)
    parts, x_of, marks = _axes(x_max, top_log, threshold)
    bar_w = max((WIDTH - LEFT - RIGHT) / float(x_max), 1.0)
    colour = SERIES_COLOURS[index % len(SERIES_COLOURS)]
    for latency, count in data:
        y = _y(count, top_log)
        parts.append('<rect class="bar" data-us="%d" data-count="%d" x="%.1f" y="%.1f" width="%.1f" height="%.1f" '
                     'fill="%s"><title>%d us: %d samples</title></rect>'
                     % (latency, count, x_of(latency), y, bar_w, HEIGHT - BOTTOM - y, colour, latency, count))
    if not data:
        parts.append('<text x="%d" y="%d" font-size="12">no histogram: %s</text>'
                     % (LEFT + 10, TOP + 30, escape(summary.get("error") or "nothing was measured")))
    parts.extend(marks)
    return ('<svg class="histogram" data-subject="%s" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'viewBox="0 0 %d %d" role="img" aria-label="%s">%s</svg>'
            % (escape(summary["subject"]), WIDTH, HEIGHT, WIDTH, HEIGHT,
               escape("latency histogram of " + summary["subject"]), "".join(parts)))


def overlay_svg(summaries, threshold):
    """Several measurements' histograms as step lines over each other, with a legend."""
    series = [s["buckets"] for s in summaries]
    x_max, top_log = _scale(series, threshold)
    parts, x_of, marks = _axes(x_max, top_log, threshold)
    # the legend's left edge, far enough in for the longest label (about
    # 6.5 units per character at font size 11) to end inside the plot
    legend = WIDTH - RIGHT - max(230, 20 + int(6.5 * max(len(s["subject"]) for s in summaries)))
    for index, summary in enumerate(summaries):
        colour = SERIES_COLOURS[index % len(SERIES_COLOURS)]
        points = []
        for latency, count in summary["buckets"]:
            y = _y(count, top_log)
            points.append("%.1f,%.1f %.1f,%.1f" % (x_of(latency), y, x_of(latency + 1), y))
        parts.append('<polyline class="series" data-subject="%s" fill="none" stroke="%s" stroke-width="2" '
                     'points="%s"/>' % (escape(summary["subject"]), colour, " ".join(points)))
        parts.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d" font-size="11">%s'
                     '</text>' % (legend, TOP + 6 + 14 * index, colour, legend + 14,
                                  TOP + 15 + 14 * index, escape(summary["subject"])))
    parts.extend(marks)
    return ('<svg class="overlay" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
            'role="img" aria-label="measurements overlaid">%s</svg>' % (WIDTH, HEIGHT, WIDTH, HEIGHT, "".join(parts)))


def _status(status):
    status = status if status in MEASUREMENT_STATUSES else "skip"
    return '<span class="%s">%s</span>' % (status, status.upper())


def _domains(report):
    names = []
    for item in report.get("checks") or []:
        subject = str(item.get("subject") or "")
        if subject.startswith("domain ") and subject[7:] not in names:
            names.append(subject[7:])
    return names


def host_summary(report):
    """What the fleet table shows of one host's report."""
    counts = dict((status, 0) for status in STATUSES)
    counts.update(report.get("counts") or {})
    return {
        "host": str(report.get("host") or "?"),
        "passed": bool(report.get("passed")),
        "counts": counts,
        "domains": _domains(report),
        "measurements": [measurement_summary(m) for m in report.get("measurements") or []],
        "checks": list(report.get("checks") or []),
    }


def render_html(reports, title="rt_validate fleet report", generated=""):
    """The whole page for a list of host reports (JSON documents of rt_validate)."""
    hosts = sorted((host_summary(r) for r in reports or []), key=lambda h: h["host"])
    failed = [h["host"] for h in hosts if not h["passed"]]
    out = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
           '<title>%s</title><style>%s</style></head><body>' % (escape(title), STYLE),
           '<h1>%s</h1>' % escape(title),
           '<p class="summary">%d host(s), %s%s</p>' % (
               len(hosts), _status("fail") + " on " + escape(", ".join(failed)) if failed else _status("pass"),
               (" &middot; generated " + escape(generated)) if generated else "")]
    out.append('<table class="fleet"><thead><tr><th>Host</th><th>Verdict</th><th>Domains</th>'
               + "".join('<th>%s</th>' % s for s in STATUSES)
               + '<th>Measurements (max / avg / 99.9th percentile)</th></tr></thead><tbody>')
    for host in hosts:
        lines = []
        for m in host["measurements"]:
            values = (escape(m["subject"]), _number(m["max_us"]), _number(m["avg_us"]), _p999(m),
                      _status(m["status"]), _tuning(m))
            lines.append('%s: %s / %s / %s %s%s' % values)
        out.append('<tr class="host" data-host="%s"><td><a href="#%s">%s</a></td><td>%s</td><td>%s</td>%s<td>%s</td>'
                   '</tr>' % (escape(host["host"]), anchor(host["host"]), escape(host["host"]),
                              _status("pass" if host["passed"] else "fail"),
                              escape(", ".join(host["domains"])) or "&ndash;",
                              "".join('<td class="num">%d</td>' % int(host["counts"].get(s) or 0) for s in STATUSES),
                              "<br>".join(lines) or "&ndash;"))
    out.append('</tbody></table>')
    for host in hosts:
        out.append('<section id="%s"><h2>%s %s</h2>' % (anchor(host["host"]), escape(host["host"]),
                                                        _status("pass" if host["passed"] else "fail")))
        out.append('<table class="checks"><thead><tr><th>Subject</th><th>Check</th><th>Expected</th><th>Observed</th>'
                   '<th>Result</th></tr></thead><tbody>')
        for item in host["checks"]:
            out.append('<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>' % tuple(
                [escape(item.get(k)) for k in ("subject", "check", "expected", "observed")]
                + [_status(item.get("status")) + _accepted(item)]))
        out.append('</tbody></table>')
        for index, m in enumerate(host["measurements"]):
            out.append('<figure>%s<figcaption>%s: %s samples, max %s, avg %s, min %s, 99.9th percentile %s%s%s'
                       '</figcaption></figure>' % (
                           histogram_svg(m, index), escape(m["subject"]), m["samples"], _number(m["max_us"]),
                           _number(m["avg_us"]), _number(m["min_us"]), _p999(m),
                           ", %d beyond the histogram" % m["overflows"] if m["overflows"] else "", _tuning(m)))
        measured = [m for m in host["measurements"] if m["buckets"]]
        if len(measured) > 1:
            thresholds = [m["threshold_us"] for m in measured if m["threshold_us"] is not None]
            out.append('<figure>%s<figcaption>%s overlaid</figcaption></figure>' % (
                overlay_svg(measured, int(min(thresholds)) if thresholds else None),
                escape(" and ".join(m["subject"] for m in measured))))
        out.append('</section>')
    out.append('</body></html>\n')
    return "".join(out)
