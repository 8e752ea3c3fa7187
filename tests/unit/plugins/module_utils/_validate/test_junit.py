# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The JUnit XML of the checks, read back with junitparser.

The reports are built as the role builds them (a measured run judged
against its threshold, the checks turned into a report); the suites,
cases and failures they must give are written out here from those
reports, not by the code under test.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible.errors import AnsibleFilterError
from junitparser import Failure, JUnitXml, Skipped

from ansible_collections.realtime.virt.plugins.filter.rt_validate import (
    rt_validate_junit, rt_validate_latency_check, rt_validate_report)
from ansible_collections.realtime.virt.plugins.module_utils._validate.cyclictest import parse_cyclictest

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "cyclictest")
STAMP = "2026-12-04T12:15:00"


def _check(subject, name, status, expected="x", observed="y", message=""):
    return {"subject": subject, "check": name, "expected": expected, "observed": observed, "status": status,
            "message": message}


def host_report(host, threshold, accept=None, extra=()):
    """One host's report as report.yml builds it, around the fixture's measured cyclictest run."""
    with open(os.path.join(FIXTURES, "host-2threads.txt")) as handle:
        parsed = parse_cyclictest(handle.read())
    checks = [_check("domain vm1", "real-time vCPUs pinned", "pass"),
              rt_validate_latency_check(parsed, "host isolated CPUs 2-3", threshold_us=threshold),
              _check("host", "tuned-adm verify", "skip", observed="no tuned-adm"),
              _check("host", "KSM", "fail", "run in [0, 2]", "/sys/kernel/mm/ksm/run: 1", "host: KSM runs")]
    checks.extend(extra)
    report = rt_validate_report(checks, host, accept=accept)
    return dict(report, measurements=[{"subject": "host isolated CPUs 2-3", "kind": "host", "threshold_us": threshold,
                                       "status": checks[1]["status"], "cyclictest": parsed}])


def read(text):
    # as a CI reads the file: bytes, the encoding from the XML declaration
    xml = JUnitXml.fromstring(text.encode("utf-8"))
    assert isinstance(xml, JUnitXml), "the root is not <testsuites>"
    return xml


def outcome(case):
    """('fail', message, text) / ('skip', message, None) / ('pass', None, None) of a parsed testcase."""
    results = list(case.result)
    assert len(results) <= 1
    if not results:
        return ("pass", None, None)
    if isinstance(results[0], Failure):
        return ("fail", results[0].message, results[0].text)
    assert isinstance(results[0], Skipped)
    return ("skip", results[0].message, None)


class TestSuitesAndCases:
    def test_one_suite_per_host_one_case_per_check_failures_with_the_measured_value(self):
        # the fixture's run peaks well above 10 us: node-b fails its cyclictest check, node-a (1000 us) does not
        reports = [host_report("node-b", 10), host_report("node-a", 1000)]
        max_us = reports[0]["measurements"][0]["cyclictest"]["max_us"]
        assert 10 < max_us <= 1000
        xml = read(rt_validate_junit(reports, timestamp=STAMP))
        suites = list(xml)
        assert [s.name for s in suites] == ["node-a", "node-b"]
        want = {
            "node-a": [("domain vm1: real-time vCPUs pinned", "pass"),
                       ("host isolated CPUs 2-3: cyclictest", "pass"),
                       ("host: tuned-adm verify", "skip"),
                       ("host: KSM", "fail")],
            "node-b": [("domain vm1: real-time vCPUs pinned", "pass"),
                       ("host isolated CPUs 2-3: cyclictest", "fail"),
                       ("host: tuned-adm verify", "skip"),
                       ("host: KSM", "fail")],
        }
        for suite in suites:
            cases = list(suite)
            assert [(c.name, outcome(c)[0]) for c in cases] == want[suite.name]
            assert set(c.classname for c in cases) == {suite.name.replace(".", "_")}
            assert suite.hostname == suite.name
            assert suite.timestamp == STAMP
            assert (suite.tests, suite.failures, suite.skipped, suite.errors) == (
                4, sum(1 for _n, s in want[suite.name] if s == "fail"), 1, 0)
        assert (xml.tests, xml.failures, xml.skipped, xml.errors) == (8, 3, 2, 0)
        latency = outcome(list(suites[1])[1])
        assert "max latency %s us is above 10 us" % max_us in latency[1]
        assert "expected: max latency <= 10 us" in latency[1]
        assert "observed: max %s us" % max_us in latency[1]
        assert latency[2].splitlines()[0] == "expected: max latency <= 10 us"
        ksm = outcome(list(suites[0])[3])
        assert ksm[1] == "host: KSM runs (expected: run in [0, 2]; observed: /sys/kernel/mm/ksm/run: 1)"
        assert outcome(list(suites[0])[2])[1] == "no tuned-adm"

    def test_an_accepted_failure_passes_and_says_so(self):
        xml = read(rt_validate_junit([host_report("node-a", 1000, accept=["KSM"])], timestamp=STAMP))
        suite = list(xml)[0]
        ksm = [c for c in suite if c.name == "host: KSM"][0]
        assert outcome(ksm)[0] == "pass"
        assert ksm.system_out.startswith("WARN (accepted): accepted (rt_validate_accept): host: KSM runs")
        assert suite.failures == 0

    def test_a_host_with_dots_and_text_xml_cannot_carry(self):
        odd = _check("guest <vm&1>", 'say "hi"', "fail", "max latency <= 40 us", "colour \x1b[31mred\x1b[0m",
                     "guest <vm&1>: it \x07 rang")
        xml = read(rt_validate_junit([host_report("kvm1.example.com", 1000, extra=[odd])]))
        suite = list(xml)[0]
        assert suite.name == "kvm1.example.com"
        case = list(suite)[-1]
        assert case.classname == "kvm1_example_com"
        assert case.name == 'guest <vm&1>: say "hi"'
        message = outcome(case)[1]
        assert message == (u"guest <vm&1>: it \ufffd rang (expected: max latency <= 40 us; "
                           u"observed: colour \ufffd[31mred\ufffd[0m)")

    def test_no_host_is_an_empty_document(self):
        xml = read(rt_validate_junit([]))
        assert list(xml) == [] and xml.tests == 0


@pytest.mark.parametrize("reports", ["node1", {"host": "node1"}, [{"host": "h", "checks": {}}]])
def test_not_reports_fails_saying_what_to_give(reports):
    with pytest.raises(AnsibleFilterError, match="rt_validate_junit"):
        rt_validate_junit(reports)
