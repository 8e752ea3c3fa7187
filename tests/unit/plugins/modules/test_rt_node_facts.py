# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run rt_node_facts' main() in-process over fixture trees."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

import rt_node_trees

from ansible_collections.realtime.virt.plugins.modules import rt_node_facts


@pytest.fixture
def run(run_module):
    def runner(args):
        outcome = run_module(rt_node_facts.main, args)
        return outcome, outcome.warnings
    return runner


@pytest.mark.parametrize("check_mode", [False, True])
def test_main_returns_facts(tmp_path, run, check_mode):
    root = rt_node_trees.build_shape(str(tmp_path), "two_socket_smt")
    args = {"root": root}
    if check_mode:
        args["_ansible_check_mode"] = True
    outcome, warnings = run(args)
    assert outcome.failed is False
    assert outcome.result["changed"] is False
    assert list(outcome.result["ansible_facts"]) == ["rt_node"]
    facts = outcome.result["ansible_facts"]["rt_node"]
    assert facts["root"] == root
    assert facts["cpus"]["count"] == 32
    assert facts["cpus"]["isolated_cpuset"] == "2-15,18-31"
    assert facts["cpus"]["housekeeping_cpuset"] == "0-1,16-17"
    assert facts["numa"]["node_count"] == 2
    assert facts["hugepages"]["sizes"]["1048576kB"]["total"] == 16
    assert facts["kubevirt_labels"] == {"kubevirt.io/realtime": "true"}
    assert facts["realtime_ready"] is True
    assert warnings == []


def test_main_passes_reader_warnings(tmp_path, run):
    root = rt_node_trees.build_shape(str(tmp_path), "test_host", omit=("/proc/sys/kernel/sched_rt_runtime_us",))
    outcome, warnings = run({"root": root})
    assert outcome.failed is False
    facts = outcome.result["ansible_facts"]["rt_node"]
    assert facts["sched_rt_runtime_us"] is None
    assert facts["kubevirt_labels"] == {}
    assert len(warnings) == 1
    assert "/proc/sys/kernel/sched_rt_runtime_us" in warnings[0]
    assert "does not exist" in warnings[0]


def test_main_captured_test_host(run):
    outcome, warnings = run({"root": rt_node_trees.CAPTURED_TEST_HOST})
    facts = outcome.result["ansible_facts"]["rt_node"]
    assert facts["cpus"]["online"] == [0, 1]
    assert facts["sched_rt_runtime_us"] == 950000
    assert warnings == []


@pytest.mark.parametrize("root", ["/nonexistent/rt-tree", "FILE"])
def test_main_bad_root_fails_clearly(tmp_path, run, root):
    if root == "FILE":
        root = str(tmp_path / "plain-file")
        with open(root, "w") as handle:
            handle.write("x")
    outcome, _warnings = run({"root": root})
    assert outcome.failed is True
    message = outcome.result["msg"]
    assert message.startswith("rt_node_facts: root=%r is not a directory" % root)
    assert "proc/ and sys/" in message
    assert "default '/'" in message


def test_main_rejects_unknown_option(run):
    outcome, _warnings = run({"rooot": "/"})
    assert outcome.failed is True
    assert "rooot" in outcome.result["msg"]


def _documented(node):
    """The keys a RETURN entry documents, as nested dicts (None for a leaf)."""
    return dict((key, _documented(value.get("contains") or {}) or None) for key, value in node.items())


def test_return_documents_every_time_sync_key(tmp_path, run):
    import yaml
    root = rt_node_trees.build_shape(str(tmp_path), "test_host")
    tree = rt_node_trees.Tree(root)
    tree.write("/sys/class/net/eth0/device/ptp/ptp0/clock_name", "igb\n")
    tree.write("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n")
    tree.write("/sys/devices/system/clocksource/clocksource0/available_clocksource", "tsc hpet\n")
    outcome, warnings = run({"root": root})
    assert warnings == []
    time_sync = outcome.result["ansible_facts"]["rt_node"]["time_sync"]
    doc = yaml.safe_load(rt_node_facts.RETURN)["ansible_facts"]["contains"]["rt_node"]["contains"]["time_sync"]
    documented = _documented(doc["contains"])
    assert sorted(documented) == sorted(time_sync)
    assert sorted(documented["interfaces"]) == sorted(time_sync["interfaces"][0])
    assert sorted(documented["clocksource"]) == sorted(time_sync["clocksource"])
    assert sorted(doc["sample"]["daemons"]) == sorted(time_sync["daemons"])
    assert time_sync["interfaces"][0]["phc_device"] == "/dev/ptp0"
