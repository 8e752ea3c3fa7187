# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet page of many hosts and the history, through the filters as the rt_validate role calls them.

The role reads the hosts' JSON reports and history.json back as text
(lookup('file')), so most cases hand the filters JSON text; the page is
parsed back with lxml and checked against values worked out by hand.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import lxml.html
import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.rt_validate import FilterModule

FILTERS = FilterModule().filters()
html = FILTERS["rt_validate_html"]
history_of = FILTERS["rt_validate_history"]
worse_of = FILTERS["rt_validate_regressions"]


def report(host, verdict="pass", host_max=20, guest_max=8):
    checks = [{"subject": "domain vm1", "check": "real-time vCPUs pinned", "expected": "one host CPU each",
               "observed": "vCPU 0 on 2", "status": "pass", "message": ""}]
    if verdict == "fail":
        checks.append({"subject": "host", "check": "KSM", "expected": "run in 0, 2", "observed": "1",
                       "status": "fail", "message": "KSM runs"})
    if verdict == "warn":
        checks.append({"subject": "host", "check": "tuned-adm verify", "expected": "succeeds", "observed": "failed",
                       "status": "warn", "accepted": True, "message": "accepted (rt_validate_accept): failed"})
    counts = {"pass": 0, "fail": 0, "warn": 0, "skip": 0}
    for item in checks:
        counts[item["status"]] += 1
    measurements = []
    for subject, kind, value in (("host isolated CPUs 2-3", "host", host_max), ("guest vm1", "guest", guest_max)):
        if value is not None:
            measurements.append({"subject": subject, "kind": kind, "status": "pass", "threshold_us": 100,
                                 "cyclictest": {"max_us": value, "avg_us": 2, "min_us": 1,
                                                "histogram": [[1, 50], [value, 1]], "overflows": [0]}})
    return {"host": host, "passed": verdict != "fail", "counts": counts, "checks": checks, "failures": [],
            "measurements": measurements}


def text(reports):
    """The reports as the role reads them back from the report directory: to_nice_json text."""
    return [json.dumps(r, indent=4, sort_keys=True) for r in reports]


def parse(page):
    return lxml.html.fromstring(page)


def rows(root):
    return root.xpath('//table[@class="fleet"]/tbody/tr/@data-host')


def cells(table_row):
    return [cell.text_content() for cell in table_row.xpath("td")]


class TestOrder:
    def test_a_failing_host_named_last_comes_first_then_the_warning_then_the_passing(self):
        root = parse(html(text([report("alpha"), report("zulu", "fail"), report("bravo"), report("yankee", "warn")])))
        assert rows(root) == ["zulu", "yankee", "alpha", "bravo"]
        assert root.xpath("//section/@id") == ["host-zulu", "host-yankee", "host-alpha", "host-bravo"]
        assert root.xpath('//table[@class="fleet"]/tbody/tr/@data-verdict') == ["fail", "warn", "pass", "pass"]

    def test_a_large_page_folds_every_host_but_the_failing_ones_which_come_before_the_table(self):
        reports = [report("node-%02d" % n, "fail" if n in (7, 11) else "pass") for n in range(12)]
        root = parse(html(text(reports)))
        assert rows(root)[:3] == ["node-07", "node-11", "node-00"]
        assert root.xpath("//section[details[@open]]/@data-host") == ["node-07", "node-11"]
        assert len(root.xpath("//section[details[not(@open)]]")) == 10
        # document order: the failing hosts' sections, the fleet table, the other sections
        order = [e.get("data-host") or e.get("class") for e in root.xpath('//section | //table[@class="fleet"]')]
        assert order[:3] == ["node-07", "node-11", "fleet"]

    def test_a_small_page_opens_every_host(self):
        root = parse(html(text([report("a"), report("b", "warn")])))
        assert root.xpath("//section[details[@open]]/@data-host") == ["b", "a"]


class TestSummary:
    def test_how_many_hosts_fail_warn_and_pass(self):
        reports = [report("h%d" % n, v) for n, v in enumerate(["pass", "fail", "warn", "pass", "pass", "warn"])]
        root = parse(html(text(reports)))
        summary = root.xpath('//p[@class="summary"]')[0]
        assert [summary.get("data-" + k) for k in ("hosts", "fail", "warn", "pass")] == ["6", "1", "2", "3"]
        assert summary.text_content().startswith("6 host(s): 1 fail, 2 warn, 3 pass")
        assert [r.text for r in root.xpath('//svg[@class="verdicts"]/rect/title')] == ["1 fail", "2 warn", "3 pass"]
        assert root.xpath('//p[@class="failing"]/a/@href') == ["#host-h1"]

    def test_max_latency_across_hosts_per_kind(self):
        host_max = [12, 15, 9, 30, 22, 18, 11, 40, 25, 14]
        guest_max = {3: 5, 5: 7, 6: 6, 9: 20}
        reports = [report("h%d" % n, host_max=value, guest_max=guest_max.get(n)) for n, value in enumerate(host_max)]
        root = parse(html(text(reports)))
        table = [cells(row) for row in root.xpath('//table[@class="latency"]/tbody/tr')]
        # host: sorted 9 11 12 14 15 18 22 25 30 40; p50 the 5th, p90 the 9th, p99 the 10th
        # guest: sorted 5 6 7 20 on four hosts; p50 the 2nd, p90 and p99 the 4th
        assert table == [
            ["host", "10", "9 us", "15 us", "30 us", "40 us", "40 us (h7)"],
            ["guest", "4", "5 us", "6 us", "20 us", "20 us", "20 us (h9)"],
        ]


class TestHistory:
    def runs(self, *fleets, **kwargs):
        history = "{}"
        for number, fleet in enumerate(fleets):
            history = json.dumps(history_of(history, text(fleet), run="r%d" % number, time="t%d" % number, **kwargs))
        return history

    def fleet(self, **worse):
        return [report("alpha"), report("mike", **worse), report("yankee"), report("zulu", "fail")]

    def test_one_host_made_worse_is_listed_and_first_among_the_passing(self):
        history = self.runs(self.fleet(), self.fleet(), self.fleet(guest_max=24))
        root = parse(html(text(self.fleet(guest_max=24)), history=history))
        listed = root.xpath('//table[@class="regressions"]/tbody/tr')
        assert [cells(row) for row in listed] == [["mike", "max latency of guest vm1", "8 us", "24 us (3.0x)"]]
        assert rows(root) == ["zulu", "mike", "alpha", "yankee"]
        assert root.xpath('//tr[@data-host="mike"]//span[@class="worse"]')
        assert worse_of(history) == [{"host": "mike", "kind": "latency", "what": "max latency of guest vm1",
                                      "before": 8, "now": 24, "run": "r2", "previous_run": "r1"}]

    def test_a_check_that_passed_and_now_fails(self):
        before = self.fleet()
        now = [report("alpha", "fail")] + before[1:]
        root = parse(html(text(now), history=self.runs(before, now)))
        assert [cells(row) for row in root.xpath('//table[@class="regressions"]/tbody/tr')] == [
            ["alpha", "host: KSM", "not failing", "fail"]]
        # zulu failed in both runs: not worse
        assert rows(root) == ["alpha", "zulu", "mike", "yankee"]

    def test_nothing_changed_nothing_listed(self):
        history = self.runs(self.fleet(), self.fleet())
        root = parse(html(text(self.fleet()), history=history))
        assert not root.xpath('//table[@class="regressions"]')
        assert "Nothing got worse since the previous run" in root.xpath('//div[@id="worse"]')[0].text_content()
        assert worse_of(history) == []
        assert rows(root) == ["zulu", "alpha", "mike", "yankee"]

    def test_a_larger_factor_tolerates_more(self):
        history = self.runs(self.fleet(), self.fleet(guest_max=24))
        assert worse_of(history, regression_factor=3) == []
        root = parse(html(text(self.fleet(guest_max=24)), history=history, regression_factor=3))
        assert not root.xpath('//table[@class="regressions"]')

    def test_history_trimmed_to_keep_and_the_trend_of_the_kept_runs(self):
        fleets = [self.fleet(host_max=value) for value in (10, 20, 30, 40, 50)]
        history = json.loads(self.runs(*fleets, keep=3))
        assert [entry["run"] for entry in history["hosts"]["mike"]] == ["r2", "r3", "r4"]
        assert [entry["max_us"]["host isolated CPUs 2-3"] for entry in history["hosts"]["mike"]] == [30, 40, 50]
        root = parse(html(text(fleets[-1]), history=json.dumps(history)))
        trend = root.xpath('//tr[@data-host="mike"]//svg[@class="trend"]')[0]
        assert trend.xpath("title")[0].text == "max latency of the last 3 run(s), oldest first: 30 us, 40 us, 50 us"
        line = trend.xpath("polyline")[0].get("points").split()
        assert len(line) == 3
        # a run's square: the marker of its verdict on the line's point
        assert [(p.get("class"), p.get("points").split()) for p in trend.xpath("polyline[@class]")] == [
            ("m-pass", line)]
        zulu = root.xpath('//tr[@data-host="zulu"]//svg[@class="trend"]/polyline/@class')
        assert zulu == ["m-fail"]
        assert root.xpath('//svg[@class="defs"]//marker/@id') == ["rtv-mfail", "rtv-mwarn", "rtv-mpass"]

    def test_the_page_of_the_first_run(self):
        root = parse(html(text(self.fleet()), history=self.runs(self.fleet())))
        assert "No host has a previous run in the history yet" in root.xpath('//div[@id="worse"]')[0].text_content()

    def test_without_a_history_no_trend_and_no_list(self):
        root = parse(html(text(self.fleet())))
        assert not root.xpath('//div[@id="worse"]')
        assert not root.xpath('//svg[@class="trend"]')


def test_reports_as_text_and_as_mappings_give_the_same_page():
    fleet = [report("a"), report("b", "fail")]
    assert html(text(fleet), generated="t") == html(fleet, generated="t")


@pytest.mark.parametrize("call, words", [
    (lambda: history_of({}, text([report("a")]), run="r1", keep=0),
     ["rt_validate_history: keep=0: not a number of runs to keep per host", "Fix: give a whole number of at least 1",
      "rt_validate_history_keep"]),
    (lambda: history_of(["a"], text([report("a")]), run="r1"),
     ["rt_validate_history: history=['a']: not a history of rt_validate runs",
      "Fix: give the content of <rt_validate_report_root>/history.json, or {} before the first run"]),
    (lambda: history_of("{not json", text([report("a")]), run="r1"),
     ["rt_validate_history: history='{not json'...: not JSON", "Fix:", "move a damaged file aside"]),
    (lambda: history_of({}, text([report("a")]), run=""),
     ["rt_validate_history: run='': not the id of a run", "Fix: give the name of the run's report directory"]),
    (lambda: html(text([report("a")]), regression_factor=0.9),
     ["rt_validate_html: regression_factor=0.9: not a factor of growth", "Fix: give a number of at least 1",
      "rt_validate_regression_factor"]),
    (lambda: html(text([report("a")]), history=[]),
     ["rt_validate_html: history=[]: not a history of rt_validate runs", "Fix:"]),
    (lambda: html(["{broken"]),
     ["rt_validate_html: report 0 is not JSON", "Fix: give the files rt_validate wrote"]),
    (lambda: worse_of({}, hosts="alpha"),
     ["rt_validate_regressions: hosts='alpha' is not a list of host names", "Fix:"]),
])
def test_bad_input_names_the_option_the_value_and_the_fix(call, words):
    with pytest.raises(AnsibleFilterError) as caught:
        call()
    for word in words:
        assert word in str(caught.value)
