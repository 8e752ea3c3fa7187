# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The time-sync checks against the captured linuxptp outputs and hand-written ones (tests/unit/fixtures/ptp).

Expected values are read off the fixture files by eye and written here as
literals; nothing is computed with the code under test.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._validate import ptp

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "ptp")


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def by_name(checks):
    out = {}
    for item in checks:
        assert item["check"] not in out, item["check"]
        out[item["check"]] = item
    return out


WITH_GM = "pmc-free-running-with-gm.txt"
GM_STOPPED = "pmc-free-running-gm-stopped.txt"
LOCKED = "pmc-locked-client.txt"


class TestParsePmc:
    def test_free_running_client_with_its_grandmaster(self):
        parsed = ptp.parse_pmc(fixture(WITH_GM))
        assert parsed["CURRENT_DATA_SET"] == {"stepsRemoved": 1, "offsetFromMaster": -113.0, "meanPathDelay": 2466.0}
        assert parsed["PORT_DATA_SET"]["portState"] == "UNCALIBRATED"
        assert parsed["PORT_DATA_SET"]["portIdentity"] == "62c0da.fffe.3d91b4-1"
        assert parsed["PORT_DATA_SET"]["logSyncInterval"] == "0"
        assert parsed["TIME_STATUS_NP"]["master_offset"] == -113
        assert parsed["TIME_STATUS_NP"]["gmPresent"] is True
        assert parsed["TIME_STATUS_NP"]["gmIdentity"] == "72e6f4.fffe.aa23ba"
        assert parsed["TIME_STATUS_NP"]["lastGmPhaseChange"] == "0x0000'0000000000000000.0000"
        assert parsed["ports"] == [parsed["PORT_DATA_SET"]]
        assert sorted(parsed) == ["CURRENT_DATA_SET", "PORT_DATA_SET", "TIME_STATUS_NP", "ports"]

    def test_grandmaster_stopped_keeps_gm_present(self):
        parsed = ptp.parse_pmc(fixture(GM_STOPPED))
        assert parsed["PORT_DATA_SET"]["portState"] == "LISTENING"
        assert parsed["TIME_STATUS_NP"]["gmPresent"] is True
        assert parsed["TIME_STATUS_NP"]["master_offset"] == 588

    def test_parent_data_set(self):
        parsed = ptp.parse_pmc(fixture(LOCKED))
        assert parsed["PARENT_DATA_SET"]["grandmasterIdentity"] == "b49691.fffe.0a1c2e"
        assert parsed["PARENT_DATA_SET"]["gm.ClockClass"] == "6"
        assert parsed["CURRENT_DATA_SET"]["offsetFromMaster"] == -7.0

    def test_several_ports_are_all_kept(self):
        text = ("sending: GET PORT_DATA_SET\n"
                "\taabbcc.fffe.000001-1 seq 0 RESPONSE MANAGEMENT PORT_DATA_SET \n"
                "\t\tportIdentity            aabbcc.fffe.000001-1\n"
                "\t\tportState               MASTER\n"
                "\taabbcc.fffe.000001-2 seq 0 RESPONSE MANAGEMENT PORT_DATA_SET \n"
                "\t\tportIdentity            aabbcc.fffe.000001-2\n"
                "\t\tportState               SLAVE\n")
        parsed = ptp.parse_pmc(text)
        assert [p["portState"] for p in parsed["ports"]] == ["MASTER", "SLAVE"]
        assert parsed["PORT_DATA_SET"]["portState"] == "MASTER"
        assert ptp.port_state(parsed) == "SLAVE"

    def test_an_error_answer_is_left_out(self):
        text = ("sending: GET TIME_STATUS_NP\n"
                "\taabbcc.fffe.000001-0 seq 0 RESPONSE MANAGEMENT_ERROR_STATUS TIME_STATUS_NP\n"
                "\t\tERROR MESSAGE       NOT_SUPPORTED\n")
        assert ptp.parse_pmc(text) == {}

    @pytest.mark.parametrize("text", ["", None, "sending: GET PORT_DATA_SET\n", "garbage\n\tportState SLAVE\n",
                                      "\t\tportState SLAVE\n"])
    def test_no_answer_is_empty(self, text):
        assert ptp.parse_pmc(text) == {}


class TestServoLog:
    def test_last_master_offset_of_the_free_running_client(self):
        assert ptp.parse_servo_log(fixture("ptp4l-client-free-running.log"), "ptp4l") == {
            "offset_ns": 588, "servo": "s0", "freq": 60, "delay": 1885}

    def test_locked_client(self):
        assert ptp.parse_servo_log(fixture("ptp4l-client-locked.log"), "ptp4l") == {
            "offset_ns": -7, "servo": "s2", "freq": -15330, "delay": 512}

    def test_phc2sys(self):
        assert ptp.parse_servo_log(fixture("phc2sys.log"), "phc2sys") == {
            "offset_ns": -12, "servo": "s2", "freq": 1234, "delay": 500}

    def test_phc2sys_sys_offset_without_delay(self):
        line = "phc2sys[10.0]: CLOCK_REALTIME sys offset       -31 s3 freq    -220\n"
        assert ptp.parse_servo_log(line, "phc2sys") == {"offset_ns": -31, "servo": "s3", "freq": -220, "delay": None}

    def test_journal_form_without_the_program_prefix(self):
        line = "[34613.126] master offset        390 s0 freq     +85 path delay      1743\n"
        assert ptp.parse_servo_log(line, "ptp4l")["offset_ns"] == 390

    @pytest.mark.parametrize("text, program", [
        ("", "ptp4l"), (None, "phc2sys"), (fixture("ptp4l-gm.log"), "ptp4l"),
        (fixture("phc2sys.log"), "ptp4l"), (fixture("ptp4l-client-locked.log"), "phc2sys")])
    def test_none_without_a_line_of_that_program(self, text, program):
        assert ptp.parse_servo_log(text, program) is None


def run(name, **options):
    return by_name(ptp.ptp_checks(ptp.parse_pmc(fixture(name)), "host PTP", **options))


class TestPtpChecks:
    def test_locked_client_passes_everything(self):
        checks = run(LOCKED, ptp4l_log=fixture("ptp4l-client-locked.log"))
        assert sorted(checks) == ["grandmaster present", "ptp offset from master", "ptp port state", "ptp servo"]
        assert [c["status"] for c in checks.values()] == ["pass"] * 4
        assert checks["ptp port state"]["observed"] == "SLAVE"
        assert checks["ptp servo"]["observed"].startswith("s2 (LOCKED")
        assert checks["ptp offset from master"]["observed"] == "-7 ns (offsetFromMaster)"
        assert "100 ns" in checks["ptp offset from master"]["expected"]
        assert "OpenShift" in checks["ptp offset from master"]["expected"]
        assert checks["grandmaster present"]["observed"] == "gmPresent true, gmIdentity b49691.fffe.0a1c2e, port SLAVE"

    def test_free_running_client_unlocked_by_design(self):
        checks = run(WITH_GM, free_running=True, ptp4l_log=fixture("ptp4l-client-free-running.log"))
        assert checks["ptp port state"]["status"] == "pass"
        assert checks["ptp port state"]["observed"] == "UNCALIBRATED"
        assert "free_running" in checks["ptp port state"]["expected"]
        assert checks["ptp servo"]["status"] == "pass"
        assert checks["ptp servo"]["observed"].startswith("s0 (FREERUN")
        assert "free_running" in checks["ptp servo"]["expected"]
        assert checks["grandmaster present"]["status"] == "pass"
        # the offset is still judged: |-113| is beyond the default 100 ns
        assert checks["ptp offset from master"]["observed"] == "-113 ns (offsetFromMaster)"
        assert checks["ptp offset from master"]["status"] == "fail"
        assert "-113 ns" in checks["ptp offset from master"]["message"]

    def test_offset_at_and_beyond_the_bound(self):
        assert run(WITH_GM, free_running=True, max_offset_ns=113)["ptp offset from master"]["status"] == "pass"
        assert run(WITH_GM, free_running=True, max_offset_ns=112)["ptp offset from master"]["status"] == "fail"

    def test_uncalibrated_without_free_running_fails(self):
        checks = run(WITH_GM)
        assert checks["ptp port state"]["status"] == "fail"
        assert "not locked yet" in checks["ptp port state"]["message"] or "has not locked" in \
            checks["ptp port state"]["message"]
        assert checks["ptp servo"]["status"] == "fail"
        assert checks["ptp servo"]["observed"].startswith("unlocked inferred from port UNCALIBRATED")

    def test_servo_inferred_locked_from_slave(self):
        checks = run(LOCKED)
        assert checks["ptp servo"]["status"] == "pass"
        assert checks["ptp servo"]["observed"].startswith("locked inferred from port SLAVE")

    def test_grandmaster_stopped_fails_although_gm_present_says_true(self):
        checks = run(GM_STOPPED, free_running=True, ptp4l_log=fixture("ptp4l-client-free-running.log"))
        gm = checks["grandmaster present"]
        assert gm["status"] == "fail"
        assert gm["observed"] == "gmPresent true, gmIdentity 72e6f4.fffe.aa23ba, port LISTENING"
        port = checks["ptp port state"]
        assert port["status"] == "fail" and port["observed"] == "LISTENING"
        for word in ("check the link", "domain number", "pmc -d", "transport"):
            assert word in port["message"]
        assert checks["ptp servo"]["status"] == "fail"
        assert checks["ptp servo"]["observed"] == "port LISTENING, last log line s0 (stale)"
        assert checks["ptp offset from master"]["status"] == "fail"
        assert checks["ptp offset from master"]["observed"] == "588 ns (offsetFromMaster), stale: port LISTENING"

    def test_stale_offset_fails_even_within_the_bound(self):
        checks = run(GM_STOPPED, free_running=True, max_offset_ns=1000)
        assert checks["ptp offset from master"]["status"] == "fail"
        assert "stale" in checks["ptp offset from master"]["message"]

    def test_gm_present_false_fails(self):
        parsed = ptp.parse_pmc(fixture(LOCKED).replace("gmPresent                  true",
                                                       "gmPresent                  false"))
        assert by_name(ptp.ptp_checks(parsed, "h"))["grandmaster present"]["status"] == "fail"

    @pytest.mark.parametrize("state, word", [("MASTER", "clientOnly"), ("FAULTY", "ethtool -T"),
                                             ("LISTENING", "check the link"), ("PASSIVE", "domain number")])
    def test_a_port_that_follows_no_master_fails_naming_the_fix(self, state, word):
        parsed = ptp.parse_pmc(fixture(LOCKED).replace("portState               SLAVE",
                                                       "portState               %s" % state))
        checks = by_name(ptp.ptp_checks(parsed, "h", free_running=True))
        assert checks["ptp port state"]["status"] == "fail"
        assert checks["ptp port state"]["observed"] == state
        assert word in checks["ptp port state"]["message"]
        assert checks["grandmaster present"]["status"] == "fail"

    def test_pmc_answered_nothing(self):
        checks = by_name(ptp.ptp_checks({}, "host PTP"))
        assert checks["ptp port state"]["status"] == "fail"
        assert checks["ptp port state"]["observed"] == "pmc answered nothing"
        assert "ptp4l is not running" in checks["ptp port state"]["message"]
        assert "pmc -d" in checks["ptp port state"]["message"]
        # the unit the ptp role installs (roles/ptp/templates), not a ptp4l.service
        assert "systemctl status realtime-virt-ptp4l," in checks["ptp port state"]["message"]
        assert [c["status"] for c in checks.values()] == ["fail"] * 4

    def test_offset_from_the_log_when_pmc_gives_none(self):
        checks = by_name(ptp.ptp_checks({}, "h", ptp4l_log=fixture("ptp4l-client-locked.log")))
        assert checks["ptp offset from master"]["observed"] == "-7 ns (ptp4l log)"
        assert checks["ptp offset from master"]["status"] == "pass"
        assert checks["ptp servo"]["status"] == "pass"

    def test_master_offset_when_no_current_data_set(self):
        parsed = ptp.parse_pmc(fixture(LOCKED))
        del parsed["CURRENT_DATA_SET"]
        assert by_name(ptp.ptp_checks(parsed, "h"))["ptp offset from master"]["observed"] == "-7 ns (master_offset)"

    def test_unlocked_servo_in_the_log_fails_without_free_running(self):
        log = "ptp4l[1.0]: master offset -27396 s1 freq +12060 path delay 530\n"
        checks = run(LOCKED, ptp4l_log=log)
        assert checks["ptp servo"]["status"] == "fail"
        assert checks["ptp servo"]["observed"] == "s1 (FREERUN, ptp4l log)"
        assert run(LOCKED, ptp4l_log=log.replace("s1", "s3"))["ptp servo"]["status"] == "pass"


class TestPhc2sys:
    def test_not_checked_unless_expected(self):
        assert "phc2sys offset" not in run(LOCKED, phc2sys_log=fixture("phc2sys.log"))

    def test_locked_within_bound(self):
        item = run(LOCKED, phc2sys_expected=True, phc2sys_log=fixture("phc2sys.log"))["phc2sys offset"]
        assert item["status"] == "pass"
        assert item["observed"] == "-12 ns s2, freq +1234, delay 500 ns"

    def test_bound(self):
        log = fixture("phc2sys.log")
        assert run(LOCKED, phc2sys_expected=True, phc2sys_log=log, max_phc2sys_offset_ns=12)[
            "phc2sys offset"]["status"] == "pass"
        assert run(LOCKED, phc2sys_expected=True, phc2sys_log=log, max_phc2sys_offset_ns=11)[
            "phc2sys offset"]["status"] == "fail"

    def test_unlocked_fails(self):
        log = "phc2sys[1.0]: CLOCK_REALTIME phc offset 5 s0 freq +1 delay 500\n"
        assert run(LOCKED, phc2sys_expected=True, phc2sys_log=log)["phc2sys offset"]["status"] == "fail"

    @pytest.mark.parametrize("log", [None, "", "phc2sys[1.0]: Waiting for ptp4l...\n"])
    def test_missing_log_fails_naming_phc2sys(self, log):
        item = run(LOCKED, phc2sys_expected=True, phc2sys_log=log)["phc2sys offset"]
        assert item["status"] == "fail"
        assert "phc2sys" in item["message"] and "journalctl -u phc2sys" in item["message"]


def daemon(name, pid, cpus, policy="SCHED_FIFO", priority=10):
    return {"name": name, "pid": pid, "cpus_allowed": cpus, "policy": policy, "priority": priority}


class TestDaemons:
    def test_off_isolated_cpus_passes(self):
        item = run(LOCKED, daemons=[daemon("ptp4l", 812, [0, 1]), daemon("phc2sys", 813, [0], "SCHED_OTHER", 0)],
                   isolated=[2, 3, 4, 5])["time daemons off isolated CPUs"]
        assert item["status"] == "pass"
        assert item["observed"] == "ptp4l (pid 812) CPUs 0-1 SCHED_FIFO 10; phc2sys (pid 813) CPUs 0 SCHED_OTHER 0"
        assert item["expected"] == "no CPU of isolated 2-5"

    def test_one_shared_cpu_fails_citing_seapath(self):
        item = run(LOCKED, daemons=[daemon("ptp4l", 812, [0, 1]), daemon("phc2sys", 813, [1, 2])],
                   isolated=[2, 3])["time daemons off isolated CPUs"]
        assert item["status"] == "fail"
        assert "phc2sys (pid 813) on 2" in item["message"]
        assert "ptp4l (pid 812)" not in item["message"]
        assert "SEAPATH issue #857" in item["message"]
        assert "CPUAffinity=" in item["message"]

    def test_no_isolated_cpus_passes(self):
        assert run(LOCKED, daemons=[daemon("ptp4l", 1, [0, 1, 2, 3])], isolated=[])[
            "time daemons off isolated CPUs"]["status"] == "pass"

    def test_unknown_isolation_or_no_daemon_skips(self):
        assert run(LOCKED, daemons=[daemon("ptp4l", 1, [0])])["time daemons off isolated CPUs"]["status"] == "skip"
        assert run(LOCKED, daemons=[], isolated=[2])["time daemons off isolated CPUs"]["status"] == "skip"

    def test_not_checked_without_daemons(self):
        assert "time daemons off isolated CPUs" not in run(LOCKED, isolated=[2])


class TestClocksource:
    def test_only_with_ptp_kvm_guests(self):
        assert "host clocksource" not in run(LOCKED, clocksource="hpet")

    @pytest.mark.parametrize("source, status", [("tsc", "pass"), ("tsc\n", "pass"), ("hpet", "fail"),
                                                ("kvm-clock", "fail"), ("", "fail"), (None, "fail")])
    def test_tsc_only(self, source, status):
        item = run(LOCKED, clocksource=source, ptp_kvm_guests=True)["host clocksource"]
        assert item["status"] == status
        if status == "fail":
            assert "BZ 1780165" in item["message"]


class TestMeasurement:
    def test_locked(self):
        assert ptp.ptp_measurement("host PTP", ptp.parse_pmc(fixture(LOCKED)), fixture("ptp4l-client-locked.log")) == {
            "subject": "host PTP", "kind": "ptp", "offset_ns": -7.0, "path_delay_ns": 512.0, "port_state": "SLAVE",
            "servo": "s2", "max_offset_ns": 100, "status": "pass"}

    def test_free_running_beyond_the_bound(self):
        measured = ptp.ptp_measurement("host PTP", ptp.parse_pmc(fixture(WITH_GM)),
                                       fixture("ptp4l-client-free-running.log"), free_running=True)
        assert measured == {"subject": "host PTP", "kind": "ptp", "offset_ns": -113.0, "path_delay_ns": 2466.0,
                            "port_state": "UNCALIBRATED", "servo": "s0", "max_offset_ns": 100, "status": "fail"}
        assert ptp.ptp_measurement("host PTP", ptp.parse_pmc(fixture(WITH_GM)), None, free_running=True,
                                   max_offset_ns=200)["status"] == "pass"

    def test_grandmaster_stopped(self):
        measured = ptp.ptp_measurement("host PTP", ptp.parse_pmc(fixture(GM_STOPPED)), None, free_running=True,
                                       max_offset_ns=1000)
        assert measured["port_state"] == "LISTENING" and measured["status"] == "fail"

    def test_nothing(self):
        assert ptp.ptp_measurement("h", {}, None) == {
            "subject": "h", "kind": "ptp", "offset_ns": None, "path_delay_ns": None, "port_state": None,
            "servo": None, "max_offset_ns": 100, "status": "fail"}

    def test_path_delay_from_the_log(self):
        assert ptp.ptp_measurement("h", {}, fixture("ptp4l-client-locked.log"))["path_delay_ns"] == 512


class TestChrony:
    def test_tracking_fields_in_chronyc_order(self):
        tracking = ptp.parse_chrony_tracking(fixture("chronyc-tracking-phc.csv"))
        assert tracking["refid"] == "50484330"
        assert tracking["name"] == "PHC0"
        assert tracking["system_time_s"] == -0.000000012
        assert tracking["freq_ppm"] == -12.345
        assert tracking["update_interval_s"] == 2.0
        assert tracking["leap"] == "Normal"

    def test_sources_fields_in_chronyc_order(self):
        sources = ptp.parse_chrony_sources(fixture("chronyc-sources-phc.csv"))
        assert [(s["mode"], s["state"], s["name"], s["reach"]) for s in sources] == [
            ("#", "*", "PHC0", "377"), ("^", "-", "192.0.2.10", "377")]
        assert sources[0]["offset_s"] == -0.000000012
        assert sources[0]["error_s"] == 0.00000005

    def test_phc_selected_and_close(self):
        checks = by_name(ptp.chrony_checks(fixture("chronyc-tracking-phc.csv"), fixture("chronyc-sources-phc.csv"),
                                           "guest vm1"))
        assert checks["chrony source"]["status"] == "pass"
        assert checks["chrony source"]["observed"] == "#* PHC0, ^- 192.0.2.10"
        assert checks["chrony offset"]["status"] == "pass"
        assert checks["chrony offset"]["observed"] == "-12 ns (reference PHC0, leap Normal)"
        assert "1000 ns" in checks["chrony offset"]["expected"]

    def test_offset_bound(self):
        args = (fixture("chronyc-tracking-phc.csv"), fixture("chronyc-sources-phc.csv"), "g")
        assert by_name(ptp.chrony_checks(*args, max_offset_ns=12))["chrony offset"]["status"] == "pass"
        assert by_name(ptp.chrony_checks(*args, max_offset_ns=11))["chrony offset"]["status"] == "fail"

    def test_ntp_selected_fails_with_the_fix(self):
        checks = by_name(ptp.chrony_checks(fixture("chronyc-tracking-ntp.csv"), fixture("chronyc-sources-ntp.csv"),
                                           "guest vm1"))
        assert checks["chrony source"]["status"] == "fail"
        assert "selects 192.0.2.10" in checks["chrony source"]["message"]
        assert "refclock PHC /dev/ptp_kvm" in checks["chrony source"]["message"]
        assert "realtime.virt.rt_guest" in checks["chrony source"]["message"]
        assert checks["chrony offset"]["status"] == "fail"
        assert checks["chrony offset"]["observed"] == "184000 ns (reference 192.0.2.10, leap Normal)"

    def test_no_phc_source_at_all(self):
        sources = "^,*,192.0.2.10,2,6,377,33,0.000123000,0.000124000,0.002000000\n"
        item = by_name(ptp.chrony_checks(fixture("chronyc-tracking-phc.csv"), sources, "g"))["chrony source"]
        assert item["status"] == "fail" and "has no PHC refclock" in item["message"]

    def test_a_selected_refclock_that_is_no_phc_fails(self):
        sources = "#,*,GPS,0,4,377,3,0.000000100,0.000000100,0.000000900\n"
        assert by_name(ptp.chrony_checks(fixture("chronyc-tracking-phc.csv"), sources, "g"))[
            "chrony source"]["status"] == "fail"

    def test_refid_names_the_refclock(self):
        sources = "#,*,KVM,0,2,377,1,-0.000000012,-0.000000010,0.000000050\n"
        tracking = fixture("chronyc-tracking-phc.csv")
        assert by_name(ptp.chrony_checks(tracking, sources, "g"))["chrony source"]["status"] == "fail"
        assert by_name(ptp.chrony_checks(tracking, sources, "g", refid="KVM"))["chrony source"]["status"] == "pass"

    def test_not_synchronised_fails(self):
        tracking = fixture("chronyc-tracking-phc.csv").replace("Normal", "Not synchronised")
        assert by_name(ptp.chrony_checks(tracking, fixture("chronyc-sources-phc.csv"), "g"))[
            "chrony offset"]["status"] == "fail"

    def test_chronyc_answered_nothing(self):
        checks = by_name(ptp.chrony_checks("", "", "guest vm1"))
        assert checks["chrony source"]["status"] == "fail"
        assert checks["chrony source"]["observed"] == "chronyc answered nothing"
        assert "chronyd is not running" in checks["chrony source"]["message"]
        assert checks["chrony offset"]["status"] == "fail"
