# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The time-sync filters, and the ptp measurement on the fleet page and in the Prometheus textfile.

Expected values are literals read off tests/unit/fixtures/ptp.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible.errors import AnsibleFilterError
from prometheus_client.parser import text_string_to_metric_families

from ansible_collections.realtime.virt.plugins.filter.rt_validate import FilterModule
from ansible_collections.realtime.virt.plugins.module_utils._validate.prometheus import ptp_metric_names

FILTERS = FilterModule().filters()
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "ptp")
WHEN = "2026-12-04T12:15:00Z"


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def test_pmc_filter_parses():
    parsed = FILTERS["rt_validate_pmc"](fixture("pmc-free-running-with-gm.txt"))
    assert parsed["PORT_DATA_SET"]["portState"] == "UNCALIBRATED"
    assert parsed["CURRENT_DATA_SET"]["offsetFromMaster"] == -113.0


def test_ptp_checks_take_text_or_parsed_and_keyword_options():
    text = fixture("pmc-locked-client.txt")
    options = dict(ptp4l_log=fixture("ptp4l-client-locked.log"), phc2sys_expected=True,
                   phc2sys_log=fixture("phc2sys.log"),
                   daemons=[{"name": "ptp4l", "pid": 812, "cpus_allowed": "0-1", "policy": "SCHED_FIFO",
                             "priority": 10}],
                   isolated="2-5", clocksource="tsc", ptp_kvm_guests=True)
    from_text = FILTERS["rt_validate_ptp_checks"](text, "host PTP", **options)
    from_parsed = FILTERS["rt_validate_ptp_checks"](FILTERS["rt_validate_pmc"](text), "host PTP", **options)
    assert from_text == from_parsed
    assert [(c["check"], c["status"]) for c in from_text] == [
        ("ptp port state", "pass"), ("ptp servo", "pass"), ("ptp offset from master", "pass"),
        ("grandmaster present", "pass"), ("phc2sys offset", "pass"), ("time daemons off isolated CPUs", "pass"),
        ("host clocksource", "pass")]


def test_ptp_checks_isolated_as_a_list_and_a_shared_cpu():
    checks = FILTERS["rt_validate_ptp_checks"](
        "", "host PTP", daemons=[{"name": "phc2sys", "pid": 9, "cpus_allowed": [3], "policy": "SCHED_OTHER",
                                  "priority": 0}], isolated=[2, 3])
    assert checks[-1]["check"] == "time daemons off isolated CPUs" and checks[-1]["status"] == "fail"


def test_measurement_filter_takes_the_log_positionally():
    measured = FILTERS["rt_validate_ptp_measurement"](fixture("pmc-locked-client.txt"), "host PTP",
                                                      fixture("ptp4l-client-locked.log"))
    assert measured == {"subject": "host PTP", "kind": "ptp", "offset_ns": -7.0, "path_delay_ns": 512.0,
                        "port_state": "SLAVE", "servo": "s2", "max_offset_ns": 100, "status": "pass"}


def test_chrony_filter():
    checks = FILTERS["rt_validate_chrony_checks"](fixture("chronyc-tracking-phc.csv"),
                                                  fixture("chronyc-sources-phc.csv"), "guest vm1")
    assert [(c["check"], c["status"]) for c in checks] == [("chrony source", "pass"), ("chrony offset", "pass")]


@pytest.mark.parametrize("call, words", [
    (lambda: FILTERS["rt_validate_pmc"](None), ["rt_validate_pmc", "NoneType", "Fix:"]),
    (lambda: FILTERS["rt_validate_ptp_checks"]({}, "h", max_offset_ns=True), ["max_offset_ns=True"]),
    (lambda: FILTERS["rt_validate_ptp_checks"]({}, "h", max_phc2sys_offset_ns="10"), ["max_phc2sys_offset_ns='10'"]),
    (lambda: FILTERS["rt_validate_ptp_checks"]({}, "h", daemons={"ptp4l": [1]}), ["daemons=", "Fix:"]),
    (lambda: FILTERS["rt_validate_ptp_checks"]({}, "h", daemons=[{"name": "ptp4l"}]), ["no cpus_allowed", "Fix:"]),
    (lambda: FILTERS["rt_validate_ptp_checks"]({}, "h", clocksource=["tsc"]), ["clocksource=['tsc']", "Fix:"]),
    (lambda: FILTERS["rt_validate_chrony_checks"]("", None, "g", refid=5), ["refid=5", "Fix:"]),
    (lambda: FILTERS["rt_validate_ptp_measurement"]({}, "h", 42), ["log=42", "Fix:"]),
])
def test_bad_values_name_the_option(call, words):
    with pytest.raises(AnsibleFilterError) as error:
        call()
    for word in words:
        assert word in str(error.value)


def report(host, measurements):
    checks = [{"subject": "host", "check": "KSM", "expected": "0", "observed": "0", "status": "pass", "message": ""}]
    out = FILTERS["rt_validate_report"](checks, host)
    return dict(out, measurements=measurements)


LOCKED = {"subject": "host PTP", "kind": "ptp", "offset_ns": -7.0, "path_delay_ns": 512.0, "port_state": "SLAVE",
          "servo": "s2", "max_offset_ns": 100, "status": "pass"}
FREE = {"subject": "host PTP", "kind": "ptp", "offset_ns": -113.0, "path_delay_ns": 2466.0,
        "port_state": "UNCALIBRATED", "servo": "s0", "max_offset_ns": 100, "status": "fail"}


class TestFleetPage:
    def test_offset_in_the_row_the_section_and_the_summary(self):
        page = FILTERS["rt_validate_html"]([report("node1", [LOCKED]), report("node2", [FREE])])
        assert "host PTP: PTP offset -7 ns, path delay 512 ns, SLAVE s2" in page
        assert "host PTP: PTP offset -113 ns, path delay 2466 ns, UNCALIBRATED s0" in page
        assert '<table class="ptp">' in page
        assert '<td class="num">-113 ns<td class="num">2466 ns<td>UNCALIBRATED<td>s0<td class="num">100 ns' in page
        # across the hosts: |offsets| 7 and 113; p50 of two is the first, p90 and p99 the second
        assert ('<table class="ptp-fleet">' in page and
                '<td class="num">2</td><td class="num">7 ns</td><td class="num">7 ns</td><td class="num">113 ns</td>'
                '<td class="num">113 ns</td><td class="num">113 ns (<a href="#host-node2">node2</a>)</td>' in page)
        # a ptp measurement draws no latency histogram
        assert "<figure>" not in page

    def test_a_page_without_ptp_has_none_of_it(self):
        page = FILTERS["rt_validate_html"]([report("node1", [])])
        assert "ptp" not in page.lower()


def families(text):
    return dict((family.name, family) for family in text_string_to_metric_families(text))


class TestPrometheus:
    def test_ptp_families(self):
        found = families(FILTERS["rt_validate_prometheus"](report("node1", [FREE]), WHEN))
        for name in ptp_metric_names():
            assert found[name].type == "gauge"
        values = dict((s.name, s.value) for s in found["realtime_virt_validate_ptp_offset_seconds"].samples)
        assert values == {"realtime_virt_validate_ptp_offset_seconds": -1.13e-07}
        assert [s.labels for s in found["realtime_virt_validate_ptp_offset_seconds"].samples] == [
            {"host": "node1", "measurement": "host PTP"}]
        assert found["realtime_virt_validate_ptp_path_delay_seconds"].samples[0].value == 2.466e-06
        assert found["realtime_virt_validate_ptp_offset_threshold_seconds"].samples[0].value == 1e-07
        status = dict((s.labels["status"], s.value) for s in found["realtime_virt_validate_ptp_status"].samples)
        assert status == {"pass": 0, "fail": 1, "warn": 0, "skip": 0}
        # no latency family for it
        assert "realtime_virt_validate_measurement_status" not in found

    def test_a_report_without_ptp_writes_none(self):
        text = FILTERS["rt_validate_prometheus"](report("node1", []), WHEN)
        assert "ptp" not in text
