# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.rt_validate import FilterModule

FILTERS = FilterModule().filters()
RUN = ("# Min Latencies: 00002\n# Avg Latencies: 00003\n# Max Latencies: 00009\n"
       "# Histogram Overflows: 00000\n")
HISTOGRAM = "# Histogram\n000002 000010\n000003 000005\n000009 000001\n# Total: 000000016\n"


def test_guest_filters_are_exported():
    assert {"rt_validate_guest_plan", "rt_validate_guest_state", "rt_validate_guest_check"} <= set(FILTERS)


def test_guest_plan_takes_the_hosts_of_a_group_as_the_role_passes_them():
    groups = {"all": ["localhost", "vm1", "rt-a"], "rt_guests": ["rt-a"]}
    plan = FILTERS["rt_validate_guest_plan"](["vm1"], 3, inventory=groups["all"], group="rt_guests", groups=groups)
    assert [(target["host"], target["group"]) for target in plan] == [("vm1", None), ("rt-a", "rt_guests")]
    with pytest.raises(AnsibleFilterError, match="groups must be Ansible's groups"):
        FILTERS["rt_validate_guest_plan"]([], 3, group="rt_guests", groups=["rt-a"])


def test_guest_filters_chain_like_the_role():
    plan = FILTERS["rt_validate_guest_plan"](["vm1", {"host": "vm2", "cpus": "1"}], "3",
                                             inventory=("localhost", "vm1", "vm2"))
    assert [target["subject"] for target in plan] == ["guest vm1", "guest vm2 CPUs 1"]
    state = FILTERS["rt_validate_guest_state"](plan[1], probe={"rc": 0, "stdout": "/usr/bin/cyclictest"},
                                               install_allowed=False, check_mode=True)
    assert state["next"] == "run"
    outcome = FILTERS["rt_validate_guest_check"](plan[1], state, run={"rc": 0, "stdout": HISTOGRAM + RUN},
                                                 threshold_us="40")
    assert outcome["check"]["status"] == "pass"
    assert outcome["check"]["observed"] == "max 9 us, avg 3 us, min 2 us, 1 thread(s)"
    assert outcome["guest"]["cyclictest"]["histogram"] == [[2, 10], [3, 5], [9, 1]]


def _guest_tuning_read(tmp_path, shape, **overrides):
    """What rt_isolation_info returns in a guest (the role's sysctls), over a fixture tree, as JSON gives it."""
    import json
    import rt_node_trees
    from ansible_collections.realtime.virt.plugins.modules.rt_isolation_info import read
    root = rt_node_trees.build_shape(str(tmp_path), shape, **overrides)
    if overrides.get("tuned_active") == "realtime-virt-realtime-virtual-guest":
        # rt_guest's child profile in /etc/tuned, including the distribution's
        rt_node_trees.Tree(root).write("/etc/tuned/realtime-virt-realtime-virtual-guest/tuned.conf",
                                       "[main]\ninclude=realtime-virtual-guest\n\n[bootloader]\nreplace=true\n")
    result, _warnings = read({"root": root, "sysctls": ["kernel.sched_rt_runtime_us"], "pfs": [],
                              "reboot_marker": "/run/x"})
    return dict(json.loads(json.dumps(result)), changed=False)


GUEST_PROFILES = {"realtime-virtual-guest": "[main]\ninclude=realtime\n",
                  "realtime": "[main]\n\n[sysctl]\nkernel.sched_rt_runtime_us = -1\n"}


def test_guest_check_judges_the_tuning_rt_isolation_info_read(tmp_path):
    plan = FILTERS["rt_validate_guest_plan"]([{"host": "vm2", "cpus": "2-3"}], 3)
    state = FILTERS["rt_validate_guest_state"](plan[0], probe={"rc": 0, "stdout": "/usr/bin/cyclictest"})
    run = {"rc": 0, "stdout": HISTOGRAM + RUN}
    # two_socket_smt isolates 2-15,18-31 with sched_rt_runtime_us -1; here rt_guest's profile is active
    tuned = _guest_tuning_read(tmp_path / "tuned", "two_socket_smt", tuned_profiles=GUEST_PROFILES,
                               tuned_active="realtime-virt-realtime-virtual-guest")
    outcome = FILTERS["rt_validate_guest_check"](plan[0], state, run=run, threshold_us=40, tuning=tuned)
    assert outcome["guest"]["tuning"] == {"tuned": True, "isolated": "2-15,18-31", "sched_rt_runtime_us": -1,
                                          "profiles": ["realtime-virt-realtime-virtual-guest"], "missing": []}
    assert [(c["check"], c["status"]) for c in outcome["checks"]] == [("cyclictest", "pass"), ("guest tuning", "pass")]
    # test_host: nothing isolated, throttling on, tuned installed with no profile active
    plain = _guest_tuning_read(tmp_path / "plain", "test_host")
    outcome = FILTERS["rt_validate_guest_check"](plan[0], state, run=run, threshold_us=40, tuning=plain)
    assert outcome["checks"][1] == {
        "subject": "guest vm2 CPUs 2-3", "check": "guest tuning",
        "expected": "isolated CPUs covering the measured CPUs 2-3, kernel.sched_rt_runtime_us -1, "
                    "a real-time tuned profile",
        "observed": "isolated none, kernel.sched_rt_runtime_us 950000, tuned none active", "status": "warn",
        "message": "guest vm2 CPUs 2-3: not tuned for real time: no isolated CPUs (neither isolcpus nor nohz_full); "
                   "kernel.sched_rt_runtime_us is 950000, not -1; no tuned profile active. "
                   "Fix: run realtime.virt.rt_guest on it"}


@pytest.mark.parametrize("name, args, kwargs, message", [
    ("rt_validate_guest_plan", (["vm1", "vm1"], 3), {},
     r"rt_validate_guest_plan: rt_validate_guests\[1\]='vm1': guest vm1 is listed twice"),
    ("rt_validate_guest_plan", ([{"host": "vm1", "cpus": "a"}], 3), {},
     r"rt_validate_guest_plan: rt_validate_guests\[0\] \(vm1\)\.cpus='a'"),
    ("rt_validate_guest_state", ("vm1",), {}, "expected one target of rt_validate_guest_plan"),
    ("rt_validate_guest_state", ({"host": "vm1"},), {"probe": "ok"},
     "rt_validate_guest_state probe: expected a registered task result"),
    ("rt_validate_guest_check", ({"host": "vm1"}, None), {}, "expected a target of rt_validate_guest_plan"),
    ("rt_validate_guest_check", ({"host": "vm1"}, {"next": "run"}), {"threshold_us": "forty"},
     "threshold_us='forty' is not a number of microseconds"),
    ("rt_validate_guest_check", ({"host": "vm1"}, {"next": "run"}), {"tuning": "tuned"},
     "rt_validate_guest_check tuning: expected a registered task result"),
    ("rt_validate_guest_check", ({"host": "vm1", "cpus": "1-x"}, {"next": "run"}),
     {"tuning": {"isolation": {"cpus": {"isolated": [1]}}}}, "rt_validate_guest_check: cpus='1-x' of the target"),
])
def test_guest_filter_errors_are_filter_errors(name, args, kwargs, message):
    with pytest.raises(AnsibleFilterError, match=message):
        FILTERS[name](*args, **kwargs)


# -- isolation and drift ----------------------------------------------------------------------------

def _info_and_facts(tmp_path, shape="two_socket_smt", **overrides):
    import json
    import rt_node_trees
    from ansible_collections.realtime.virt.plugins.module_utils._node.gather import gather_node_facts
    from ansible_collections.realtime.virt.plugins.modules.rt_isolation_info import read
    root = rt_node_trees.build_shape(str(tmp_path), shape, **overrides)
    result, _warnings = read({"root": root, "sysctls": ["kernel.sched_rt_runtime_us"], "pfs": [],
                              "reboot_marker": "/run/x"})
    return json.loads(json.dumps(result)), gather_node_facts(root)[0]


def test_isolation_and_drift_filters_chain_like_the_role(tmp_path):
    info, facts = _info_and_facts(tmp_path)
    checks = FILTERS["rt_validate_isolation_checks"](info["isolation"], facts, isolated="", thp_allowed=["never"],
                                                     ksm_allowed=[2], tuned_verify={"skipped": True})
    checks += FILTERS["rt_validate_drift_checks"](info["applied"], facts, sysctls={"kernel.sched_rt_runtime_us": "-1"},
                                                  kernel_args=[], reboot_pending=False, hugepages=[],
                                                  sriov_pfs=[])
    report = FILTERS["rt_validate_report"](checks, "node1")
    assert report["passed"] is True, report["table"]
    assert report["counts"]["fail"] == 0
    assert "isolated CPUs 2-15,18-31  ksoftirqd/N scheduling" in report["table"]


TUNED_FAILS = {"subject": "host", "check": "tuned-adm verify", "expected": "tuned-adm verify succeeds",
               "observed": "Verification failed", "status": "fail",
               "message": "host: tuned-adm verify failed for profile realtime (rc 1): Verification failed"}
KSM_FAILS = {"subject": "host", "check": "KSM", "expected": "run in 0, 2", "observed": "1", "status": "fail",
             "message": "host: KSM merges pages"}


def test_report_filter_passes_accept_on_like_the_role():
    # the role: checks | rt_validate_report(inventory_hostname, accept=rt_validate_accept)
    report = FILTERS["rt_validate_report"]([dict(TUNED_FAILS)], "node1", accept=["tuned-adm verify"])
    assert report["passed"] is True
    assert report["failures"] == []
    assert report["checks"] == [dict(TUNED_FAILS, status="warn", accepted=True,
                                     message="accepted (rt_validate_accept): host: tuned-adm verify failed for "
                                             "profile realtime (rc 1): Verification failed")]
    gated = FILTERS["rt_validate_report"]([dict(TUNED_FAILS), dict(KSM_FAILS)], "node1", accept=["tuned-adm verify"])
    assert gated["passed"] is False
    assert gated["failures"] == ["host: KSM merges pages"]
    # without accept, as before
    assert FILTERS["rt_validate_report"]([dict(TUNED_FAILS)], "node1")["failures"] == [TUNED_FAILS["message"]]


@pytest.mark.parametrize("accept, message", [
    ([""], "rt_validate_report: rt_validate_accept=['']: entry 0 ('') is not the name of a check, a non-empty string. "
           "Fix: write each entry as a check name from the CHECK column of the report"),
    ("KSM", "rt_validate_report: rt_validate_accept='KSM': not a list of check names. Fix: give a list"),
    ([["KSM"]], "rt_validate_report: rt_validate_accept=[['KSM']]: entry 0 (['KSM']) is not the name of a check"),
])
def test_report_filter_refuses_bad_accept(accept, message):
    with pytest.raises(AnsibleFilterError) as error:
        FILTERS["rt_validate_report"]([dict(TUNED_FAILS)], "node1", accept=accept)
    assert str(error.value).startswith(message)


@pytest.mark.parametrize("name, args, kwargs, message", [
    ("rt_validate_isolation_checks", ("not info", {}), {}, "the 'isolation' of realtime.virt.rt_isolation_info"),
    ("rt_validate_isolation_checks", ({}, []), {}, "ansible_facts.rt_node"),
    ("rt_validate_isolation_checks", ({}, {"cpus": {"online": [0, 1]}}), {"isolated": "0-1"},
     "rt_validate_isolated_cpus='0-1': it names every online CPU"),
    ("rt_validate_isolation_checks", ({}, {}), {"thp_allowed": "never"}, "thp_allowed='never' is not a list"),
    ("rt_validate_isolation_checks", ({}, {}), {"ksm_allowed": ["off"]}, "rt_validate_ksm_allowed=['off']"),
    ("rt_validate_isolation_checks", ({}, {}), {"tuned_verify": "ok"}, "expected a registered task result"),
    ("rt_validate_drift_checks", (None, {}), {}, "the 'applied' of realtime.virt.rt_isolation_info"),
    ("rt_validate_drift_checks", ({}, {}), {"kernel_args": "nohz_full=1"}, "rt_validate_drift_kernel_args='nohz_full=1'"),
    ("rt_validate_drift_checks", ({}, {}), {"sysctls": ["kernel.x"]}, "rt_validate_drift_sysctls=['kernel.x']"),
])
def test_isolation_and_drift_filters_refuse_bad_input(name, args, kwargs, message):
    with pytest.raises(AnsibleFilterError) as error:
        FILTERS[name](*args, **kwargs)
    assert message in str(error.value)


def test_hwlat_filters_chain_like_the_role():
    # the role's skip path: slurp found neither available_tracers file
    tracefs = [{"item": path, "failed": True, "msg": "File not found: " + path}
               for path in ("/sys/kernel/tracing/available_tracers", "/sys/kernel/debug/tracing/available_tracers")]
    tracer = FILTERS["rt_validate_hwlat_tracer"](tracefs)
    assert tracer["available"] is False
    # no run: the role joins two empty outputs
    skipped = FILTERS["rt_validate_hwlat"]("\n", threshold_us="10", skip_reason=tracer["reason"])
    assert skipped["status"] == "skip"
    assert skipped["observed"].startswith("skipped: tracefs is not mounted: neither /sys/kernel/tracing/")
    # a run: the threshold comes as the string a role variable may be
    report = "Max Latency: 14us\nSamples recorded: 2\nSamples exceeding threshold: 2\n"
    ran = FILTERS["rt_validate_hwlat"](report, threshold_us="12", subject="host firmware")
    assert (ran["status"], ran["expected"], ran["observed"]) == (
        "fail", "no hardware latency above 12 us", "max 14 us, 2 sample(s) above 12 us")


@pytest.mark.parametrize("threshold", [True, -1, "ten"])
def test_hwlat_threshold_must_be_microseconds(threshold):
    with pytest.raises(AnsibleFilterError, match="rt_validate_hwlat: threshold_us=.* is not a number of microseconds"):
        FILTERS["rt_validate_hwlat"]("", threshold_us=threshold)
