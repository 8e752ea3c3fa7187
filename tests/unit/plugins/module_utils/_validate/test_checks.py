# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import domain_checks
from ansible_collections.realtime.virt.plugins.module_utils._validate.cyclictest import latency_check, parse_cyclictest, parse_oslat
from ansible_collections.realtime.virt.plugins.module_utils._validate.report import build_report

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))), "fixtures", "cyclictest")


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        text = handle.read()
    # A serial console ends its lines with CRLF, which the parser must
    # handle.  The capture is stored with LF (ansible-test's line-endings
    # rule, on every ansible-core version) and gets its CRs back here.
    if name.endswith("-serial.log"):
        text = text.replace("\n", "\r\n")
    return text


@pytest.mark.parametrize("name, expected", [
    ("host-2threads.txt", {"threads": 2, "min": [2, 2], "avg": [3, 4], "max": [12, 37], "min_us": 2, "avg_us": 4,
                           "max_us": 37, "total": [530, 331], "overflows": [0, 0],
                           "histogram": [[2, 130], [3, 700], [4, 30], [5, 1]], "error": None, "source": "text"}),
    ("probe-serial.log", {"threads": 1, "min": [14], "avg": [143], "max": [8282], "min_us": 14, "avg_us": 143,
                          "max_us": 8282, "total": [103], "overflows": [277],
                          "histogram": [[14, 2], [15, 100], [999, 1]], "error": None, "source": "text"}),
])
def test_parse_cyclictest_tables(name, expected):
    assert parse_cyclictest(fixture(name)) == expected


# One real run of rt-tests 2.4 on this machine (2 threads, CPUs 0-1, 1 s):
# the text on stdout and the --json document on stderr.
REAL_RUN = {"threads": 2, "min": [8, 14], "max": [558, 6431], "min_us": 8, "max_us": 6431,
            "total": [9961, 9779], "overflows": [0, 1]}


def test_parse_cyclictest_json_of_a_real_run():
    parsed = parse_cyclictest(fixture("host-2threads-json.stdout") + fixture("host-2threads-json.stderr"))
    assert parsed["source"] == "json"
    assert dict((key, parsed[key]) for key in REAL_RUN) == REAL_RUN
    assert parsed["avg"] == [24.87, 41.42]
    assert parsed["avg_us"] == 33
    assert parsed["rt_tests_version"] == "2.40"
    # 9961 + 9778 samples in buckets; one sample of thread 1 (6431 us) is beyond them
    assert sum(count for _latency, count in parsed["histogram"]) == 9961 + 9778
    assert parsed["histogram"][0] == [8, 2] and parsed["histogram"][-1] == [558, 1]
    assert parsed["error"] is None


def test_parse_cyclictest_text_drops_the_all_threads_column():
    parsed = parse_cyclictest(fixture("host-2threads-json.stdout"))
    assert parsed["source"] == "text"
    expected = dict(REAL_RUN, total=[9961, 9778])  # the text's Total counts only the bucketed samples
    assert dict((key, parsed[key]) for key in REAL_RUN) == expected
    assert sum(count for _latency, count in parsed["histogram"]) == 9961 + 9778


def test_text_and_json_of_one_run_give_the_same_histogram():
    text = parse_cyclictest(fixture("host-2threads-json.stdout"))
    document = parse_cyclictest(fixture("host-2threads-json.stdout") + fixture("host-2threads-json.stderr"))
    assert text["histogram"] == document["histogram"]


def test_parse_oslat_json_of_a_real_run():
    # oslat 2.4 on CPU 1 of this machine for 2 s (--json=/dev/stderr)
    parsed = parse_oslat("oslat V 2.40\n" + fixture("oslat-cpu1.json"))
    assert parsed["source"] == "json"
    assert (parsed["threads"], parsed["min_us"], parsed["max_us"], parsed["avg_us"]) == (1, 1, 5493, 1)
    assert parsed["total"] == [70836162]
    assert parsed["overflows"] == [0]
    assert parsed["histogram"][0] == [1, 70834357]
    assert parsed["histogram"][-1] == [32, 358]
    assert latency_check(parsed, "host isolated CPUs 1", 40, tool="oslat")["check"] == "oslat"
    assert latency_check(parsed, "host isolated CPUs 1", 40, tool="oslat")["status"] == "fail"


def test_oslat_without_json_says_which_rt_tests_it_needs():
    parsed = parse_oslat("oslat V 1.10\nCore: 1\n")
    assert parsed["max_us"] is None
    assert "rt-tests 2.0 or later" in parsed["error"]
    assert latency_check(parsed, "host isolated CPUs 1", 40, tool="oslat")["message"] == (
        "host isolated CPUs 1: oslat gave no result (no --json output from oslat (it needs rt-tests 2.0 or later))")


def test_broken_json_is_an_error_not_an_exception():
    parsed = parse_cyclictest('{"file_version": 1, "thread": ')
    assert parsed["max_us"] is None
    assert "--json output could not be read" in parsed["error"]


@pytest.mark.parametrize("text", ["", "kernel panic\n", "# Histogram\n000001 000002\n"])
def test_parse_cyclictest_without_summary(text):
    parsed = parse_cyclictest(text)
    assert parsed["max_us"] is None
    assert "no 'Max Latencies' line" in parsed["error"]


@pytest.mark.parametrize("max_us, threshold, advisory, status", [
    (37, 40, False, "pass"), (40, 40, False, "pass"), (41, 40, False, "fail"), (8282, 40, True, "warn"),
])
def test_latency_check(max_us, threshold, advisory, status):
    parsed = {"max_us": max_us, "avg_us": 3, "min_us": 2, "threads": 1, "overflows": [0]}
    result = latency_check(parsed, "host CPUs 2-3", threshold, advisory=advisory)
    assert result["status"] == status
    assert result["expected"] == "max latency <= %d us" % threshold
    assert result["observed"].startswith("max %d us, avg 3 us" % max_us)
    if status == "fail":
        assert "host CPUs 2-3: max latency 41 us is above 40 us" in result["message"]


def test_latency_check_skip_and_no_result():
    assert latency_check(None, "host", 40, skip_reason="no isolated CPUs")["status"] == "skip"
    missing = latency_check(parse_cyclictest(""), "probe", 40)
    assert missing["status"] == "fail"
    assert "no result" in missing["observed"]


def good_domain(**changes):
    dom = {"name": "vm1", "running": True, "vcpus": 2, "pid": 42,
           "realtime": {"vcpus": [0], "scheduler": "fifo", "priority": 1},
           "pinning": [{"vcpu": 0, "cpus": [1]}, {"vcpu": 1, "cpus": [0]}],
           "vcpu_threads": [{"vcpu": 0, "tid": 43, "policy": "SCHED_FIFO", "priority": 1, "affinity": "1"},
                            {"vcpu": 1, "tid": 44, "policy": "SCHED_OTHER", "priority": 0, "affinity": "0"}],
           "hugepages": {"page_size_kib": 2048}, "hugetlb_kib": 16384,
           "hostdev_drivers": [{"address": "0000:6b:00.1", "driver": "vfio-pci"}],
           # the threads libvirt 9.0 / QEMU 7.2 showed for emulatorpin 0 and iothreadpin 1 -> 0
           "emulator_cpus": [0], "iothread_pins": [{"iothread": 1, "cpus": [0]}],
           "emulator_threads": [emulator_thread(42, "qemu-system-x86", "0", [0]),
                                emulator_thread(46, "call_rcu", "0", [0]),
                                emulator_thread(48, "IO mon_iothread", "0", [0]),
                                emulator_thread(50, "worker", "0", [0])],
           "iothread_threads": [iothread_thread(1, 47, "0", [0])]}
    dom.update(changes)
    return dom


def emulator_thread(tid, comm, affinity, cpus):
    return {"tid": tid, "comm": comm, "policy": "SCHED_OTHER", "priority": 0, "affinity": affinity, "cpus": cpus}


def iothread_thread(iothread, tid, affinity, cpus):
    return {"iothread": iothread, "tid": tid, "policy": "SCHED_OTHER", "priority": 0, "affinity": affinity,
            "cpus": cpus}


def statuses(checks):
    return dict(("%s/%s" % (c["subject"], c["check"]), c["status"]) for c in checks)


def test_good_domain_passes_every_check():
    checks = domain_checks([good_domain(), {"name": "plain", "realtime": None}])
    assert statuses(checks) == {
        "domain vm1/real-time vCPUs pinned": "pass",
        "domain vm1/vCPU 0 thread scheduling": "pass",
        "domain vm1/vCPU 0 thread affinity": "pass",
        "domain vm1/vCPU 1 thread scheduling": "pass",
        "domain vm1/vCPU 1 thread affinity": "pass",
        "domain vm1/emulator threads pinned": "pass",
        "domain vm1/IO thread 1 pinned": "pass",
        "domain vm1/memory on hugepages": "pass",
        "domain vm1/VF 0000:6b:00.1 driver": "pass",
    }


@pytest.mark.parametrize("changes, failing, message", [
    ({"pinning": [{"vcpu": 1, "cpus": [0]}]}, "real-time vCPUs pinned", "domain vm1: real-time vCPU(s) 0 not pinned"),
    ({"hugepages": None}, "memory on hugepages", "domain vm1: guest memory is not backed by hugepages"),
    ({"hugetlb_kib": 0}, "memory on hugepages", "maps no hugetlb memory"),
    ({"hostdev_drivers": [{"address": "0000:6b:00.1", "driver": "4xxxvf"}]}, "VF 0000:6b:00.1 driver",
     "bound to 4xxxvf, not vfio-pci"),
    ({"realtime": {"vcpus": [0], "scheduler": "fifo", "priority": 5}}, "vCPU 0 thread scheduling",
     "runs SCHED_FIFO priority 1, not SCHED_FIFO priority 5"),
    ({"realtime": {"vcpus": [1], "scheduler": "fifo", "priority": 1}}, "vCPU 0 thread scheduling",
     "vCPU 0 is outside the real-time mask but runs SCHED_FIFO"),
    ({"emulator_threads": [emulator_thread(42, "qemu-system-x86", "0", [0]),
                           emulator_thread(50, "worker", "0-3", [0, 1, 2, 3])]},
     "emulator threads pinned", "emulator thread(s) worker (tid 50) on CPUs 0-3 may run outside the pinned CPUs 0"),
    ({"emulator_threads": [emulator_thread(42, "qemu-system-x86", "", None)]}, "emulator threads pinned",
     "qemu-system-x86 (tid 42) on CPUs ? may run outside"),
    ({"emulator_threads": []}, "emulator threads pinned", "domain vm1: no emulator thread found under /proc/42/task"),
    ({"iothread_threads": [iothread_thread(1, 47, "1", [1])]}, "IO thread 1 pinned",
     "domain vm1: IO thread 1 (tid 47 on CPUs 1) may run outside its pinned CPUs 0"),
    ({"iothread_threads": [iothread_thread(2, 47, "0", [0])]}, "IO thread 1 pinned",
     "domain vm1: no thread 'IO iothread1' found under /proc/42/task"),
])
def test_broken_domain_fails_naming_it(changes, failing, message):
    checks = domain_checks([good_domain(**changes)])
    failed = [c for c in checks if c["status"] == "fail"]
    assert failing in [c["check"] for c in failed]
    assert any(message in c["message"] for c in failed)


def test_emulator_and_io_threads_pass_on_a_subset_of_their_pinned_cpus():
    checks = domain_checks([good_domain(emulator_cpus=[0, 1], iothread_pins=[{"iothread": 1, "cpus": [0, 2]}])])
    found = dict((c["check"], c) for c in checks)
    emulator, iothread = found["emulator threads pinned"], found["IO thread 1 pinned"]
    assert (emulator["status"], emulator["expected"], emulator["observed"], emulator["message"]) == (
        "pass", "CPUs 0-1 (<emulatorpin>)", "4 threads on CPUs 0", "")
    assert (iothread["status"], iothread["expected"], iothread["observed"], iothread["message"]) == (
        "pass", "CPUs 0,2 (<iothreadpin iothread='1'>)", "tid 47 on CPUs 0", "")


def test_emulator_and_io_thread_failures_say_what_to_do():
    dom = good_domain(emulator_threads=[emulator_thread(42, "qemu-system-x86", "0", [0]),
                                        emulator_thread(50, "worker", "0-3", [0, 1, 2, 3]),
                                        emulator_thread(51, "worker", "1", [1])],
                      iothread_threads=[iothread_thread(1, 47, "0-1", [0, 1])])
    found = dict((c["check"], c) for c in domain_checks([dom]))
    emulator, iothread = found["emulator threads pinned"], found["IO thread 1 pinned"]
    assert emulator["status"] == "fail"
    assert emulator["observed"] == "worker (tid 50) on CPUs 0-3, worker (tid 51) on CPUs 1"
    assert emulator["message"] == (
        "domain vm1: emulator thread(s) worker (tid 50) on CPUs 0-3, worker (tid 51) on CPUs 1 may run outside the "
        "pinned CPUs 0 (<emulatorpin>); restart the domain so libvirt pins them again, and find what moved them "
        "(taskset, a tuned [scheduler] rule)")
    assert (iothread["status"], iothread["observed"]) == ("fail", "tid 47 on CPUs 0-1")
    assert iothread["message"] == (
        "domain vm1: IO thread 1 (tid 47 on CPUs 0-1) may run outside its pinned CPUs 0; restart the domain so "
        "libvirt pins it again, and find what moved it (taskset, a tuned [scheduler] rule)")


def test_no_emulatorpin_skips_and_no_iothreadpin_checks_nothing():
    checks = domain_checks([good_domain(emulator_cpus=[], iothread_pins=[])])
    found = dict((c["check"], c) for c in checks)
    assert found["emulator threads pinned"]["status"] == "skip"
    assert found["emulator threads pinned"]["observed"] == "skipped: no <emulatorpin> in the definition"
    assert [c["check"] for c in checks if c["check"].startswith("IO thread")] == []
    assert "fail" not in statuses(checks).values()


def test_named_domains_must_exist_run_and_be_realtime():
    checks = domain_checks([good_domain(running=False), {"name": "plain", "realtime": None}],
                           names=["vm1", "plain", "nope"])
    assert statuses(checks) == {"domain nope/defined": "fail", "domain vm1/running": "fail",
                                "domain plain/real-time vCPUs": "fail"}


def test_unnamed_defined_only_domain_is_skipped_not_failed():
    checks = domain_checks([good_domain(running=False), good_domain(name="vm2")])
    found = statuses(checks)
    assert found["domain vm1/running"] == "skip"
    assert [c for c in checks if c["subject"] == "domain vm1"] == [c for c in checks if c["status"] == "skip"]
    assert "fail" not in found.values()
    assert any(key.startswith("domain vm2/") and value == "pass" for key, value in found.items())


def test_report_table_and_failures():
    checks = domain_checks([good_domain(hugepages=None)])
    checks.append(latency_check(None, "host", 40, skip_reason="no isolated CPUs"))
    report = build_report(checks, "node1")
    lines = report["table"].splitlines()
    assert lines[0] == "rt_validate report for node1: FAILED (8 pass, 1 fail, 0 warn, 1 skip)"
    assert lines[1].split() == ["SUBJECT", "CHECK", "EXPECTED", "OBSERVED", "RESULT"]
    assert len(lines) == 3 + len(checks)
    assert any(line.startswith("domain vm1") and line.endswith("FAIL") for line in lines)
    assert report["passed"] is False
    assert report["failures"] == ["domain vm1: guest memory is not backed by hugepages; set memory.hugepages "
                                  "(page_size 2M or 1G) and allocate pages with realtime.virt.hugepages"]
    assert build_report([], "n")["passed"] is True


# ---- rt_validate_accept: a named, known failure is a warning; the rest still gates --------------------

TUNED_FAILS = {"subject": "host", "check": "tuned-adm verify", "expected": "tuned-adm verify succeeds",
               "observed": "Verification failed, see the log", "status": "fail",
               "message": "host: tuned-adm verify failed for profile realtime (rc 1): Verification failed; "
                          "fix: tuned-adm profile realtime"}
TUNED_PASSES = {"subject": "host", "check": "tuned-adm verify", "expected": "tuned-adm verify succeeds",
                "observed": "Verification succeeded", "status": "pass", "message": ""}
IRQS_PASS = {"subject": "isolated CPUs 2-3", "check": "interrupts", "expected": "none on 2-3",
             "observed": "none", "status": "pass", "message": ""}
KSM_FAILS = {"subject": "host", "check": "KSM", "expected": "run in 0, 2", "observed": "1", "status": "fail",
             "message": "host: KSM merges pages; fix: echo 2 > /sys/kernel/mm/ksm/run"}
HWLAT_SKIPPED = {"subject": "host firmware", "check": "hwlatdetect", "expected": "no hardware latency above 10 us",
                 "observed": "skipped: no hwlat tracer", "status": "skip", "message": "no hwlat tracer"}


def test_an_accepted_failure_is_a_warning_that_says_so():
    checks = [dict(TUNED_FAILS), dict(IRQS_PASS)]
    report = build_report(checks, "node1", accept=["tuned-adm verify"])
    assert report["passed"] is True
    assert report["failures"] == []
    assert report["counts"] == {"pass": 1, "fail": 0, "warn": 1, "skip": 0}
    assert report["checks"] == [
        {"subject": "host", "check": "tuned-adm verify", "expected": "tuned-adm verify succeeds",
         "observed": "Verification failed, see the log", "status": "warn", "accepted": True,
         "message": "accepted (rt_validate_accept): host: tuned-adm verify failed for profile realtime (rc 1): "
                    "Verification failed; fix: tuned-adm profile realtime"},
        {"subject": "isolated CPUs 2-3", "check": "interrupts", "expected": "none on 2-3",
         "observed": "none", "status": "pass", "message": ""},
    ]
    lines = report["table"].splitlines()
    assert lines[0] == "rt_validate report for node1: PASSED (1 pass, 0 fail, 1 warn, 0 skip)"
    assert lines[3].startswith("host ") and lines[3].endswith("  WARN")
    assert lines[-1] == "Accepted failures (rt_validate_accept), reported as WARN: tuned-adm verify (host)"
    assert len(lines) == 6
    # the checks given are not changed in place
    assert checks[0]["status"] == "fail" and "accepted" not in checks[0]


def test_an_accepted_failure_without_a_message_names_its_subject_and_check():
    report = build_report([dict(KSM_FAILS, message="")], "node1", accept=["KSM"])
    assert report["checks"][0]["message"] == "accepted (rt_validate_accept): host: KSM"
    assert report["checks"][0]["status"] == "warn"


def test_a_failure_that_is_not_listed_still_fails():
    report = build_report([dict(TUNED_FAILS), dict(KSM_FAILS)], "node1", accept=["tuned-adm verify"])
    assert report["passed"] is False
    assert report["counts"] == {"pass": 0, "fail": 1, "warn": 1, "skip": 0}
    assert report["failures"] == ["host: KSM merges pages; fix: echo 2 > /sys/kernel/mm/ksm/run"]
    assert report["checks"][1] == KSM_FAILS
    assert report["table"].splitlines()[0] == "rt_validate report for node1: FAILED (0 pass, 1 fail, 1 warn, 0 skip)"


def test_an_accepted_name_whose_check_does_not_fail_is_left_as_it_is():
    checks = [dict(TUNED_PASSES), dict(IRQS_PASS), dict(HWLAT_SKIPPED)]
    report = build_report(checks, "node1", accept=["tuned-adm verify", "hwlatdetect"])
    assert report["checks"] == [TUNED_PASSES, IRQS_PASS, HWLAT_SKIPPED]
    assert report["counts"] == {"pass": 2, "fail": 0, "warn": 0, "skip": 1}
    assert report["passed"] is True
    assert "Accepted" not in report["table"]


def test_no_accept_changes_nothing():
    for accept in (None, []):
        report = build_report([dict(TUNED_FAILS), dict(IRQS_PASS)], "node1", accept=accept)
        assert report["checks"] == [TUNED_FAILS, IRQS_PASS]
        assert report["passed"] is False


def test_a_name_no_check_has_is_a_skipped_check_naming_the_option():
    report = build_report([dict(TUNED_FAILS), dict(IRQS_PASS), dict(KSM_FAILS)], "node1",
                          accept=["tuned-adm verfy", "tuned-adm verfy"])
    # a typo accepts nothing: the failure stays
    assert report["passed"] is False
    assert report["counts"] == {"pass": 1, "fail": 2, "warn": 0, "skip": 1}
    assert report["checks"][:3] == [TUNED_FAILS, IRQS_PASS, KSM_FAILS]
    assert report["checks"][3:] == [
        {"subject": "rt_validate_accept", "check": "tuned-adm verfy", "expected": "a check of this name",
         "observed": "no such check ran", "status": "skip",
         "message": "rt_validate_accept lists 'tuned-adm verfy', but no check of that name ran on this host, so it "
                    "accepts nothing; it may be a typo. Checks that ran: interrupts, KSM, tuned-adm verify. Fix: "
                    "write the name as the CHECK column of the report shows it, or remove it from "
                    "rt_validate_accept"}]
    assert report["table"].splitlines()[-1].split() == [
        "rt_validate_accept", "tuned-adm", "verfy", "a", "check", "of", "this", "name", "no", "such", "check", "ran",
        "SKIP"]


def test_an_unmatched_name_on_a_run_without_checks_or_with_many():
    alone = build_report([], "node1", accept=["cyclictest"])
    assert alone["checks"][0]["message"] == (
        "rt_validate_accept lists 'cyclictest', but no check of that name ran on this host, so it accepts nothing; "
        "it may be a typo. Checks that ran: none. Fix: write the name as the CHECK column of the report shows it, "
        "or remove it from rt_validate_accept")
    many = [dict(IRQS_PASS, check="check %02d" % number) for number in range(45)]
    message = build_report(many, "node1", accept=["check 99"])["checks"][-1]["message"]
    assert "Checks that ran: check 00, check 01, " in message
    assert ", check 38, check 39 and 5 more. Fix: " in message


@pytest.mark.parametrize("accept, message", [
    ("tuned-adm verify", "rt_validate_accept='tuned-adm verify': not a list of check names. Fix: give a list of "
                         "check names as the CHECK column of the report shows them, such as ['tuned-adm verify']"),
    ({"tuned-adm verify": True}, "rt_validate_accept={'tuned-adm verify': True}: not a list of check names. Fix: "),
    ([""], "rt_validate_accept=['']: entry 0 ('') is not the name of a check, a non-empty string. Fix: write each "
           "entry as a check name from the CHECK column of the report, such as 'tuned-adm verify', or remove it"),
    (["interrupts", "  "], "rt_validate_accept=['interrupts', '  ']: entry 1 ('  ') is not the name of a check, "),
    (["interrupts", 5], "rt_validate_accept=['interrupts', 5]: entry 1 (5) is not the name of a check, "),
    ([None], "rt_validate_accept=[None]: entry 0 (None) is not the name of a check, "),
])
def test_bad_accept_entries_are_refused_naming_the_option_value_and_fix(accept, message):
    with pytest.raises(OptionError) as error:
        build_report([dict(TUNED_FAILS)], "node1", accept=accept)
    assert str(error.value).startswith(message)
