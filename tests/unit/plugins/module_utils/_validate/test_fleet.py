# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A fleet at once: verdicts, the order of hosts, percentiles across hosts (values worked out by hand)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._validate.fleet import (
    fleet_summary, host_maxima, nearest_rank, order, verdict)


def check(status, accepted=False):
    item = {"subject": "host", "check": "KSM", "expected": "", "observed": "", "status": status, "message": ""}
    if accepted:
        item["accepted"] = True
    return item


@pytest.mark.parametrize("report, expected", [
    ({"passed": False, "checks": [check("fail")]}, "fail"),
    # a failed report fails whatever else it holds
    ({"passed": False, "checks": [check("warn"), check("pass")]}, "fail"),
    ({"passed": True, "checks": [check("pass"), check("warn", accepted=True)]}, "warn"),
    ({"passed": True, "checks": [check("pass")], "measurements": [{"status": "warn"}]}, "warn"),
    ({"passed": True, "counts": {"warn": 1}, "checks": []}, "warn"),
    # a baseline is a reference, a skip no warning
    ({"passed": True, "checks": [check("pass"), check("skip")], "measurements": [{"status": "baseline"}]}, "pass"),
    ({"passed": True}, "pass"),
    ({}, "fail"),
])
def test_verdict_of_a_report(report, expected):
    assert verdict(report) == expected


def test_failing_first_then_warning_then_passing_and_the_worse_first_in_each_group():
    hosts = [{"host": h, "verdict": v} for h, v in [
        ("alpha", "pass"), ("zulu", "fail"), ("bravo", "warn"), ("mike", "pass"), ("echo", "fail"),
        ("yankee", "pass"), ("delta", "warn")]]
    assert [h["host"] for h in order(hosts)] == ["echo", "zulu", "bravo", "delta", "alpha", "mike", "yankee"]
    assert [h["host"] for h in order(hosts, worse={"yankee", "zulu", "delta"})] == [
        "zulu", "echo", "delta", "bravo", "yankee", "alpha", "mike"]


@pytest.mark.parametrize("values, percent, expected", [
    # sorted 9 11 12 14 15 18 22 25 30 40: rank ceil(p/100 * 10)
    ([12, 15, 9, 30, 22, 18, 11, 40, 25, 14], 50, 15),
    ([12, 15, 9, 30, 22, 18, 11, 40, 25, 14], 90, 30),
    ([12, 15, 9, 30, 22, 18, 11, 40, 25, 14], 99, 40),
    ([12, 15, 9, 30, 22, 18, 11, 40, 25, 14], 0, 9),
    ([12, 15, 9, 30, 22, 18, 11, 40, 25, 14], 100, 40),
    # sorted 5 6 7 20: p50 the 2nd, p90 the 4th (ceil 3.6)
    ([20, 5, 7, 6], 50, 6),
    ([20, 5, 7, 6], 90, 20),
    ([7], 99, 7),
    ([], 50, None),
])
def test_percentiles_across_hosts_by_nearest_rank(values, percent, expected):
    assert nearest_rank(values, percent) == expected


def test_a_host_max_per_kind_is_its_highest_measurement_of_that_kind():
    summaries = [{"kind": "host", "max_us": 12}, {"kind": "guest", "max_us": 3}, {"kind": "guest", "max_us": 20},
                 {"kind": "guest", "max_us": None}, {"kind": "probe", "max_us": True}, {"kind": "", "max_us": 4}]
    assert host_maxima(summaries) == {"host": 12, "guest": 20, "measurement": 4}


def test_fleet_summary_counts_and_distributions():
    host_max = [12, 15, 9, 30, 22, 18, 11, 40, 25, 14]
    guests = {"h3": 5, "h5": 7, "h6": 6, "h9": 20}
    verdicts = ["pass", "fail", "pass", "warn", "pass", "pass", "fail", "pass", "pass", "warn"]
    hosts = []
    for index in range(10):
        name = "h%d" % index
        maxima = {"host": host_max[index]}
        if name in guests:
            maxima["guest"] = guests[name]
        hosts.append({"host": name, "verdict": verdicts[index], "maxima": maxima})
    summary = fleet_summary(hosts)
    assert summary["hosts"] == 10
    assert summary["counts"] == {"fail": 2, "warn": 2, "pass": 6}
    assert summary["latency"] == [
        {"kind": "host", "hosts": 10, "min": 9, "p50": 15, "p90": 30, "p99": 40, "max": 40, "max_host": "h7"},
        {"kind": "guest", "hosts": 4, "min": 5, "p50": 6, "p90": 20, "p99": 20, "max": 20, "max_host": "h9"},
    ]


def test_kinds_are_listed_in_the_order_rt_validate_measures_them():
    hosts = [{"host": "a", "verdict": "pass",
              "maxima": {"zeta": 1, "guest": 2, "probe-baseline": 3, "probe": 4, "host-oslat": 5, "host": 6}}]
    assert [row["kind"] for row in fleet_summary(hosts)["latency"]] == [
        "host", "host-oslat", "probe", "probe-baseline", "guest", "zeta"]
