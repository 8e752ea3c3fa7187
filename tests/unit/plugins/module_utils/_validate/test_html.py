# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet report page, parsed back with lxml and checked against literal inputs.

A plot draws what ``<use>`` refers to (its axes and threshold, drawn once
per page in the hidden ``svg.defs``) and its bars as one path on the pixel
grid; :func:`drawn` lists what a plot shows, :func:`columns` its bars.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib.util
import os
import re

import lxml.html
import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.rt_validate import rt_validate_html
from ansible_collections.realtime.virt.plugins.module_utils._validate.cyclictest import parse_cyclictest
from ansible_collections.realtime.virt.plugins.module_utils._validate.html import percentile, render_html

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "cyclictest")
# The reader of tests/report, which the integration target and the molecule scenario run on a real page.
_SPEC = importlib.util.spec_from_file_location(
    "read_page", os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "report", "read_page.py"))
read_page = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(read_page)


def measurement(subject, histogram, threshold=40, status="pass", overflows=0, kind="host"):
    return {"subject": subject, "kind": kind, "status": status, "threshold_us": threshold,
            "cyclictest": {"max_us": max([b[0] for b in histogram] or [0]), "avg_us": 3, "min_us": 1,
                           "histogram": histogram, "overflows": [overflows]}}


def report(host, measurements=(), checks=None, passed=True):
    checks = checks if checks is not None else [
        {"subject": "domain vm1", "check": "real-time vCPUs pinned", "expected": "one host CPU each",
         "observed": "vCPU 0 on 2", "status": "pass", "message": ""}]
    counts = {"pass": 0, "fail": 0, "warn": 0, "skip": 0}
    for item in checks:
        counts[item["status"]] += 1
    return {"host": host, "passed": passed, "counts": counts, "checks": checks, "failures": [],
            "measurements": list(measurements)}


def page(reports):
    return lxml.html.fromstring(rt_validate_html(reports))


def svg_number(element, name):
    return float(element.get(name))


def drawn(root, svg):
    """The elements a plot draws: its own, and those of what its ``<use>`` elements refer to."""
    out = []
    for element in svg.iter():
        out.append(element)
        if element.tag == "use" and element.get("href", "").startswith("#rtv-"):
            out.extend(root.xpath('//*[@id="%s"]' % element.get("href")[1:])[0].iter())
    return out


def first(root, svg, tag, cls=None):
    return [e for e in drawn(root, svg) if e.tag == tag and (cls is None or e.get("class") == cls)][0]


def columns(svg):
    """The bars of a histogram as ``(left, right, top)``, adjacent pixels of one height as one column."""
    pixels = read_page.drawn(svg.xpath('.//*[@class="bars"]/@d')[0])
    out = []
    for px in sorted(pixels):
        if out and out[-1][1] == px and out[-1][2] == pixels[px]:
            out[-1][1] = px + 1
        else:
            out.append([px, px + 1, pixels[px]])
    return [tuple(c) for c in out]


def x_range(svg):
    """The x axis's end (us) a plot uses (the id of its x axis, rtv-x<end>)."""
    return int(re.match(r"#rtv-x(\d+)$", [h for h in svg.xpath("./use/@href") if h.startswith("#rtv-x")][0]).group(1))


class TestPercentile:
    def test_the_bucket_that_holds_the_999th_sample_in_1000(self):
        assert percentile([[1, 10], [2, 989], [5, 1]], 0.999) == 2

    def test_the_last_sample_moves_it_to_the_last_bucket(self):
        assert percentile([[1, 10], [2, 988], [5, 2]], 0.999) == 5

    def test_buckets_are_sorted_and_empty_ones_ignored(self):
        assert percentile([[7, 1], [3, 0], [1, 999]], 0.999) == 1
        assert percentile([[7, 2], [1, 998]], 0.999) == 7

    def test_inside_the_overflows_it_is_unknown(self):
        assert percentile([[1, 990]], 0.999, overflows=10) is None

    def test_no_samples_no_percentile(self):
        assert percentile([], 0.999) is None
        assert percentile([[4, 0]], 0.5) is None


class TestFleetTable:
    def test_one_row_per_host_sorted_with_a_link_to_its_section(self):
        root = page([report("node-b"), report("node-a", passed=False)])
        rows = root.xpath('//table[@class="fleet"]/tbody/tr')
        assert [r.get("data-host") for r in rows] == ["node-a", "node-b"]
        for row in rows:
            target = row.xpath(".//a/@href")[0]
            assert target.startswith("#")
            assert root.xpath('//section[@id="%s"]' % target[1:])
        assert rows[0].xpath('./td[2]/span/@class') == ["fail"]
        assert rows[1].xpath('./td[2]/span/@class') == ["pass"]

    def test_counts_domains_and_percentiles_are_shown(self):
        checks = [
            {"subject": "domain vm1", "check": "a", "expected": "", "observed": "", "status": "pass", "message": ""},
            {"subject": "domain vm2", "check": "b", "expected": "", "observed": "", "status": "fail", "message": "x"},
            {"subject": "domain vm1", "check": "c", "expected": "", "observed": "", "status": "warn", "message": ""},
            {"subject": "host", "check": "d", "expected": "", "observed": "", "status": "skip", "message": ""},
        ]
        root = page([report("h1", [measurement("host isolated CPUs 2-3", [[2, 500], [9, 499], [30, 1]])],
                            checks=checks, passed=False)])
        cells = [c.text_content() for c in root.xpath('//table[@class="fleet"]/tbody/tr/td')]
        assert cells[2] == "vm1, vm2"
        assert cells[3:7] == ["1", "1", "1", "1"]
        # max 30, avg 3 (from the parsed run), 99.9th percentile 9 (999 of 1000 samples at or below 9 us)
        assert "host isolated CPUs 2-3: 30 us / 3 us / 9 us" in cells[7]

    def test_a_host_without_measurements_still_gets_a_row(self):
        root = page([report("quiet")])
        assert len(root.xpath('//table[@class="fleet"]/tbody/tr')) == 1
        # only the summary's bar of verdicts: no plot, and no axes for plots
        assert root.xpath("//svg/@class") == ["verdicts"]


class TestHistograms:
    def test_one_svg_per_measurement_and_one_bar_per_non_empty_bucket(self):
        root = page([report("h1", [measurement("host", [[2, 5], [3, 0], [8, 1]]),
                                   measurement("probe guest", [[4, 100]], kind="probe")])])
        svgs = root.xpath('//svg[@class="histogram"]')
        assert [s.get("data-subject") for s in svgs] == ["host", "probe guest"]
        # x axis 0-10 us over the 568 units from x 56: a bucket L spans 56 + 56.8 L to 56 + 56.8 (L + 1);
        # y axis two decades over 162 units down to y 180: count 5 tops at 180 - 81 (log10(5) + 1) = 42.4
        assert x_range(svgs[0]) == 10
        assert columns(svgs[0]) == [(170, 226, 42), (510, 567, 99)]
        assert len(columns(svgs[1])) == 1

    def test_bars_of_a_real_cyclictest_histogram(self):
        with open(os.path.join(FIXTURES, "host-2threads.txt")) as handle:
            text = handle.read()
        # Independent count: histogram lines whose per-thread counts are not all zero, summed over threads.
        expected = []
        for line in text.splitlines():
            fields = line.split()
            if fields and fields[0].isdigit() and any(int(f) for f in fields[1:]):
                expected.append([int(fields[0]), sum(int(f) for f in fields[1:])])
        item = {"subject": "host", "status": "pass", "threshold_us": 40, "cyclictest": parse_cyclictest(text)}
        root = page([report("h1", [item])])
        svg = root.xpath('//svg[@class="histogram"]')[0]
        # the drawing is exactly these buckets (tests/report/read_page.py checks every pixel column)
        assert read_page.bars(root, svg, {"cyclictest": {"histogram": expected}}) == expected
        assert read_page.bars(root, svg, {"cyclictest": {"histogram": expected[:-1]}}) != expected[:-1]

    def test_threshold_line_at_the_configured_value_between_the_bars_around_it(self):
        root = page([report("h1", [measurement("host", [[10, 5], [50, 5]], threshold=40)])])
        svg = root.xpath('//svg[@class="histogram"]')[0]
        use = svg.xpath('.//*[@class="threshold"]')[0]
        assert use.get("data-us") == "40"
        line = first(root, svg, "line", "tline")
        bars = columns(svg)
        assert bars[0][0] < svg_number(line, "x1") < bars[1][0]
        # 40 us sits three quarters of the way from the 10 us bar to the 50 us bar (linear x axis).
        ratio = (svg_number(line, "x1") - bars[0][0]) / float(bars[1][0] - bars[0][0])
        assert ratio == pytest.approx(0.75, abs=0.01)

    def test_a_threshold_far_above_the_data_is_drawn_at_the_edge_and_the_bars_keep_their_width(self):
        root = page([report("h1", [measurement("host", [[10, 5], [50, 5]], threshold=1000000)])])
        svg = root.xpath('//svg[@class="histogram"]')[0]
        use = svg.xpath('.//*[@class="threshold"]')[0]
        assert use.get("data-us") == "1000000"
        assert use.get("data-beyond-axis") == "true"
        line = first(root, svg, "line", "tline")
        bars = columns(svg)
        frame = first(root, svg, "rect", "frame")
        right_edge = svg_number(frame, "x") + svg_number(frame, "width")
        assert svg_number(line, "x1") == pytest.approx(right_edge)
        # the 50 us bar sits near the right of the plot, not squeezed against the y axis
        assert bars[1][0] > svg_number(frame, "x") + 0.8 * svg_number(frame, "width")
        assert "beyond the axis" in "".join(e.text or "" for e in drawn(root, svg))

    def test_axis_ticks_are_round_numbers(self):
        root = page([report("h1", [measurement("host", [[900, 5]], threshold=40)])])
        svg = root.xpath('//svg[@class="histogram"]')[0]
        labels = [t.text for t in drawn(root, svg) if t.tag == "text" and t.text and t.text.isdigit()]
        assert labels == ["0", "100", "200", "300", "400", "500", "600", "700", "800", "900"]
        # the axis ends at 950 us (5 % beyond the 901 us bucket's end, up to half a tick step)
        assert x_range(svg) == 950

    def test_a_percentile_among_the_overflows_is_shown_as_above_the_histogram(self):
        root = page([report("h1", [measurement("host", [[3, 900], [998, 50]], overflows=50)])])
        row = root.xpath('//table[@class="fleet"]/tbody/tr/td')[7].text_content()
        # 1000 samples, 50 beyond the histogram: the 999th is one of them, above the 998 us bucket
        assert "998 us / 3 us / > 998 us" in row

    @pytest.mark.parametrize("counts, slack", [
        # three decades over 162 units: a decade is 54 units, whole pixels
        ((1, 10, 100), 0),
        # four decades: 40.5 units, a top rounded to the pixel grid
        ((10, 100, 1000), 1),
    ])
    def test_counts_are_on_a_log_axis(self, counts, slack):
        root = page([report("h1", [measurement("host", [[1, counts[0]], [3, counts[1]], [5, counts[2]]])])])
        heights = [180 - top for _left, _right, top in columns(root.xpath('//svg[@class="histogram"]')[0])]
        # Each tenfold count adds the same height.
        assert abs((heights[1] - heights[0]) - (heights[2] - heights[1])) <= slack
        assert heights[0] > 0
        assert heights[2] == 162

    def test_overlay_only_where_two_histograms_were_measured(self):
        two = page([report("h1", [measurement("host", [[2, 5]]), measurement("guest vm1", [[6, 5]], kind="guest")])])
        overlay = two.xpath('//svg[@class="overlay"]')
        assert len(overlay) == 1
        series = overlay[0].xpath('.//*[@data-subject]')
        assert [p.get("data-subject") for p in series] == ["host", "guest vm1"]
        # each series is the bars of that measurement's histogram
        assert [p.get("href") for p in series] == ["#" + i for i in two.xpath('//svg[@class="histogram"]//path/@id')]
        one = page([report("h1", [measurement("host", [[2, 5]]), measurement("probe", [], status="warn")])])
        assert not one.xpath('//svg[@class="overlay"]')
        assert len(one.xpath('//svg[@class="histogram"]')) == 2

    def test_an_untuned_baseline_is_marked_as_such_and_drawn_with_the_tuned_run(self):
        root = page([report("h1", [measurement("probe untuned", [[30, 5], [90, 1]], status="baseline",
                                               kind="probe-baseline"),
                                   measurement("probe", [[4, 6]], status="warn", kind="probe")])])
        # the fleet table names the baseline as such, not as a skipped or failed check
        cell = root.xpath('//tr[@class="host"]/td')[-1]
        assert [s.text for s in cell.xpath('.//span')] == ["BASELINE", "WARN"]
        assert cell.xpath('.//span')[0].get("class") == "baseline"
        overlay = root.xpath('//svg[@class="overlay"]')
        assert [p.get("data-subject") for p in overlay[0].xpath('.//*[@data-subject]')] == ["probe untuned", "probe"]

    def test_a_run_with_no_histogram_says_why(self):
        item = {"subject": "probe", "status": "warn", "threshold_us": 40,
                "cyclictest": {"max_us": None, "histogram": [], "error": "no 'Max Latencies' line"}}
        root = page([report("h1", [item])])
        svg = root.xpath('//svg[@class="histogram"]')[0]
        assert not svg.xpath('.//*[@class="bars"]')
        assert "no 'Max Latencies' line" in svg.text_content()


class TestGuestTuning:
    TUNED = {"tuned": True, "isolated": "1-3", "sched_rt_runtime_us": -1,
             "profiles": ["realtime-virt-realtime-virtual-guest"], "missing": []}
    UNTUNED = {"tuned": False, "isolated": "", "sched_rt_runtime_us": 950000, "profiles": ["balanced"],
               "missing": ["no isolated CPUs (neither isolcpus nor nohz_full)",
                           "kernel.sched_rt_runtime_us is 950000, not -1"]}

    def guest(self, subject, tuning):
        return dict(measurement(subject, [[4, 10]], kind="guest"), tuning=tuning)

    def test_the_fleet_table_says_beside_each_guest_latency_whether_it_is_tuned(self):
        root = page([report("h1", [measurement("host", [[2, 5]]), self.guest("guest vm1", self.TUNED),
                                   self.guest("guest vm2", self.UNTUNED)])])
        cell = root.xpath('//table[@class="fleet"]/tbody/tr/td')[7]
        for br in cell.xpath(".//br"):
            br.tail = "\n" + (br.tail or "")
        assert cell.text_content().split("\n") == [
            "host: 2 us / 3 us / 2 us PASS",
            "guest vm1: 4 us / 3 us / 4 us PASS · tuned: yes",
            "guest vm2: 4 us / 3 us / 4 us PASS · tuned: no (missing: no isolated CPUs (neither isolcpus nor "
            "nohz_full); kernel.sched_rt_runtime_us is 950000, not -1)"]
        assert [s.get("data-tuned") for s in cell.xpath('.//span[@class="tuning"]')] == ["yes", "no"]

    def test_the_histogram_caption_of_a_guest_says_it_too_and_the_host_has_none(self):
        root = page([report("h1", [measurement("host", [[2, 5]]), self.guest("guest vm2", self.UNTUNED)])])
        captions = [c.text_content() for c in root.xpath("//figure/figcaption")]
        assert "tuned" not in captions[0]
        assert captions[1].endswith("· tuned: no (missing: no isolated CPUs (neither isolcpus nor nohz_full); "
                                    "kernel.sched_rt_runtime_us is 950000, not -1)")

    def test_an_unread_tuning_is_unknown_with_the_reason(self):
        unread = {"tuned": None, "isolated": "", "sched_rt_runtime_us": None, "profiles": [],
                  "missing": ["not read: unreachable: <ssh> refused"]}
        root = page([report("h1", [self.guest("guest vm3", unread)])])
        span = root.xpath('//table[@class="fleet"]//span[@class="tuning"]')[0]
        assert (span.get("data-tuned"), span.text) == ("unknown", "tuned: unknown (not read: unreachable: <ssh> refused)")
        assert "&lt;ssh&gt;" in rt_validate_html([report("h1", [self.guest("guest vm3", unread)])])


class TestSafety:
    def test_names_are_escaped_and_the_page_has_no_script_or_outside_resource(self):
        hostile = '<script>alert("x")</script>'
        text = rt_validate_html([report(hostile, [measurement(hostile, [[1, 1]])])])
        root = lxml.html.fromstring(text)
        assert not root.xpath("//script")
        assert hostile not in text
        assert root.xpath('//table[@class="fleet"]/tbody/tr')[0].get("data-host") == hostile
        assert not root.xpath("//*[@src]")
        assert all(href.startswith("#") for href in root.xpath("//@href"))

    def test_an_accepted_failure_is_a_warn_row_marked_accepted_with_its_message(self):
        checks = [
            {"subject": "host", "check": "tuned-adm verify", "expected": "tuned-adm verify succeeds",
             "observed": "Verification failed", "status": "warn", "accepted": True,
             "message": "accepted (rt_validate_accept): host: tuned-adm verify failed <rc 1>"},
            {"subject": "host", "check": "KSM", "expected": "run in 0, 2", "observed": "2", "status": "pass",
             "message": ""},
            {"subject": "guest vm1", "check": "guest tuning", "expected": "tuned", "observed": "untuned",
             "status": "warn", "message": "guest vm1 is not tuned"},
        ]
        root = page([report("node1", checks=checks)])
        rows = root.xpath('//table[@class="checks"]/tbody/tr')
        assert [row.xpath("td")[4].text_content() for row in rows] == [
            "WARN accepted (rt_validate_accept)", "PASS", "WARN"]
        marks = root.xpath('//table[@class="checks"]//span[@class="accepted"]')
        assert len(marks) == 1
        assert marks[0].get("title") == "accepted (rt_validate_accept): host: tuned-adm verify failed <rc 1>"
        # the fleet table counts it as the warning it is: the host passes, with a warning
        assert [c.text_content() for c in root.xpath('//table[@class="fleet"]/tbody/tr/td')][1:7] == [
            "WARN", "\u2013", "1", "0", "2", "0"]
        row = root.xpath('//table[@class="fleet"]/tbody/tr')[0]
        assert (row.get("data-verdict"), row.get("data-passed")) == ("warn", "true")

    def test_render_is_the_same_for_the_same_input(self):
        reports = [report("a", [measurement("host", [[3, 4]])])]
        assert render_html(reports, generated="t") == render_html(reports, generated="t")

    @pytest.mark.parametrize("bad", [None, "report", {"host": "a"}, [["a"]]])
    def test_bad_input_names_what_is_expected(self, bad):
        with pytest.raises(AnsibleFilterError, match="rt_validate_html: expected a list of rt_validate JSON reports"):
            rt_validate_html(bad)

    def test_checks_that_are_not_a_list_are_refused(self):
        with pytest.raises(AnsibleFilterError, match="'checks' or 'measurements' that is not a list"):
            rt_validate_html([{"host": "a", "checks": "none"}])
