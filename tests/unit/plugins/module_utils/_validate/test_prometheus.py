# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node_exporter textfile, read back with the Prometheus client library's own parser.

Each report is built the way the role builds it (cyclictest's output
parsed, judged, the checks turned into a report); what the metrics must
say is worked out here from that report and the raw histogram, without the
code under test.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar
import math
import os

import pytest
import yaml

from ansible.errors import AnsibleFilterError
from prometheus_client.parser import text_string_to_metric_families

from ansible_collections.realtime.virt.plugins.filter.rt_validate import (
    rt_validate_latency_check, rt_validate_prometheus, rt_validate_report)
from ansible_collections.realtime.virt.plugins.module_utils._validate.cyclictest import parse_cyclictest
from ansible_collections.realtime.virt.plugins.module_utils._validate.prometheus import metric_names, ptp_metric_names

TOP = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "..")
FIXTURES = os.path.join(TOP, "tests", "unit", "fixtures", "cyclictest")
WHEN = "2026-12-04T12:15:00Z"
WHEN_EPOCH = 1796386500  # date -u -d 2026-12-04T12:15:00Z +%s
STATUSES = ["pass", "fail", "warn", "skip"]


def _fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def _check(subject, name, status, message=""):
    return {"subject": subject, "check": name, "expected": "x", "observed": "y", "status": status,
            "message": message}


def built_report(host="node1", threshold=40, accept=None, extra_checks=(), measurements_extra=()):
    """A report as report.yml builds it: the host's cyclictest run parsed and judged, with other checks."""
    parsed = parse_cyclictest(_fixture("host-2threads.txt"))
    subject = "host isolated CPUs 2-3"
    latency = rt_validate_latency_check(parsed, subject, threshold_us=threshold)
    checks = [_check("domain vm1", "real-time vCPUs pinned", "pass"),
              _check("host", "KSM", "fail", "host: KSM runs"),
              _check("host", "tuned-adm verify", "skip"),
              latency] + list(extra_checks)
    report = rt_validate_report(checks, host, accept=accept)
    measurements = [{"subject": subject, "kind": "host", "status": latency["status"], "threshold_us": threshold,
                     "cyclictest": parsed}] + list(measurements_extra)
    return dict(report, probe=None, probe_baseline=None, guests=[], measurements=measurements)


def families(text):
    """{name: family} of the text, refusing a family that appears twice (its lines not together)."""
    found = {}
    for family in text_string_to_metric_families(text):
        assert family.name not in found, "family %s appears twice" % family.name
        found[family.name] = family
    return found


def series(found, name):
    """{labels without host: value} of one family, refusing a label set that appears twice."""
    out = {}
    for sample in found[name].samples:
        labels = dict(sample.labels)
        labels.pop("host")
        key = tuple(sorted(labels.items()))
        assert key not in out, "%s%s appears twice" % (name, key)
        out[key] = sample.value
    return out


def quantile(histogram, overflows, fraction):
    """The latency of the ceil(fraction * n)-th smallest sample, from the histogram laid out sample by sample;
    None when that sample lies beyond the histogram."""
    laid_out = []
    for latency, count in sorted(histogram):
        laid_out.extend([latency] * count)
    total = len(laid_out) + overflows
    rank = int(math.ceil(fraction * total))
    return laid_out[rank - 1] if rank <= len(laid_out) else None


class TestFormat:
    def test_every_family_is_a_documented_gauge_whose_samples_name_the_host(self):
        text = rt_validate_prometheus(built_report(), WHEN)
        found = families(text)
        assert sorted(found) == sorted(metric_names())
        for name, family in found.items():
            assert name.startswith("realtime_virt_")
            assert family.type == "gauge"
            assert family.documentation
            assert "# HELP %s " % name in text and "# TYPE %s gauge" % name in text
            for sample in family.samples:
                assert sample.labels["host"] == "node1"
                # the textfile collector refuses client-side timestamps
                assert sample.timestamp is None
        assert text.endswith("\n") and not text.endswith("\n\n")

    def test_label_values_with_quotes_backslashes_and_line_feeds_come_back_as_they_were(self):
        odd = 'say "hi" \\ back\nslash'
        # a backslash before n, before a quote, and at the end: each must come back as written
        extra = [_check(odd, "C:\\new", "pass"), _check("ends in \\", 'a\\"b', "fail")]
        report = built_report(host='node "1"', extra_checks=extra)
        found = families(rt_validate_prometheus(report, WHEN))
        hosts = set(s.labels["host"] for f in found.values() for s in f.samples)
        assert hosts == {'node "1"'}
        got = series(found, "realtime_virt_validate_check_status")
        assert got[(("check", "C:\\new"), ("status", "pass"), ("subject", odd))] == 1
        assert got[(("check", 'a\\"b'), ("status", "fail"), ("subject", "ends in \\"))] == 1

    def test_two_checks_of_the_same_subject_and_name_stay_two_series(self):
        report = built_report(extra_checks=[_check("host", "KSM", "pass"), _check("host", "KSM", "warn")])
        got = series(families(rt_validate_prometheus(report, WHEN)), "realtime_virt_validate_check_status")
        assert got[(("check", "KSM"), ("status", "fail"), ("subject", "host"))] == 1
        assert got[(("check", "KSM (2)"), ("status", "pass"), ("subject", "host"))] == 1
        assert got[(("check", "KSM (3)"), ("status", "warn"), ("subject", "host"))] == 1


class TestValues:
    def test_verdicts_match_the_report(self):
        report = built_report()
        found = families(rt_validate_prometheus(report, WHEN))
        expected = {}
        for item in report["checks"]:
            for status in STATUSES:
                key = (("check", item["check"]), ("status", status), ("subject", item["subject"]))
                expected[key] = 1.0 if item["status"] == status else 0.0
        assert series(found, "realtime_virt_validate_check_status") == expected
        assert series(found, "realtime_virt_validate_checks") == dict(
            ((("status", s),), float(report["counts"][s])) for s in STATUSES)
        assert series(found, "realtime_virt_validate_passed") == {(): 0.0}
        assert report["passed"] is False

    def test_an_accepted_failure_is_a_warning_and_the_host_passes(self):
        report = built_report(accept=["KSM"])
        found = families(rt_validate_prometheus(report, WHEN))
        got = series(found, "realtime_virt_validate_check_status")
        assert got[(("check", "KSM"), ("status", "warn"), ("subject", "host"))] == 1
        assert got[(("check", "KSM"), ("status", "fail"), ("subject", "host"))] == 0
        assert series(found, "realtime_virt_validate_passed") == {(): 1.0}

    @pytest.mark.parametrize("threshold", [40, 10])
    def test_latencies_in_seconds_match_the_measured_run(self, threshold):
        report = built_report(threshold=threshold)
        run = report["measurements"][0]["cyclictest"]
        found = families(rt_validate_prometheus(report, WHEN))
        key = (("kind", "host"), ("measurement", "host isolated CPUs 2-3"))
        assert series(found, "realtime_virt_validate_latency_max_seconds") == {key: run["max_us"] / 1e6}
        assert series(found, "realtime_virt_validate_latency_avg_seconds") == {key: run["avg_us"] / 1e6}
        assert series(found, "realtime_virt_validate_latency_min_seconds") == {key: run["min_us"] / 1e6}
        assert series(found, "realtime_virt_validate_latency_threshold_seconds") == {key: threshold / 1e6}
        samples = sum(count for _latency, count in run["histogram"]) + sum(run["overflows"])
        assert series(found, "realtime_virt_validate_latency_samples") == {key: samples}
        assert series(found, "realtime_virt_validate_latency_overflow_samples") == {key: sum(run["overflows"])}
        status = "pass" if run["max_us"] <= threshold else "fail"
        assert series(found, "realtime_virt_validate_measurement_status") == dict(
            (key + (("status", s),), 1.0 if s == status else 0.0) for s in STATUSES + ["baseline"])
        quantiles = series(found, "realtime_virt_validate_latency_quantile_seconds")
        for text, fraction in (("0.5", 0.5), ("0.99", 0.99), ("0.999", 0.999)):
            want = quantile(run["histogram"], sum(run["overflows"]), fraction)
            assert want is not None
            assert quantiles[key + (("quantile", text),)] == pytest.approx(want / 1e6, abs=1e-12)

    def test_quantiles_of_a_small_histogram_written_out(self):
        item = {"subject": "guest vm1", "kind": "guest", "status": "pass", "threshold_us": 40,
                "cyclictest": {"max_us": 30, "avg_us": 6, "min_us": 2, "histogram": [[2, 500], [9, 499], [30, 1]],
                               "overflows": [0]}}
        found = families(rt_validate_prometheus(built_report(measurements_extra=[item]), WHEN))
        quantiles = series(found, "realtime_virt_validate_latency_quantile_seconds")
        key = (("kind", "guest"), ("measurement", "guest vm1"))
        # 1000 samples: the 500th is the last at 2 us, the 990th and the 999th at 9 us
        assert quantiles[key + (("quantile", "0.5"),)] == 2e-6
        assert quantiles[key + (("quantile", "0.99"),)] == 9e-6
        assert quantiles[key + (("quantile", "0.999"),)] == 9e-6

    def test_a_quantile_among_the_overflows_has_no_series_and_a_run_without_result_only_its_status(self):
        beyond = {"subject": "probe", "kind": "probe", "status": "warn", "threshold_us": 40,
                  "cyclictest": {"max_us": 2000, "avg_us": 5, "min_us": 1, "histogram": [[3, 990]],
                                 "overflows": [10]}}
        empty = {"subject": "guest vm2", "kind": "guest", "status": "fail", "threshold_us": 40,
                 "cyclictest": {"max_us": None, "histogram": [], "error": "no output"}}
        found = families(rt_validate_prometheus(built_report(measurements_extra=[beyond, empty]), WHEN))
        quantiles = series(found, "realtime_virt_validate_latency_quantile_seconds")
        probe = (("kind", "probe"), ("measurement", "probe"))
        # 990 samples in the histogram and 10 beyond it
        assert series(found, "realtime_virt_validate_latency_samples")[probe] == 1000
        assert series(found, "realtime_virt_validate_latency_overflow_samples")[probe] == 10
        assert quantiles[probe + (("quantile", "0.5"),)] == 3e-6
        assert probe + (("quantile", "0.99"),) in quantiles
        assert probe + (("quantile", "0.999"),) not in quantiles
        guest = (("kind", "guest"), ("measurement", "guest vm2"))
        for name in ("latency_max_seconds", "latency_samples", "latency_quantile_seconds"):
            assert not [k for k in series(found, "realtime_virt_validate_" + name) if k[:2] == guest]
        assert series(found, "realtime_virt_validate_measurement_status")[guest + (("status", "fail"),)] == 1

    @pytest.mark.parametrize("when", [WHEN, WHEN_EPOCH, float(WHEN_EPOCH)])
    def test_the_run_time_as_unix_time(self, when):
        found = families(rt_validate_prometheus(built_report(), when))
        assert series(found, "realtime_virt_validate_run_timestamp_seconds") == {(): WHEN_EPOCH}
        assert calendar.timegm((2026, 12, 4, 12, 15, 0)) == WHEN_EPOCH

    @pytest.mark.parametrize("when", ["yesterday", "2026-12-04 12:15:00", None, True, -1, float("nan")])
    def test_a_time_that_is_not_one_fails_naming_it(self, when):
        with pytest.raises(AnsibleFilterError, match="rt_validate_prometheus: time=.*Fix:"):
            rt_validate_prometheus(built_report(), when)

    @pytest.mark.parametrize("report", ["node1", [], {"host": "h", "checks": "none"}])
    def test_not_a_report_fails_saying_what_to_give(self, report):
        with pytest.raises(AnsibleFilterError, match="rt_validate_prometheus"):
            rt_validate_prometheus(report, WHEN)


def test_every_metric_name_is_documented():
    docs = {}
    for path in ("docs/rollout.md", "roles/rt_validate/README.md", "roles/rt_validate/meta/argument_specs.yml",
                 "plugins/filter/rt_validate_prometheus.yml"):
        with open(os.path.join(TOP, path)) as handle:
            docs[path] = handle.read()
    yaml.safe_load(docs["plugins/filter/rt_validate_prometheus.yml"])
    for path, text in docs.items():
        missing = [name for name in metric_names() + ptp_metric_names() if name not in text]
        assert missing == [], "%s lacks %s" % (path, missing)
