# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The inline SVG of the fleet page, drawn small (pure).

A fleet page holds hundreds of plots, so each is drawn with as few bytes
as the picture needs:

- Looks come from the page's style sheet (classes), never from attributes
  repeated on every element.
- A histogram's bars are one ``<path class="bars">`` on the pixel grid:
  one column per non-empty bucket, from its latency to the next
  microsecond, in whole units and at least one wide; where several buckets
  fall in one pixel (more than one microsecond per pixel), the column is
  as high as the largest count among them. Empty buckets draw nothing.
  Other coordinates have at most one decimal.
- The exact buckets are not repeated in the page: they are in each host's
  JSON report, which the role keeps beside the page.
- The axes (frame, ticks, labels, titles) and the threshold's line and
  label are drawn once per page for each scale used, in a hidden ``<svg>``
  at the top (:class:`Defs`); each plot refers to them with ``<use>``. The
  x axis's end is rounded up to half a tick step, so that the plots of
  similar hosts share their axes.
- The overlay of a host's histograms refers to their bars too, scaled to
  its axes (``<use>`` with a transform), and strokes them.

Geometry: latency in us on a linear x axis, sample count on a log y axis,
the threshold as a dashed vertical line (at the right edge, labelled as
beyond the axis, when it is more than twice the highest bucket).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

# Plot area of one histogram, in SVG user units.
WIDTH = 640
HEIGHT = 220
LEFT = 56
RIGHT = 16
TOP = 18
BOTTOM = 40
BASE = HEIGHT - BOTTOM
PLOT_W = WIDTH - LEFT - RIGHT
PLOT_H = HEIGHT - TOP - BOTTOM
SERIES_COLOURS = ("#1f6fb4", "#d9661f", "#2e8b57", "#8e44ad", "#b03a48", "#6b6b6b")
# A run's trend: one point per run, at most this wide and high.
TREND_W = 124
TREND_H = 28

STYLE = (
    # Rules match the elements a <use> draws by their own classes only (not by their place under
    # another element), and the plot's font is inherited through the <use>.
    "svg.histogram,svg.overlay{width:%dpx;height:%dpx;display:block;font-size:10px;fill:#202124}"
    ".xa{text-anchor:middle}.ya{text-anchor:end}.at{font-size:11px;text-anchor:middle}"
    ".frame{fill:#fff;stroke:#9aa0a6}.grid{stroke:#eceff1}.tick{stroke:#9aa0a6}"
    ".tline{stroke:#b71c1c;stroke-width:2;stroke-dasharray:6 3}text.tl,text.tr{fill:#b71c1c}text.tr{text-anchor:end}"
    ".series{fill:none;stroke-width:2}.trend{vertical-align:middle;width:%dpx;height:%dpx}.trend polyline{fill:none;stroke:#9aa0a6}"
    ".v-pass{fill:#1e7d32}.v-warn{fill:#b26a00}.v-fail{fill:#b71c1c}"
    ".m-pass{marker:url(#rtv-mpass)}.m-warn{marker:url(#rtv-mwarn)}.m-fail{marker:url(#rtv-mfail)}"
    ".trend .m-pass,.trend .m-warn,.trend .m-fail{stroke:none}"
    "figcaption span[class^=k]::before{content:'';display:inline-block;width:.8em;height:.8em;margin:0 .3em 0 .2em}"
    % (WIDTH, HEIGHT, TREND_W, TREND_H)
    + "".join(".c%d{fill:%s}.o%d{stroke:%s}.k%d::before{background:%s}" % (i, c, i, c, i, c)
              for i, c in enumerate(SERIES_COLOURS))
)


def escape(text):
    """Text made safe for HTML element content and quoted attributes."""
    text = "" if text is None else str(text)
    for plain, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("'", "&#39;")):
        text = text.replace(plain, entity)
    return text


def num(value):
    """A coordinate with at most one decimal, without a trailing ``.0``."""
    text = "%.1f" % value
    return text[:-2] if text.endswith(".0") else ("0" if text == "-0.0" else text)


def _y(count, top_log):
    """y of a count on the log axis (count 1 sits on the baseline's first decade)."""
    if count <= 0:
        return BASE
    return BASE - PLOT_H * (math.log10(count) + 1) / (top_log + 1)


def tick_step(x_max):
    """A step of 1, 2 or 5 times a power of ten that gives at most ten ticks."""
    power = 1
    while True:
        for factor in (1, 2, 5):
            if x_max / float(factor * power) <= 10:
                return factor * power
        power *= 10


def scale(series, threshold):
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
    # up to half a tick step: plots of similar hosts share one x axis (Defs)
    x_max = scale_x(int(math.ceil(highest * 1.05)))
    top_log = int(math.ceil(math.log10(max(counts + [10]))))
    return x_max, max(top_log, 1)


def x_of(latency, x_max):
    """x of a latency (us) on an axis from 0 to ``x_max``."""
    return LEFT + PLOT_W * float(latency) / x_max


class Defs(object):
    """What a page's plots refer to, drawn once for the page in a hidden ``<svg>`` (:meth:`svg`).

    - ``rtv-y<top decade>``: the frame, the decades of the log y axis and
      the axis titles;
    - ``rtv-x<x_max>``: the ticks of an x axis and their labels;
    - ``rtv-t<threshold>`` (beyond the axis, at the right edge) or
      ``rtv-t<threshold>-<x_max>``: the threshold's dashed line and label;
    - ``rtv-m<verdict>``: the square that marks a run of that verdict on a
      host's trend.
    """

    def __init__(self):
        self.y_axes, self.x_axes, self.thresholds = set(), set(), set()
        self.trends = False

    def axes(self, x_max, top_log, threshold):
        """The ``<use>`` of a plot's axes, and of its threshold (``class="threshold"``, ``data-us``)."""
        self.y_axes.add(top_log)
        self.x_axes.add(x_max)
        uses = '<use href="#rtv-y%d"/><use href="#rtv-x%d"/>' % (top_log, x_max)
        if threshold is None:
            return uses, ""
        beyond = threshold > x_max
        self.thresholds.add((threshold, None if beyond else x_max))
        return uses, '<use class="threshold" data-us="%d" data-beyond-axis="%s" href="#rtv-t%d%s"/>' % (
            threshold, "true" if beyond else "false", threshold, "" if beyond else "-%d" % x_max)

    def svg(self):
        """The hidden ``<svg>`` of every axis and threshold used ("" when no plot used one)."""
        if not self.y_axes and not self.trends:
            return ""
        parts = [self._y_axis(top_log) for top_log in sorted(self.y_axes)]
        if self.trends:
            parts.extend('<marker id="rtv-m%s" class="v-%s" markerWidth="4" markerHeight="4" refX="2" refY="2" '
                         'markerUnits="userSpaceOnUse"><rect width="4" height="4"/></marker>' % (state, state)
                         for state in ("fail", "warn", "pass"))
        for x_max in sorted(self.x_axes):
            ticks = range(0, x_max + 1, tick_step(x_max))
            parts.append('<g id="rtv-x%d" class="xa"><path class="tick" d="%s"/>%s</g>' % (
                x_max, "".join("M%s %dv4" % (num(x_of(t, x_max)), BASE) for t in ticks),
                "".join('<text x="%s" y="%d">%d</text>' % (num(x_of(t, x_max)), BASE + 15, t) for t in ticks)))
        for threshold, x_max in sorted(self.thresholds, key=lambda key: (key[0], key[1] or 0)):
            x = WIDTH - RIGHT if x_max is None else x_of(threshold, x_max)
            # The label sits above the plot, clear of bars and legend, on the side with room for it.
            right = x > LEFT + PLOT_W * 0.7
            parts.append('<g id="rtv-t%d%s"><line class="tline" x1="%s" x2="%s" y1="%d" y2="%d"/>'
                         '<text class="%s" x="%s" y="%d">threshold %d us%s</text></g>' % (
                             threshold, "" if x_max is None else "-%d" % x_max, num(x), num(x), TOP - 4, BASE,
                             "tr" if right else "tl", num(x - 3 if right else x + 3), TOP - 6, threshold,
                             " (beyond the axis) &#8594;" if x_max is None else ""))
        return ('<svg class="defs" width="0" height="0" style="position:absolute" aria-hidden="true"><defs>%s</defs>'
                '</svg>' % "".join(parts))

    @staticmethod
    def _y_axis(top_log):
        lines, labels = [], []
        for decade in range(0, top_log + 1):
            y = _y(10 ** decade, top_log)
            lines.append("M%d %sH%d" % (LEFT, num(y), WIDTH - RIGHT))
            labels.append('<text class="ya" x="%d" y="%s">1e%d</text>' % (LEFT - 4, num(y + 3), decade))
        middle = TOP + PLOT_H // 2
        return ('<g id="rtv-y%d"><rect class="frame" x="%d" y="%d" width="%d" height="%d"/><path class="grid" d="%s"/>'
                '%s<text class="at" x="%d" y="%d">latency (us)</text><text class="at" x="12" y="%d" '
                'transform="rotate(-90 12 %d)">samples (log)</text></g>'
                % (top_log, LEFT, TOP, PLOT_W, PLOT_H, "".join(lines), "".join(labels), LEFT + PLOT_W // 2,
                   HEIGHT - 6, middle, middle))


def bars_path(data, x_max, top_log):
    """The ``d`` of the bars: one column per bucket on the pixel grid, the largest count where buckets share a pixel.

    A column of latency L spans x_of(L) to x_of(L + 1) and rises to the
    count's y, all rounded to whole units (a column at least one wide).
    Adjacent columns are one outline, each column a relative step up or
    down and across: ``M<left> <base>v<rise>h<width>v<step>h<width>...V<base>``.
    """
    columns = []  # [left, right, top y]
    for latency, count in data:
        left = int(round(x_of(latency, x_max)))
        right = max(int(round(x_of(latency + 1, x_max))), left + 1)
        y = int(round(_y(count, top_log)))
        if columns and left < columns[-1][1]:
            columns[-1][2] = min(columns[-1][2], y)
            continue
        columns.append([left, right, y])
    runs = []  # [left, right, top y]: adjacent columns of one height as one
    for left, right, y in columns:
        if runs and runs[-1][1] == left and runs[-1][2] == y:
            runs[-1][1] = right
        else:
            runs.append([left, right, y])
    out = []
    height = BASE
    for index, (left, right, y) in enumerate(runs):
        if not index or runs[index - 1][1] != left:
            out.append("%sM%d %d" % ("V%d" % BASE if index else "", left, BASE))
            height = BASE
        out.append("v%dh%d" % (y - height, right - left))
        height = y
    return "".join(out) + ("V%d" % BASE if runs else "")


def histogram_svg(summary, ident, defs, index=0):
    """One measurement's histogram: its bars as one path (``id`` ``ident``) in series colour ``index``."""
    threshold = summary.get("threshold_us")
    threshold = int(threshold) if threshold is not None else None
    data = summary["buckets"]
    x_max, top_log = scale([data], threshold)
    axes, mark = defs.axes(x_max, top_log, threshold)
    parts = [axes]
    if data:
        parts.append('<g class="c%d"><path class="bars" id="%s" d="%s"/></g>'
                     % (index % len(SERIES_COLOURS), ident, bars_path(data, x_max, top_log)))
    else:
        parts.append('<text class="tl" x="%d" y="%d">no histogram: %s</text>'
                     % (LEFT + 10, TOP + 30, escape(summary.get("error") or "nothing was measured")))
    parts.append(mark)
    return '<svg class="histogram" data-subject="%s">%s</svg>' % (escape(summary["subject"]), "".join(parts))


def overlay_svg(summaries, idents, threshold, defs):
    """Several measurements' histograms over each other: their bars (``idents``) stroked, scaled to common axes.

    The legend is the caption's (series colour ``k<index>``); each ``<use>`` names its measurement.
    """
    scales = [scale([s["buckets"]], s.get("threshold_us")) for s in summaries]
    x_max, top_log = overlay_scale(summaries, threshold)
    axes, mark = defs.axes(x_max, top_log, threshold)
    parts = [axes]
    for index, (summary, ident, (own_x, own_top)) in enumerate(zip(summaries, idents, scales)):
        sx, sy = own_x / float(x_max), (own_top + 1) / float(top_log + 1)
        parts.append('<use class="series o%d" data-subject="%s" href="#%s" transform="matrix(%s 0 0 %s %s %s)"/>'
                     % (index % len(SERIES_COLOURS), escape(summary["subject"]), ident, "%.4g" % sx, "%.4g" % sy,
                        num(LEFT * (1 - sx)), num(BASE * (1 - sy))))
    parts.append(mark)
    return '<svg class="overlay">%s</svg>' % "".join(parts)


def overlay_scale(summaries, threshold):
    """The overlay's axes: wide and high enough for every histogram's own."""
    scales = [scale([s["buckets"]], s.get("threshold_us")) for s in summaries]
    x_max, top_log = scale([s["buckets"] for s in summaries], threshold)
    x_max = max([x_max] + [own for own, _top in scales])
    return scale_x(x_max), max([top_log] + [top for _x, top in scales])


def scale_x(x_max):
    """``x_max`` rounded up to half a tick step, as :func:`scale` rounds it."""
    half = max(tick_step(x_max) // 2, 1)
    return int(math.ceil(x_max / float(half))) * half


def trend_svg(points, defs):
    """A host's last runs: ``[(run, verdict, max_us)]``, oldest first, as a line of max latency and verdict squares.

    The y axis runs from 0 to the highest max of the runs shown (linear);
    a run without a latency sits on the baseline. The squares are the
    page's markers (``rtv-m<verdict>``, see :class:`Defs`) on one
    invisible line per verdict (``class="m-<verdict>"``).
    """
    if not points:
        return ""
    defs.trends = True
    top = max([p[2] for p in points if p[2] is not None] + [1])
    step = (TREND_W - 8) / float(max(len(points) - 1, 1))
    coords = []
    for index, (_run, _verdict, value) in enumerate(points):
        coords.append("%s,%s" % (num(4 + step * index), num(TREND_H - 4 - (TREND_H - 8) * float(value or 0) / top)))
    marks = {}
    for point, (_run, state, _value) in zip(coords, points):
        marks.setdefault(state, []).append(point)
    title = "max latency of the last %d run(s), oldest first: %s" % (len(points), ", ".join(
        ("-" if value is None else "%d us" % value) + ("" if state == "pass" else " " + state.upper())
        for _run, state, value in points))
    return '<svg class="trend"><title>%s</title><polyline points="%s"/>%s</svg>' % (
        escape(title), " ".join(coords),
        "".join('<polyline class="m-%s" points="%s"/>' % (state, " ".join(marks[state])) for state in sorted(marks)))


def verdict_bar_svg(counts, order=("fail", "warn", "pass")):
    """The fleet's verdicts as one bar, 600 units wide: a red, amber and green part in proportion to the counts."""
    total = sum(counts.get(name, 0) for name in order)
    parts, x = [], 0.0
    for name in order:
        width = 600.0 * counts.get(name, 0) / total if total else 0.0
        if width:
            parts.append('<rect class="v-%s" x="%s" y="0" width="%s" height="18"><title>%d %s</title></rect>'
                         % (name, num(x), num(width), counts[name], name))
        x += width
    return '<svg class="verdicts" width="600" height="18" viewBox="0 0 600 18">%s</svg>' % "".join(parts)
