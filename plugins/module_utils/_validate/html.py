# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet report: one self-contained HTML page for the reports of many hosts (pure).

Input: the JSON documents rt_validate writes on each host (``build_report``
plus ``measurements``), and optionally the history of runs
(``history.update_history``, this run included). Output: a page with no
script and no external file, built to stay usable at hundreds of hosts:

- a fleet summary at the top: how many hosts fail, warn and pass (with a
  bar of the three), the failing hosts by name, and per kind of
  measurement the distribution of each host's max latency across the
  hosts (min, p50, p90, p99, max; see ``fleet``);
- with a history, "Worse since the previous run": each check that fails
  now and did not before, and each max latency that grew by more than the
  regression factor, naming host, what, before and now;
- the fleet table, one row per host, failing hosts first, then warning,
  then passing (hosts with something worse first inside each group), with
  a small SVG of each host's trend over its last runs when there is a
  history;
- one section per host, in the same order (the failing hosts' right under
  the summary, the others after the table), folded (``<details>``) unless
  the host fails or the page has at most :data:`OPEN_ALL_UP_TO` hosts: its
  checks and one inline SVG histogram per latency measurement (``svg``);
  where a host has two or more measured histograms, one more SVG lays them
  over each other. A guest's measurement also
  says, beside its latency, whether the guest is tuned for real time and
  what it lacks (its ``tuning`` record).

A measurement of kind ``ptp`` (``ptp.ptp_measurement``: the offset from
the PTP master) is no latency: it gets a line in the host's row, a table
in its section and, across hosts, a row of its own in the summary; a page
without one is the same as before.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import itertools

from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import STATUSES
from ansible_collections.realtime.virt.plugins.module_utils._validate.fleet import (
    FLEET_PERCENTILES, PTP_KIND, fleet_summary, host_maxima, order, ptp_fleet, verdict)
from ansible_collections.realtime.virt.plugins.module_utils._validate.history import (
    DEFAULT_FACTOR, check_history, regressions, trend)
from ansible_collections.realtime.virt.plugins.module_utils._validate.svg import (
    STYLE as SVG_STYLE, SERIES_COLOURS, Defs, escape, histogram_svg, overlay_svg, trend_svg, verdict_bar_svg)

# A page of at most this many hosts shows every host's section open; a larger one folds all but the failing hosts'.
OPEN_ALL_UP_TO = 10
# A measurement is judged like a check, or is a reference that is not judged
# (the untuned probe guest, drawn beside the tuned one).
MEASUREMENT_STATUSES = STATUSES + ("baseline",)

STYLE = (
    "body{font-family:sans-serif;margin:1.5em;color:#202124}"
    "table{border-collapse:collapse;margin:.5em 0 1em}"
    "th,td{border:1px solid #dadce0;padding:.25em .5em;text-align:left;vertical-align:top}"
    "th{background:#f1f3f4}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    ".pass{color:#1e7d32;font-weight:bold}.fail{color:#b71c1c;font-weight:bold}"
    ".warn{color:#b26a00;font-weight:bold}.skip{color:#5f6368}.baseline{color:#1a4f8b}"
    ".accepted{font-size:.85em;color:#5f6368;border-bottom:1px dotted #5f6368}"
    "figure{margin:0 0 1.5em}figcaption{font-size:.9em;color:#5f6368}"
    "section{border-top:2px solid #dadce0;margin-top:1em}summary{cursor:pointer;padding:.3em 0}"
    "summary h2{display:inline;font-size:1.2em;margin:0 .5em 0 0}"
    "tr[data-verdict=fail]>td:first-child{border-left:6px solid #b71c1c}"
    "tr[data-verdict=warn]>td:first-child{border-left:6px solid #b26a00}"
    ".worse{color:#b71c1c;font-size:.85em}.note{font-size:.9em;color:#5f6368}"
    + SVG_STYLE
)


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


def ptp_summary(measurement):
    """``{subject, status, offset_ns, path_delay_ns, port_state, servo, max_offset_ns}`` of a ``ptp`` measurement."""
    out = {"subject": measurement.get("subject") or "ptp",
           "status": measurement.get("status") if measurement.get("status") in STATUSES else "skip"}
    for key in ("offset_ns", "path_delay_ns", "max_offset_ns"):
        value = measurement.get(key)
        out[key] = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    out["port_state"] = measurement.get("port_state")
    out["servo"] = measurement.get("servo")
    return out


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


def _ns(value):
    return "&ndash;" if value is None else "%s ns" % escape("%g" % value)


def _p999(summary):
    if summary["p999_us"] is None and summary.get("p999_above_us") is not None:
        return "&gt; %d us" % summary["p999_above_us"]
    return _number(summary["p999_us"])


def _status(status):
    status = status if status in MEASUREMENT_STATUSES else "skip"
    return '<span class="%s">%s</span>' % (status, status.upper())


def _link(host):
    return '<a href="#%s">%s</a>' % (anchor(host), escape(host))


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
    items = [m for m in report.get("measurements") or [] if isinstance(m, dict)]
    measurements = [measurement_summary(m) for m in items if m.get("kind") != PTP_KIND]
    return {
        "host": str(report.get("host") or "?"),
        "passed": bool(report.get("passed")),
        "verdict": verdict(report),
        "counts": counts,
        "domains": _domains(report),
        "measurements": measurements,
        "maxima": host_maxima(measurements),
        "checks": list(report.get("checks") or []),
        "ptp": [ptp_summary(m) for m in items if m.get("kind") == PTP_KIND],
    }


def _summary(hosts, generated):
    """The top of the page: verdict counts and bar, the failing hosts, the latency distribution across hosts."""
    fleet = fleet_summary(hosts)
    counts = fleet["counts"]
    out = ['<div class="fleet-summary"><p class="summary" data-hosts="%d" data-fail="%d" data-warn="%d" '
           'data-pass="%d">%d host(s): %s%s</p>' % (
               fleet["hosts"], counts["fail"], counts["warn"], counts["pass"], fleet["hosts"],
               ", ".join('<span class="%s">%d %s</span>' % (name, counts[name], name) for name in ("fail", "warn", "pass")),
               (" &middot; generated " + escape(generated)) if generated else ""),
           verdict_bar_svg(counts)]
    failing = [h["host"] for h in hosts if h["verdict"] == "fail"]
    if failing:
        out.append('<p class="failing">Failing: %s</p>' % ", ".join(_link(name) for name in failing))
    if fleet["latency"]:
        out.append('<table class="latency"><caption class="note">Each host\'s max latency, across the hosts '
                   '(nearest rank)</caption><thead><tr><th>Measurement kind</th><th>Hosts</th><th>min</th>%s'
                   '<th>max</th></tr></thead><tbody>' % "".join("<th>p%d</th>" % p for p in FLEET_PERCENTILES))
        for row in fleet["latency"]:
            values = [row["min"]] + [row["p%d" % p] for p in FLEET_PERCENTILES]
            out.append('<tr data-kind="%s"><td>%s</td><td class="num">%d</td>%s<td class="num">%d us (%s)</td></tr>'
                       % (escape(row["kind"]), escape(row["kind"]), row["hosts"],
                          "".join('<td class="num">%d us</td>' % v for v in values), row["max"],
                          _link(row["max_host"])))
        out.append('</tbody></table>')
    ptp = ptp_fleet(hosts)
    if ptp:
        out.append('<table class="ptp-fleet"><caption class="note">Each host\'s largest |PTP offset from master|, '
                   'across the hosts (nearest rank)</caption><thead><tr><th>Hosts</th><th>min</th>%s<th>max</th>'
                   '</tr></thead><tbody><tr><td class="num">%d</td>%s<td class="num">%s ns (%s)</td></tr></tbody>'
                   '</table>' % ("".join("<th>p%d</th>" % p for p in FLEET_PERCENTILES), ptp["hosts"],
                                 "".join('<td class="num">%s ns</td>' % escape("%g" % ptp[k])
                                         for k in ["min"] + ["p%d" % p for p in FLEET_PERCENTILES]),
                                 escape("%g" % ptp["max"]), _link(ptp["max_host"])))
    out.append('</div>')
    return "".join(out)


def _worse(found, factor, compared):
    """The list of what got worse since the previous run (``compared``: whether any host had one)."""
    out = ['<div class="worse-list" id="worse"><h2>Worse since the previous run</h2>']
    if not compared:
        out.append('<p class="note">No host has a previous run in the history yet: nothing to compare.</p></div>')
        return "".join(out)
    if not found:
        out.append('<p class="note">Nothing got worse since the previous run (no newly failing check, no max '
                   'latency above %s times the previous one).</p></div>' % escape("%g" % factor))
        return "".join(out)
    out.append('<table class="regressions"><thead><tr><th>Host</th><th>What</th><th>Before</th><th>Now</th></tr>'
               '</thead><tbody>')
    for item in found:
        before, now = item["before"], item["now"]
        if item["kind"] == "latency":
            before, now = "%d us" % before, "%d us (%.1fx)" % (now, now / float(max(before, 1)))
        out.append('<tr data-host="%s" data-kind="%s"><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>' % (
            escape(item["host"]), item["kind"], _link(item["host"]), escape(item["what"]), escape(before),
            escape(now)))
    out.append('</tbody></table><p class="note">A check that fails now and did not before; a max latency above '
               '%s times the previous run\'s.</p></div>' % escape("%g" % factor))
    return "".join(out)


def _row(host, runs, worse, defs):
    lines = []
    for m in host["measurements"]:
        values = (escape(m["subject"]), _number(m["max_us"]), _number(m["avg_us"]), _p999(m),
                  _status(m["status"]), _tuning(m))
        lines.append('%s: %s / %s / %s %s%s' % values)
    for p in host["ptp"]:
        lines.append('%s: PTP offset %s, path delay %s, %s %s' % (
            escape(p["subject"]), _ns(p["offset_ns"]), _ns(p["path_delay_ns"]),
            escape(" ".join(str(v) for v in (p["port_state"], p["servo"]) if v) or "no answer"), _status(p["status"])))
    return ('<tr class="host" data-host="%s" data-verdict="%s" data-passed="%s"><td>%s%s</td><td>%s</td><td>%s</td>'
            '%s<td>%s</td>%s</tr>' % (
                escape(host["host"]), host["verdict"], "true" if host["passed"] else "false", _link(host["host"]),
                ' <span class="worse">worse</span>' if host["host"] in worse else "", _status(host["verdict"]),
                escape(", ".join(host["domains"])) or "&ndash;",
                "".join('<td class="num">%d</td>' % int(host["counts"].get(s) or 0) for s in STATUSES),
                "<br>".join(lines) or "&ndash;",
                "" if runs is None else "<td>%s</td>" % trend_svg(trend(runs), defs)))


def _section(host, idents, defs, folded):
    """A host's section, folded (``<details>`` closed) when ``folded``; its plots' axes go to ``defs``."""
    counts = ", ".join("%d %s" % (int(host["counts"].get(s) or 0), s) for s in STATUSES
                       if int(host["counts"].get(s) or 0))
    out = ['<section id="%s" data-host="%s" data-verdict="%s"><details%s><summary><h2>%s %s</h2>'
           '<span class="note">%s</span></summary>' % (
               anchor(host["host"]), escape(host["host"]), host["verdict"],
               "" if folded else " open", escape(host["host"]), _status(host["verdict"]),
               escape(counts))]
    out.append('<table class="checks"><thead><tr><th>Subject</th><th>Check</th><th>Expected</th><th>Observed</th>'
               '<th>Result</th></tr></thead><tbody>')
    # rows without their optional end tags (HTML5): a few hundred bytes less per host
    for item in host["checks"]:
        status = item.get("status") if item.get("status") in STATUSES else "skip"
        out.append('<tr><td>%s<td>%s<td>%s<td>%s<td class="%s">%s%s' % tuple(
            [escape(item.get(k)) for k in ("subject", "check", "expected", "observed")]
            + [status, status.upper(), _accepted(item)]))
    out.append('</tbody></table>')
    if host["ptp"]:
        out.append('<table class="ptp"><thead><tr><th>PTP</th><th>Offset from master</th><th>Path delay</th>'
                   '<th>Port</th><th>Servo</th><th>Bound</th><th>Result</th></tr></thead><tbody>')
        for p in host["ptp"]:
            out.append('<tr><td>%s<td class="num">%s<td class="num">%s<td>%s<td>%s<td class="num">%s<td>%s' % (
                escape(p["subject"]), _ns(p["offset_ns"]), _ns(p["path_delay_ns"]),
                escape(p["port_state"] or "no answer"), escape(p["servo"] or "?"),
                _ns(p["max_offset_ns"]), _status(p["status"])))
        out.append('</tbody></table>')
    names = []
    for index, m in enumerate(host["measurements"]):
        names.append("b%d" % next(idents))
        out.append('<figure>%s<figcaption>%s: %s samples, max %s, avg %s, min %s, 99.9th percentile %s%s%s'
                   '</figcaption></figure>' % (
                       histogram_svg(m, names[-1], defs, index), escape(m["subject"]), m["samples"], _number(m["max_us"]),
                       _number(m["avg_us"]), _number(m["min_us"]), _p999(m),
                       ", %d beyond the histogram" % m["overflows"] if m["overflows"] else "", _tuning(m)))
    measured = [(index, m, name) for index, (m, name) in enumerate(zip(host["measurements"], names)) if m["buckets"]]
    if len(measured) > 1:
        thresholds = [m["threshold_us"] for _index, m, _name in measured if m["threshold_us"] is not None]
        threshold = int(min(thresholds)) if thresholds else None
        summaries = [m for _index, m, _name in measured]
        out.append('<figure>%s<figcaption>%s overlaid</figcaption></figure>' % (
            overlay_svg(summaries, [name for _index, _m, name in measured], threshold, defs),
            " and ".join('<span class="k%d">%s</span>' % (index % len(SERIES_COLOURS), escape(m["subject"]))
                         for index, m, _name in measured)))
    out.append('</details></section>')
    return "".join(out)


def render_html(reports, title="rt_validate fleet report", generated="", history=None, factor=DEFAULT_FACTOR):
    """The whole page for a list of host reports (JSON documents of rt_validate).

    ``history``: the history with this run in it (``history.update_history``),
    or None for a page without trends and without "Worse since the previous
    run"; ``factor``: the growth of a max latency that counts as worse.
    """
    hosts = [host_summary(r) for r in reports or []]
    past = check_history(history) if history is not None else None
    found = regressions(past, [h["host"] for h in hosts], factor) if past is not None else []
    worse = set(item["host"] for item in found)
    hosts = order(hosts, worse)
    rank = dict((h["host"], index) for index, h in enumerate(hosts))
    found.sort(key=lambda item: rank[item["host"]])
    body = [_summary(hosts, generated)]
    if past is not None:
        body.append(_worse(found, factor, any(len(past["hosts"].get(h["host"]) or []) > 1 for h in hosts)))
    failing = [host for host in hosts if host["verdict"] == "fail"]
    idents, defs, sections = itertools.count(1), Defs(), []
    for host in hosts:
        sections.append(_section(host, idents, defs, host["verdict"] != "fail" and len(hosts) > OPEN_ALL_UP_TO))
    # the failing hosts' sections (open) right under the summary, the others after the table
    if failing:
        body.append('<h2 class="group">Failing hosts</h2>')
    body.extend(sections[:len(failing)])
    body.append('<h2 class="group">All hosts</h2><table class="fleet"><thead><tr><th>Host</th><th>Verdict</th>'
                '<th>Domains</th>' + "".join('<th>%s</th>' % s for s in STATUSES)
                + '<th>Measurements (max / avg / 99.9th percentile)</th>%s</tr></thead><tbody>'
                % ('<th>Last runs (max latency)</th>' if past is not None else ""))
    for host in hosts:
        body.append(_row(host, None if past is None else past["hosts"].get(host["host"], []), worse, defs))
    body.append('</tbody></table>')
    body.extend(sections[len(failing):])
    return "".join(['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
                    '<title>%s</title><style>%s</style></head><body>' % (escape(title), STYLE),
                    defs.svg(), '<h1>%s</h1>' % escape(title)] + body + ['</body></html>\n'])
