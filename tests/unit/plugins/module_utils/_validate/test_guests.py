# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._validate.guests import (
    cyclictest_argv,
    guest_check,
    guest_state,
    guest_tuning,
    plan_guests,
)

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))), "fixtures", "cyclictest")
BASE = ["cyclictest", "--policy", "fifo", "--priority", "95", "-i", "100", "-H", "1000"]


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


@pytest.mark.parametrize("duration, cpus, main_cpus, tail", [
    (10, None, None, ["-D", "10", "-q", "-m", "--json=/dev/stderr"]),
    ("60", [1, 2, 3], None, ["-D", "60", "-q", "-m", "--json=/dev/stderr", "-a", "1-3", "-t", "3"]),
    (5, [1, 3], [0], ["-D", "5", "-q", "-m", "--json=/dev/stderr", "-a", "1,3", "-t", "2", "--mainaffinity=0"]),
])
def test_cyclictest_argv_keeps_kubevirt_parameters(duration, cpus, main_cpus, tail):
    assert cyclictest_argv(duration, cpus, main_cpus) == BASE + tail


@pytest.mark.parametrize("guests, expected", [
    ([], []),
    (None, []),
    (["vm1"], [{"host": "vm1", "cpus": None, "main_cpus": None, "threads": 1, "subject": "guest vm1",
                "argv": BASE + ["-D", "3", "-q", "-m", "--json=/dev/stderr"], "error": None, "group": None, "skip": None}]),
    ([{"host": " vm2 ", "cpus": "3,1-2", "main_cpus": 0}],
     [{"host": "vm2", "cpus": "1-3", "main_cpus": "0", "threads": 3, "subject": "guest vm2 CPUs 1-3",
       "argv": BASE + ["-D", "3", "-q", "-m", "--json=/dev/stderr", "-a", "1-3", "-t", "3", "--mainaffinity=0"], "error": None,
       "group": None, "skip": None}]),
    ([{"host": "vm3", "cpus": [2, 4]}],
     [{"host": "vm3", "cpus": "2,4", "main_cpus": None, "threads": 2, "subject": "guest vm3 CPUs 2,4",
       "argv": BASE + ["-D", "3", "-q", "-m", "--json=/dev/stderr", "-a", "2,4", "-t", "2"], "error": None,
       "group": None, "skip": None}]),
])
def test_plan_guests_tables(guests, expected):
    assert plan_guests(guests, 3, inventory=["vm1", "vm2", "vm3"]) == expected


def test_plan_guests_marks_names_missing_from_the_inventory():
    plan = plan_guests(["vm1", "typo"], 3, inventory=["vm1"])
    assert [target["error"] for target in plan] == [
        None, "typo is not in the inventory; add it (with ansible_host and how to connect) or correct the name"]
    assert plan_guests(["anything"], 3)[0]["error"] is None


GROUPS = {"all": ["kvm1", "vm1", "rt-a", "rt-b", "plain"], "rt_guests": ["rt-a", "vm1", "rt-b"], "empty": []}


def test_plan_guests_adds_the_hosts_of_the_group_after_the_list():
    plan = plan_guests([{"host": "vm1", "cpus": "1"}], 3, inventory=GROUPS["all"], group="rt_guests", groups=GROUPS)
    assert [(t["host"], t["cpus"], t["group"], t["subject"]) for t in plan] == [
        ("vm1", "1", None, "guest vm1 CPUs 1"),          # listed: keeps its entry, not measured twice
        ("rt-a", None, "rt_guests", "guest rt-a"),
        ("rt-b", None, "rt_guests", "guest rt-b")]
    assert plan[1] == {"host": "rt-a", "cpus": None, "main_cpus": None, "threads": 1, "subject": "guest rt-a",
                       "argv": BASE + ["-D", "3", "-q", "-m", "--json=/dev/stderr"], "error": None, "group": "rt_guests", "skip": None}
    assert plan_guests([], 3, group="", groups=GROUPS) == [] and plan_guests([], 3, group=None) == []


@pytest.mark.parametrize("group", ["empty", "no_such_group"])
def test_a_group_without_hosts_is_one_skipped_target(group):
    (target,) = plan_guests([], 3, inventory=GROUPS["all"], group=group, groups=GROUPS)
    assert target["host"] is None and target["argv"] == [] and target["subject"] == "guests of group %s" % group
    assert target["skip"] == ("the inventory has no host in group %s (no such group, or no host matched it), so no "
                              "guest of it was measured; check rt_validate_guests_group and the inventory source "
                              "that fills the group" % group)
    state = guest_state(target, probe=SKIPPED)
    assert state == {"next": "done", "status": "skip", "reason": target["skip"]}
    outcome = guest_check(target, state)
    assert outcome["check"]["status"] == "skip" and outcome["check"]["subject"] == "guests of group %s" % group
    assert outcome["guest"]["group"] == group and outcome["guest"]["status"] == "skip"
    assert outcome["guest"]["reason"] == target["skip"] and outcome["guest"]["cyclictest"] is None


@pytest.mark.parametrize("group, groups, message", [
    (["rt_guests"], GROUPS, "rt_validate_guests_group=['rt_guests']: expected the name of an inventory group"),
    ("  ", GROUPS, "rt_validate_guests_group='  ': expected the name of an inventory group"),
    ("rt_guests", {"rt_guests": "rt-a"}, "groups['rt_guests']='rt-a': expected the list of the group's hosts"),
])
def test_plan_guests_refuses_a_bad_group(group, groups, message):
    with pytest.raises(OptionError) as info:
        plan_guests([], 3, group=group, groups=groups)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("guests, duration, message", [
    ("vm1", 3, "rt_validate_guests='vm1': a str, not a list. Fix: give a list of inventory hostnames or {host, cpus}"),
    ([42], 3, "rt_validate_guests[0]=42: expected an inventory hostname or {host, cpus, main_cpus}"),
    ([{"cpus": "1"}], 3, "rt_validate_guests[0].host=None: expected the guest's inventory hostname"),
    ([{"host": ""}], 3, "rt_validate_guests[0].host='': expected the guest's inventory hostname"),
    ([{"host": "vm1", "cpu": "1"}], 3, "rt_validate_guests[0]={'host': 'vm1', 'cpu': '1'}: unknown key(s) cpu. Fix: use only host, cpus, main_cpus"),
    ([{"host": "vm1", "cpus": "1-x"}], 3, "rt_validate_guests[0] (vm1).cpus='1-x': invalid CPU set token"),
    ([{"host": "vm1", "cpus": "1,^1"}], 3, "exclusions with '^' are not allowed here"),
    ([{"host": "vm1", "cpus": ""}], 3, "rt_validate_guests[0] (vm1).cpus='': empty. Fix: leave it out"),
    ([{"host": "vm1", "main_cpus": "-1"}], 3, "rt_validate_guests[0] (vm1).main_cpus='-1'"),
    (["vm1", {"host": "vm1"}], 3, "rt_validate_guests[1]='vm1': guest vm1 is listed twice. Fix: give it once"),
    (["vm1"], 0, "rt_validate_duration=0: cyclictest needs at least one second"),
    (["vm1"], "ten", "rt_validate_duration='ten': expected a duration. Fix: give whole seconds (10) or a number with s, m, h"),
    (["vm1"], True, "rt_validate_duration=True: expected a duration"),
    (["vm1"], "0s", "rt_validate_duration='0s': cyclictest needs at least one second"),
])
def test_plan_guests_refuses_bad_entries(guests, duration, message):
    with pytest.raises(OptionError) as info:
        plan_guests(guests, duration)
    assert message in str(info.value)


TARGET = plan_guests([{"host": "vm1", "cpus": "1"}], 3)[0]
FOUND = {"rc": 0, "stdout": "/usr/bin/cyclictest", "stderr": "", "changed": False}
MISSING = {"rc": 127, "stdout": "", "stderr": "", "msg": "non-zero return code", "changed": False}
UNREACHABLE = {"unreachable": True, "changed": False,
               "msg": "Failed to connect to the host via ssh: ssh: connect to host 10.0.0.9 port 22: No route to host"}
SKIPPED = {"skipped": True, "changed": False, "skip_reason": "Conditional result was False"}


@pytest.mark.parametrize("probe, install, allowed, check_mode, expected", [
    (FOUND, None, False, False, {"next": "run", "status": None, "reason": ""}),
    (FOUND, SKIPPED, True, True, {"next": "run", "status": None, "reason": ""}),
    (MISSING, None, True, False, {"next": "install", "status": None, "reason": ""}),
    (MISSING, None, False, False, {"next": "done", "status": "skip", "reason":
                                   "cyclictest is not installed in guest vm1; install rt-tests in the guest, "
                                   "or set rt_validate_guest_install: true"}),
    (MISSING, {"changed": True, "rc": 0}, True, False, {"next": "run", "status": None, "reason": ""}),
    (MISSING, {"changed": True}, True, True, {"next": "done", "status": "skip", "reason":
                                              "check mode: rt-tests would be installed in guest vm1, so cyclictest "
                                              "runs there on the real run"}),
    (MISSING, {"failed": False, "rc": 100, "msg": "No package matching 'rt-tests' is available"}, True, False,
     {"next": "done", "status": "fail", "reason": "installing rt-tests in guest vm1 failed: No package matching "
                                                  "'rt-tests' is available; install it by hand or fix the guest's "
                                                  "package sources"}),
    (MISSING, UNREACHABLE, True, False,
     {"next": "done", "status": "fail", "reason": "guest vm1 became unreachable while installing rt-tests: "
                                                  "Failed to connect to the host via ssh: ssh: connect to host "
                                                  "10.0.0.9 port 22: No route to host"}),
    (UNREACHABLE, None, True, False,
     {"next": "done", "status": "fail", "reason": "guest vm1 is unreachable: Failed to connect to the host via ssh: "
                                                  "ssh: connect to host 10.0.0.9 port 22: No route to host; check "
                                                  "that it runs and that Ansible can connect to it"}),
    ({"msg": "MODULE FAILURE\nSee stdout/stderr for the exact error", "module_stderr": "",
      "module_stdout": "/bin/sh: 1: /usr/bin/python3: not found\n", "rc": 127}, None, True, False,
     {"next": "done", "status": "fail", "reason": "could not run a command in guest vm1: MODULE FAILURE\nSee "
                                                  "stdout/stderr for the exact error: /bin/sh: 1: /usr/bin/python3: "
                                                  "not found"}),
    # a connection plugin that fails the task (ignore_errors keeps the result):
    # community.libvirt.libvirt_qemu in a domain without a guest agent
    ({"failed": True, "msg": "Task failed: argument unsupported: QEMU guest agent is not configured"}, None, True,
     False, {"next": "done", "status": "fail",
             "reason": "could not run a command in guest vm1: Task failed: argument unsupported: QEMU guest agent "
                       "is not configured"}),
    (SKIPPED, None, False, False, {"next": "done", "status": "fail", "reason": "guest vm1 was not looked at"}),
])
def test_guest_state_tables(probe, install, allowed, check_mode, expected):
    assert guest_state(TARGET, probe=probe, install=install, install_allowed=allowed,
                       check_mode=check_mode) == expected


def test_guest_state_reports_a_name_missing_from_the_inventory_first():
    target = plan_guests(["ghost"], 3, inventory=[])[0]
    state = guest_state(target, probe=SKIPPED, install_allowed=True)
    assert state == {"next": "done", "status": "fail", "reason": target["error"]}


def test_guest_check_passes_and_keeps_the_histogram():
    run = {"rc": 0, "stdout": fixture("host-2threads.txt"), "stderr": "", "changed": False}
    # the result of async_status once the background run finished
    run.update({"ansible_job_id": "j1.1", "finished": 1, "started": 1})
    outcome = guest_check(TARGET, guest_state(TARGET, probe=FOUND), run=run, threshold_us=40)
    assert outcome["check"] == {"subject": "guest vm1 CPUs 1", "check": "cyclictest",
                                "expected": "max latency <= 40 us",
                                "observed": "max 37 us, avg 4 us, min 2 us, 2 thread(s)", "status": "pass",
                                "message": ""}
    guest = outcome["guest"]
    assert (guest["host"], guest["cpus"], guest["status"], guest["reason"]) == ("vm1", "1", "pass", "")
    assert guest["group"] is None
    assert guest["argv"] == TARGET["argv"]
    assert guest["cyclictest"]["max_us"] == 37
    assert guest["cyclictest"]["histogram"] == [[2, 130], [3, 700], [4, 30], [5, 1]]


def test_guest_check_fails_above_the_threshold():
    run = {"rc": 0, "stdout": fixture("host-2threads.txt")}
    outcome = guest_check(TARGET, guest_state(TARGET, probe=FOUND), run=run, threshold_us=20)
    assert outcome["check"]["status"] == "fail"
    assert outcome["check"]["message"].startswith("guest vm1 CPUs 1: max latency 37 us is above 20 us")
    assert outcome["guest"]["reason"] == outcome["check"]["message"]


@pytest.mark.parametrize("state, run, status, observed, message", [
    (guest_state(TARGET, probe=UNREACHABLE), None, "fail",
     "not measured: guest vm1 is unreachable: Failed to connect",
     "guest vm1 CPUs 1: guest vm1 is unreachable: Failed to connect"),
    (guest_state(TARGET, probe=MISSING), None, "skip",
     "skipped: cyclictest is not installed in guest vm1; install rt-tests in the guest", ""),
    (guest_state(TARGET, probe=FOUND), UNREACHABLE, "fail",
     "not measured: guest vm1 became unreachable during cyclictest: Failed to connect",
     "guest vm1 CPUs 1: guest vm1 became unreachable during cyclictest"),
    (guest_state(TARGET, probe=FOUND), SKIPPED, "fail", "not measured: cyclictest did not run",
     "guest vm1 CPUs 1: cyclictest did not run"),
    # the wait for the background run gave up: async_status still says not finished
    (guest_state(TARGET, probe=FOUND), {"ansible_job_id": "j1.2", "finished": 0, "started": 1, "attempts": 62},
     "fail", "not measured: cyclictest in guest vm1 had not finished 120 s after its planned end",
     "guest vm1 CPUs 1: cyclictest in guest vm1 had not finished"),
    (guest_state(TARGET, probe=FOUND),
     {"rc": 255, "stdout": "", "stderr": "Unable to change scheduling policy!\nProbably missing capabilities\n",
      "msg": "non-zero return code"}, "fail",
     "no result (cyclictest exited with 255: non-zero return code: Probably missing capabilities)",
     "guest vm1 CPUs 1: cyclictest gave no result (cyclictest exited with 255"),
])
def test_guest_check_when_nothing_was_measured(state, run, status, observed, message):
    outcome = guest_check(TARGET, state, run=run, threshold_us=40)
    assert outcome["check"]["status"] == status
    assert outcome["check"]["observed"].startswith(observed)
    assert outcome["check"]["message"].startswith(message)
    assert outcome["guest"]["status"] == status
    assert outcome["guest"]["reason"]
    if status == "fail" and run and "rc" in run:
        assert outcome["check"]["message"].endswith("cyclictest needs root (become) in the guest for SCHED_FIFO "
                                                    "and mlock")
        assert outcome["guest"]["cyclictest"]["max_us"] is None
    else:
        assert outcome["guest"]["cyclictest"] is None


# ---- the tuning of a guest, from realtime.virt.rt_isolation_info run in it

RT_CHILD = "realtime-virt-realtime-virtual-guest"
RT_FILES = ["/etc/tuned/realtime-virt-realtime-virtual-guest/tuned.conf",
            "/usr/lib/tuned/realtime-virtual-guest/tuned.conf", "/usr/lib/tuned/realtime/tuned.conf"]


def isolation_info(isolated=(1, 2, 3), nohz_full=(1, 2, 3), runtime="-1", active=(RT_CHILD,), files=None,
                   installed=True):
    """A registered result of rt_isolation_info (sysctls: [kernel.sched_rt_runtime_us]) in a guest."""
    if files is None:
        files = RT_FILES if list(active) == [RT_CHILD] else []
    return {"changed": False,
            "isolation": {"irqs": [], "masks": [], "threads": {"per_cpu": [], "housekeeping": []},
                          "tuned": {"installed": installed, "active": list(active), "files": list(files), "rules": [],
                                    "errors": []},
                          "nohz_full_reported": nohz_full is not None,
                          "cpus": {"isolated": None if isolated is None else list(isolated),
                                   "nohz_full": None if nohz_full is None else list(nohz_full)}},
            "applied": {"sysctls": {"kernel.sched_rt_runtime_us": runtime}, "pfs": [],
                        "reboot_marker": {"path": "/run/realtime-virt/reboot-required", "present": False}}}


def test_guest_tuning_of_a_guest_rt_guest_tuned():
    assert guest_tuning(isolation_info(), cpus="1-3") == {
        "tuned": True, "isolated": "1-3", "sched_rt_runtime_us": -1, "profiles": [RT_CHILD], "missing": []}


@pytest.mark.parametrize("result, cpus, expected", [
    # nohz_full alone isolates too (isolcpus=managed_irq without domain leaves /sys/.../isolated empty)
    (isolation_info(isolated=(), nohz_full=(2, 3)), "2-3",
     {"tuned": True, "isolated": "2-3", "sched_rt_runtime_us": -1, "profiles": [RT_CHILD], "missing": []}),
    # the profile itself, not rt_guest's child
    (isolation_info(active=["realtime-virtual-guest"], files=["/usr/lib/tuned/realtime-virtual-guest/tuned.conf"]),
     None, {"tuned": True, "isolated": "1-3", "sched_rt_runtime_us": -1, "profiles": ["realtime-virtual-guest"],
            "missing": []}),
    # a profile of one's own that includes it
    (isolation_info(active=["site-rt"], files=["/etc/tuned/site-rt/tuned.conf",
                                               "/usr/lib/tuned/realtime-virtual-guest/tuned.conf"]),
     [1, 2], {"tuned": True, "isolated": "1-3", "sched_rt_runtime_us": -1, "profiles": ["site-rt"], "missing": []}),
    # tuned is not installed: the profile is not asked for
    (isolation_info(active=[], installed=False), "1",
     {"tuned": True, "isolated": "1-3", "sched_rt_runtime_us": -1, "profiles": [], "missing": []}),
])
def test_guest_tuning_counts_as_tuned(result, cpus, expected):
    assert guest_tuning(result, cpus=cpus) == expected


@pytest.mark.parametrize("result, cpus, isolated, runtime, profiles, missing", [
    (isolation_info(isolated=(), nohz_full=()), "1-3", "", -1, [RT_CHILD],
     ["no isolated CPUs (neither isolcpus nor nohz_full)"]),
    (isolation_info(isolated=(), nohz_full=None), None, "", -1, [RT_CHILD],
     ["no isolated CPUs (neither isolcpus nor nohz_full)"]),
    (isolation_info(), "1,4-5", "1-3", -1, [RT_CHILD], ["measured CPU(s) 4-5 not isolated (isolated: 1-3)"]),
    (isolation_info(runtime="950000"), "1-3", "1-3", 950000, [RT_CHILD],
     ["kernel.sched_rt_runtime_us is 950000, not -1"]),
    (isolation_info(runtime=None), "1-3", "1-3", None, [RT_CHILD], ["kernel.sched_rt_runtime_us could not be read"]),
    (isolation_info(active=["balanced"], files=["/usr/lib/tuned/balanced/tuned.conf"]), "1-3", "1-3", -1,
     ["balanced"], ["tuned profile balanced is not realtime-virtual-guest (nor includes it)"]),
    (isolation_info(active=[]), "1-3", "1-3", -1, [], ["no tuned profile active"]),
    # everything at once, in the order the check lists it
    (isolation_info(isolated=(), nohz_full=(), runtime="950000", active=["balanced"]), "1", "", 950000,
     ["balanced"], ["no isolated CPUs (neither isolcpus nor nohz_full)", "kernel.sched_rt_runtime_us is 950000, not -1",
                    "tuned profile balanced is not realtime-virtual-guest (nor includes it)"]),
])
def test_guest_tuning_names_what_is_missing(result, cpus, isolated, runtime, profiles, missing):
    assert guest_tuning(result, cpus=cpus) == {"tuned": False, "isolated": isolated, "sched_rt_runtime_us": runtime,
                                               "profiles": profiles, "missing": missing}


@pytest.mark.parametrize("result, reason", [
    (None, "not read: the task that reads it did not run"),
    (SKIPPED, "not read: the task that reads it did not run"),
    (UNREACHABLE, "not read: unreachable: Failed to connect to the host via ssh: ssh: connect to host 10.0.0.9 "
                  "port 22: No route to host"),
    ({"failed": True, "msg": "Task failed: argument unsupported: QEMU guest agent is not configured"},
     "not read: Task failed: argument unsupported: QEMU guest agent is not configured"),
    ({"msg": "MODULE FAILURE\nSee stdout/stderr for the exact error", "module_stderr": "",
      "module_stdout": "/bin/sh: 1: /usr/bin/python3: not found\n", "rc": 127},
     "not read: MODULE FAILURE\nSee stdout/stderr for the exact error: /bin/sh: 1: /usr/bin/python3: not found"),
])
def test_guest_tuning_that_could_not_be_read_is_unknown(result, reason):
    assert guest_tuning(result, cpus="1") == {"tuned": None, "isolated": "", "sched_rt_runtime_us": None,
                                              "profiles": [], "missing": [reason]}


TUNING_EXPECTED = ("isolated CPUs covering the measured CPUs 1, kernel.sched_rt_runtime_us -1, "
                   "a real-time tuned profile")
MEASURED = {"rc": 0, "stdout": fixture("host-2threads.txt"), "stderr": "", "changed": False}


def test_guest_check_adds_a_passing_tuning_check_after_the_latency():
    outcome = guest_check(TARGET, guest_state(TARGET, probe=FOUND), run=MEASURED, threshold_us=40,
                          tuning=isolation_info())
    assert [item["check"] for item in outcome["checks"]] == ["cyclictest", "guest tuning"]
    assert outcome["checks"][0] is outcome["check"]
    assert outcome["checks"][1] == {
        "subject": "guest vm1 CPUs 1", "check": "guest tuning", "expected": TUNING_EXPECTED,
        "observed": "isolated 1-3, kernel.sched_rt_runtime_us -1, tuned realtime-virt-realtime-virtual-guest",
        "status": "pass", "message": ""}
    assert outcome["guest"]["tuning"] == {"tuned": True, "isolated": "1-3", "sched_rt_runtime_us": -1,
                                          "profiles": [RT_CHILD], "missing": []}
    # the latency verdict is its own: a tuned guest still fails above the threshold
    assert guest_check(TARGET, guest_state(TARGET, probe=FOUND), run=MEASURED, threshold_us=20,
                       tuning=isolation_info())["check"]["status"] == "fail"


@pytest.mark.parametrize("tuning, observed, missing", [
    (isolation_info(isolated=(), nohz_full=()),
     "isolated none, kernel.sched_rt_runtime_us -1, tuned realtime-virt-realtime-virtual-guest",
     "no isolated CPUs (neither isolcpus nor nohz_full)"),
    (isolation_info(isolated=(2, 3), nohz_full=(2, 3)),
     "isolated 2-3, kernel.sched_rt_runtime_us -1, tuned realtime-virt-realtime-virtual-guest",
     "measured CPU(s) 1 not isolated (isolated: 2-3)"),
    (isolation_info(runtime="950000"),
     "isolated 1-3, kernel.sched_rt_runtime_us 950000, tuned realtime-virt-realtime-virtual-guest",
     "kernel.sched_rt_runtime_us is 950000, not -1"),
    (isolation_info(active=["balanced"]), "isolated 1-3, kernel.sched_rt_runtime_us -1, tuned balanced",
     "tuned profile balanced is not realtime-virtual-guest (nor includes it)"),
    (isolation_info(active=[]), "isolated 1-3, kernel.sched_rt_runtime_us -1, tuned none active",
     "no tuned profile active"),
])
def test_guest_check_warns_about_an_untuned_guest_naming_what_is_missing(tuning, observed, missing):
    outcome = guest_check(TARGET, guest_state(TARGET, probe=FOUND), run=MEASURED, threshold_us=40, tuning=tuning)
    assert outcome["check"]["status"] == "pass"
    assert outcome["checks"][1] == {
        "subject": "guest vm1 CPUs 1", "check": "guest tuning", "expected": TUNING_EXPECTED, "observed": observed,
        "status": "warn",
        "message": "guest vm1 CPUs 1: not tuned for real time: %s. Fix: run realtime.virt.rt_guest on it" % missing}
    assert outcome["guest"]["tuning"]["tuned"] is False
    assert outcome["guest"]["tuning"]["missing"] == [missing]


def test_guest_check_of_an_unpinned_guest_asks_for_isolated_cpus_only():
    target = plan_guests(["vm2"], 3)[0]
    outcome = guest_check(target, guest_state(target, probe=FOUND), run=MEASURED, tuning=isolation_info())
    assert outcome["checks"][1]["expected"] == ("isolated CPUs, kernel.sched_rt_runtime_us -1, "
                                                "a real-time tuned profile")
    assert outcome["checks"][1]["status"] == "pass"


@pytest.mark.parametrize("target, state, tuning, observed", [
    # unreachable before cyclictest: the tuning is not read at all
    (TARGET, guest_state(TARGET, probe=UNREACHABLE), SKIPPED,
     "skipped: not read: guest vm1 is unreachable: Failed to connect to the host via ssh: ssh: connect to host "
     "10.0.0.9 port 22: No route to host; check that it runs and that Ansible can connect to it"),
    # cyclictest missing and not installed: not measured, so not read either
    (TARGET, guest_state(TARGET, probe=MISSING), SKIPPED,
     "skipped: not read: cyclictest is not installed in guest vm1; install rt-tests in the guest, or set "
     "rt_validate_guest_install: true"),
    # a name missing from the inventory
    (plan_guests(["ghost"], 3, inventory=[])[0], guest_state(plan_guests(["ghost"], 3, inventory=[])[0], probe=SKIPPED),
     SKIPPED, "skipped: not read: ghost is not in the inventory; add it (with ansible_host and how to connect) or "
              "correct the name"),
    # measured, then unreachable when its tuning was read
    (TARGET, guest_state(TARGET, probe=FOUND), UNREACHABLE,
     "skipped: not read: unreachable: Failed to connect to the host via ssh: ssh: connect to host 10.0.0.9 port 22: "
     "No route to host"),
])
def test_guest_check_skips_the_tuning_of_a_guest_not_reached(target, state, tuning, observed):
    outcome = guest_check(target, state, run=MEASURED, threshold_us=40, tuning=tuning)
    tuning_check = outcome["checks"][1]
    assert (tuning_check["check"], tuning_check["status"], tuning_check["observed"], tuning_check["message"]) == (
        "guest tuning", "skip", observed, "")
    assert outcome["guest"]["tuning"]["tuned"] is None
    assert outcome["guest"]["tuning"]["missing"] == [observed[len("skipped: "):]]


def test_a_group_without_hosts_gets_no_tuning_check():
    (target,) = plan_guests([], 3, group="empty", groups=GROUPS)
    outcome = guest_check(target, guest_state(target))
    assert [item["check"] for item in outcome["checks"]] == ["cyclictest"]
    assert outcome["guest"]["tuning"]["tuned"] is None
