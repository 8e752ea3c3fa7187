# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The history of runs: what a run adds, how many are kept, and what got worse since the previous run."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._validate.history import (
    check_factor, check_keep, host_run, regressions, trend, update_history)


def report(host, failing=(), warn=False, host_max=20, guest_max=8, baseline_max=500, passed=None):
    checks = [{"subject": "domain vm1", "check": "real-time vCPUs pinned", "status": "pass"},
              {"subject": "host", "check": "KSM", "status": "pass"}]
    for subject, name in failing:
        checks.append({"subject": subject, "check": name, "status": "fail"})
    if warn:
        checks.append({"subject": "host", "check": "tuned-adm verify", "status": "warn", "accepted": True})
    measurements = [
        {"subject": "host isolated CPUs 2-3", "kind": "host", "status": "pass", "cyclictest": {"max_us": host_max}},
        {"subject": "guest vm1", "kind": "guest", "status": "pass", "cyclictest": {"max_us": guest_max}},
        {"subject": "probe untuned", "kind": "probe-baseline", "status": "baseline",
         "cyclictest": {"max_us": baseline_max}},
        {"subject": "probe", "kind": "probe", "status": "skip", "cyclictest": {"max_us": None}},
    ]
    return {"host": host, "passed": (not failing) if passed is None else passed, "checks": checks,
            "measurements": measurements}


def runs(history, host):
    return [entry["run"] for entry in history["hosts"][host]]


class TestARun:
    def test_what_a_run_keeps_of_a_host(self):
        entry = host_run(report("n1", failing=[("domain vm1", "memory on hugepages")]), "20261207T120000Z",
                         "2026-12-07 12:00:00 UTC")
        # the baseline (not judged) and a measurement without a result are not kept
        assert entry == {"run": "20261207T120000Z", "time": "2026-12-07 12:00:00 UTC", "verdict": "fail",
                         "max_us": {"host isolated CPUs 2-3": 20, "guest vm1": 8},
                         "failing": ["domain vm1: memory on hugepages"]}

    def test_the_first_run_starts_the_history(self):
        new = update_history({}, [report("n1"), report("n2", warn=True)], "r1", "t1")
        assert new["format"] == 1
        assert sorted(new["hosts"]) == ["n1", "n2"]
        assert [e["verdict"] for e in new["hosts"]["n1"] + new["hosts"]["n2"]] == ["pass", "warn"]
        assert update_history(None, [report("n1")], "r1")["hosts"]["n1"][0]["run"] == "r1"

    def test_runs_are_appended_oldest_first_and_trimmed_to_keep(self):
        history = {}
        for number in range(1, 8):
            history = update_history(history, [report("n1", host_max=number)], "r%d" % number, keep=5)
        assert runs(history, "n1") == ["r3", "r4", "r5", "r6", "r7"]
        assert [e["max_us"]["host isolated CPUs 2-3"] for e in history["hosts"]["n1"]] == [3, 4, 5, 6, 7]
        # a smaller keep trims what was kept before too
        assert runs(update_history(history, [report("n1")], "r8", keep=2), "n1") == ["r7", "r8"]

    def test_a_host_not_in_the_run_keeps_its_runs_and_the_input_is_not_changed(self):
        history = update_history({}, [report("n1"), report("n2")], "r1")
        before = copy.deepcopy(history)
        new = update_history(history, [report("n2")], "r2")
        assert runs(new, "n1") == ["r1"]
        assert runs(new, "n2") == ["r1", "r2"]
        assert history == before

    def test_the_same_run_twice_is_one_run(self):
        history = update_history({}, [report("n1", host_max=5)], "r1")
        history = update_history(history, [report("n1", host_max=6)], "r2")
        history = update_history(history, [report("n1", host_max=7)], "r2")
        assert runs(history, "n1") == ["r1", "r2"]
        assert history["hosts"]["n1"][-1]["max_us"]["host isolated CPUs 2-3"] == 7


class TestWorse:
    def history(self, before, now, factor=None):
        history = update_history({}, before, "r1")
        history = update_history(history, now, "r2")
        return regressions(history, factor=factor) if factor else regressions(history)

    def test_nothing_changed_nothing_worse(self):
        fleet = [report("n1"), report("n2", failing=[("host", "KSM")]), report("n3", warn=True)]
        assert self.history(fleet, fleet) == []

    def test_a_check_that_passed_and_now_fails(self):
        found = self.history([report("n1"), report("n2")], [report("n1"), report("n2", failing=[("host", "THP")])])
        assert found == [{"host": "n2", "kind": "check", "what": "host: THP", "before": "not failing", "now": "fail",
                          "run": "r2", "previous_run": "r1"}]

    def test_a_check_that_failed_before_too_is_not_worse(self):
        failing = [("host", "THP")]
        assert self.history([report("n1", failing=failing)], [report("n1", failing=failing)]) == []

    def test_a_max_latency_above_the_factor(self):
        found = self.history([report("n1", guest_max=8), report("n2")], [report("n1", guest_max=13), report("n2")])
        # 13 > 1.5 * 8 = 12
        assert found == [{"host": "n1", "kind": "latency", "what": "max latency of guest vm1", "before": 8, "now": 13,
                          "run": "r2", "previous_run": "r1"}]

    @pytest.mark.parametrize("before, now, factor, worse", [
        (8, 12, 1.5, False),   # exactly 1.5 times: not more than the factor
        (8, 12, 1.4, True),
        (20, 31, 1.5, True),
        (20, 19, 1.0, False),  # lower is never worse
        (20, 21, 1.0, True),
        (0, 1, 1.5, False),    # 0 us counts as 1 us: 1 is not above 1.5
        (0, 2, 1.5, True),
    ])
    def test_the_factor(self, before, now, factor, worse):
        found = self.history([report("n1", host_max=before)], [report("n1", host_max=now)], factor=factor)
        assert [item["what"] for item in found] == (["max latency of host isolated CPUs 2-3"] if worse else [])

    def test_an_untuned_baseline_that_grows_is_no_regression(self):
        assert self.history([report("n1", baseline_max=100)], [report("n1", baseline_max=9000)]) == []

    def test_a_host_with_one_run_has_nothing_to_compare(self):
        history = update_history({}, [report("n1")], "r1")
        history = update_history(history, [report("n2", failing=[("host", "THP")])], "r2")
        assert regressions(history) == []

    def test_only_the_hosts_asked_for(self):
        history = update_history({}, [report("n1"), report("n2")], "r1")
        history = update_history(history, [report("n1", failing=[("host", "THP")]),
                                           report("n2", failing=[("host", "THP")])], "r2")
        assert [item["host"] for item in regressions(history, hosts=["n2"])] == ["n2"]
        assert [item["host"] for item in regressions(history)] == ["n1", "n2"]


def test_the_trend_of_a_host():
    history = {}
    for number, kwargs in enumerate([{}, {"host_max": 50}, {"failing": [("host", "THP")]}]):
        history = update_history(history, [report("n1", **kwargs)], "r%d" % number)
    assert trend(history["hosts"]["n1"]) == [("r0", "pass", 20), ("r1", "pass", 50), ("r2", "fail", 20)]


@pytest.mark.parametrize("keep", [0, -3, 2.5, "twenty", True, None])
def test_keep_must_be_a_whole_number_of_at_least_one(keep):
    with pytest.raises(OptionError) as caught:
        update_history({}, [report("n1")], "r1", keep=keep)
    assert str(caught.value).startswith("keep=%r: not a number of runs to keep per host. Fix: " % (keep,))
    assert "rt_validate_history_keep" in str(caught.value)


def test_keep_as_text_of_a_number_is_a_number():
    assert check_keep("20") == 20
    assert check_keep(3) == 3


@pytest.mark.parametrize("factor", [0.5, 0, -1, "x", True, None, float("nan"), float("inf")])
def test_the_factor_must_be_a_number_of_at_least_one(factor):
    with pytest.raises(OptionError) as caught:
        check_factor(factor)
    assert "not a factor of growth of the max latency. Fix: give a number of at least 1" in str(caught.value)


@pytest.mark.parametrize("history, words", [
    (["n1"], "history=['n1']: not a history of rt_validate runs"),
    ("history.json", "history='history.json': not a history of rt_validate runs"),
    ({"hosts": {}}, "history.format=None: not a history this collection writes"),
    ({"format": 2, "hosts": {}}, "history.format=2: not a history this collection writes"),
    ({"format": 1, "hosts": []}, "history.format=1: not a history this collection writes"),
    ({"format": 1, "hosts": {"n1": {"run": "r1"}}}, "history.hosts['n1']={'run': 'r1'}: not a list of runs"),
])
def test_a_history_that_is_not_one(history, words):
    with pytest.raises(OptionError) as caught:
        update_history(history, [report("n1")], "r1")
    assert words in str(caught.value)
    assert "Fix: give the content of <rt_validate_report_root>/history.json, or {} before the first run" in str(
        caught.value)


@pytest.mark.parametrize("run", ["", "  ", None, 7])
def test_a_run_needs_an_id(run):
    with pytest.raises(OptionError, match=r"^run=.*: not the id of a run\. Fix: give the name of the run's report "):
        update_history({}, [report("n1")], run)
