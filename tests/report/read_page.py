# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read a fleet report's index.html with lxml and print what it shows, as JSON.

The integration target rt_validate_fleet_report and the rt_validate molecule
scenario compare this with the JSON files the hosts wrote, so the page is
checked against the measurements, not against the code that drew it.

The page draws each histogram's bars as one path on a pixel grid and does
not repeat the buckets. A histogram's ``bars`` are therefore read by
checking the drawing against the host's JSON report beside the page
(``<host>.json`` in the page's directory, as the role fetches it): each
non-empty bucket [latency_us, count] must be a column from x(latency) to
x(latency + 1) (whole pixels, at least one wide) as high as its count on
the plot's log axis (the highest where buckets share a pixel), and no
column may be drawn where no bucket is. When the drawing is exactly the
report's buckets, ``bars`` lists them; otherwise it lists what differs
(``["missing", px, top]``, ``["extra", px, top]``); without the report it
is null. The axes are the page's own: the frame of the y axis the plot
uses (``rtv-y<decades>``) and the x range of its x axis (``rtv-x<max>``).
"""
import json
import math
import os
import re
import sys

import lxml.html

TOKEN = re.compile(r"([MVvh])(-?\d+)(?: (-?\d+))?")


def drawn(d):
    """{pixel x: top y} of a bars path ``M<x> <y>``, ``v<dy>``, ``h<dx>``, ``V<y>``."""
    pixels, x, y = {}, 0, 0
    for command, first, second in TOKEN.findall(d or ""):
        if command == "M":
            x, y = int(first), int(second)
        elif command == "v":
            y += int(first)
        elif command == "V":
            y = int(first)
        else:
            for px in range(x, x + int(first)):
                pixels[px] = y
            x += int(first)
    return pixels


def expected(buckets, frame, x_max, top_log):
    """{pixel x: top y} the buckets make on a plot of ``frame`` (x, y, width, height)."""
    left, top, width, height = frame
    base = top + height
    pixels = {}
    for latency, count in buckets:
        start = int(round(left + width * float(latency) / x_max))
        end = max(int(round(left + width * float(latency + 1) / x_max)), start + 1)
        y = int(round(base - height * (math.log10(count) + 1) / (top_log + 1)))
        for px in range(start, end):
            pixels[px] = min(y, pixels.get(px, y))
    return pixels


def use_of(svg, prefix):
    for href in svg.xpath("./use/@href"):
        if href.startswith("#" + prefix):
            return href[1:]
    return None


def bars(root, svg, measurement):
    """The buckets of ``measurement`` the plot draws, or what differs; None without the measurement."""
    if measurement is None:
        return None
    buckets = sorted((int(b[0]), int(b[1])) for b in (measurement.get("cyclictest") or {}).get("histogram") or []
                     if int(b[1]) > 0)
    path = svg.xpath('.//*[@class="bars"]/@d')
    if not buckets and not path:
        return []
    y_axis, x_axis = use_of(svg, "rtv-y"), use_of(svg, "rtv-x")
    frame = root.xpath('//*[@id="%s"]/rect[@class="frame"]' % y_axis)
    if not frame or not x_axis:
        return [["no axes"]]
    box = tuple(int(float(frame[0].get(k))) for k in ("x", "y", "width", "height"))
    want = expected(buckets, box, int(x_axis[5:]), int(y_axis[5:]))
    got = drawn(path[0] if path else "")
    if want == got:
        return [list(b) for b in buckets]
    return ([["missing", px, want[px]] for px in sorted(want) if got.get(px) != want[px]]
            + [["extra", px, got[px]] for px in sorted(got) if px not in want])


def report_of(directory, host):
    path = os.path.join(directory, "%s.json" % host)
    if not host or not os.path.isfile(path):
        return None
    with open(path) as handle:
        return json.load(handle)


def histograms(root, directory):
    found = []
    for section in root.xpath("//section"):
        report = report_of(directory, section.get("data-host"))
        measurements = (report or {}).get("measurements") or []
        for index, svg in enumerate(section.xpath('.//*[@class="histogram"]')):
            measurement = measurements[index] if index < len(measurements) else None
            if measurement is not None and measurement.get("subject") != svg.get("data-subject"):
                measurement = None
            found.append({"subject": svg.get("data-subject"), "bars": bars(root, svg, measurement),
                          "thresholds": [int(x) for x in svg.xpath('.//*[@class="threshold"]/@data-us')]})
    return found


def main(page):
    root = lxml.html.parse(page).getroot()
    return {
        "rows": [row.get("data-host") for row in root.xpath('//table[@class="fleet"]/tbody/tr')],
        "sections": root.xpath("//section/@id"),
        "links": root.xpath('//table[@class="fleet"]//a/@href'),
        "histograms": histograms(root, os.path.dirname(os.path.abspath(page))),
        "overlays": [svg.xpath(".//*[@data-subject]/@data-subject") for svg in root.xpath('//*[@class="overlay"]')],
        # what the fleet table says of each guest's tuning, beside its latency
        "tunings": [{"tuned": span.get("data-tuned"), "text": span.text_content()}
                    for span in root.xpath('//table[@class="fleet"]//*[@class="tuning"]')],
        "scripts": len(root.xpath("//script")),
        # "Worse since the previous run": one row per regression, and the note under it
        "worse": [{"host": row.get("data-host"), "kind": row.get("data-kind"),
                   "what": row.xpath("string(td[2])")}
                  for row in root.xpath('//*[@id="worse"]//table[@class="regressions"]/tbody/tr')],
        "worse_note": root.xpath('string(//*[@id="worse"]/p[@class="note"])'),
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
