# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""CPU isolation plan (auto and explicit) over the fixture hosts."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type


import pytest


import rt_node_trees

from ansible_collections.realtime.virt.plugins.module_utils._node.gather import gather_node_facts
from ansible_collections.realtime.virt.plugins.module_utils._cpu.plan import cpu_plan
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError

# auto keeps the first core of each node with its SMT sibling.
BIG_KEEP = sorted([32 * n for n in range(8)] + [256 + 32 * n for n in range(8)])


@pytest.mark.parametrize("shape, isolated, housekeeping", [
    ("test_host", "1", "0"),
    ("two_socket_smt", "1-7,9-15,17-23,25-31", "0,8,16,24"),
    ("big_512", None, ",".join(str(cpu) for cpu in BIG_KEEP)),
])
def test_auto(hosts, shape, isolated, housekeeping):
    plan = cpu_plan(hosts[shape], "auto")
    assert plan["housekeeping_cpuset"] == housekeeping
    if isolated is not None:
        assert plan["isolated_cpuset"] == isolated
    assert sorted(plan["isolated"] + plan["housekeeping"]) == hosts[shape]["cpus"]["online"]
    assert plan["warnings"] == []


def test_auto_big_counts(hosts):
    plan = cpu_plan(hosts["big_512"], "AUTO")
    assert len(plan["isolated"]) == 512 - 16
    assert plan["isolated_cpuset"].startswith("1-31,33-63,")


@pytest.mark.parametrize("shape, value, isolated, housekeeping", [
    ("test_host", "1", [1], [0]),
    ("test_host", [1], [1], [0]),
    ("two_socket_smt", "2-15,18-31", list(range(2, 16)) + list(range(18, 32)), [0, 1, 16, 17]),
    ("two_socket_smt", "0-31,^0,^16", list(range(1, 16)) + list(range(17, 32)), [0, 16]),
])
def test_explicit(hosts, shape, value, isolated, housekeeping):
    plan = cpu_plan(hosts[shape], value)
    assert plan["isolated"] == isolated
    assert plan["housekeeping"] == housekeeping


def test_split_siblings_warn(hosts):
    plan = cpu_plan(hosts["two_socket_smt"], "1-15,17-31")
    assert plan["warnings"] == []
    plan = cpu_plan(hosts["two_socket_smt"], "2-31")
    assert len(plan["warnings"]) == 2
    assert "0,16" in plan["warnings"][0] and "16 isolated" in plan["warnings"][0]


@pytest.mark.parametrize("shape, value, words", [
    ("test_host", "3-1", ["rt_host_isolated_cpus='3-1'", "start 3 is greater than its end 1", "Fix:"]),
    ("test_host", "x", ["rt_host_isolated_cpus='x'", "expected N, N-M or ^N"]),
    ("test_host", "0-1", ["every online CPU (0-1)", "leave at least one CPU"]),
    ("test_host", "1-4", ["CPU(s) 2-4 are not online", "online: 0-1"]),
    ("test_host", "", ["no CPU to isolate", "'auto'"]),
    ("two_socket_smt", "40", ["CPU(s) 40 are not online"]),
])
def test_bad_values(hosts, shape, value, words):
    with pytest.raises(OptionError) as info:
        cpu_plan(hosts[shape], value)
    assert info.value.option == "rt_host_isolated_cpus"
    for word in words:
        assert word in str(info.value)


def test_auto_too_few_cpus(tmp_path):
    root = rt_node_trees.build_shape(str(tmp_path), "test_host", cores_per_socket=1)
    facts = gather_node_facts(root)[0]
    with pytest.raises(OptionError) as info:
        cpu_plan(facts, "auto")
    message = str(info.value)
    assert "rt_host_isolated_cpus='auto'" in message
    assert "1 online CPU(s) (0)" in message
    assert "leaves no CPU to isolate" in message


def test_auto_smt_single_core(tmp_path):
    # One core with two threads: auto keeps both, nothing is left.
    root = rt_node_trees.build_shape(str(tmp_path), "test_host", cores_per_socket=1, threads_per_core=2)
    facts = gather_node_facts(root)[0]
    with pytest.raises(OptionError):
        cpu_plan(facts, "auto")


def test_plain_dict_without_numa():
    facts = {"cpus": {"online": [0, 1, 2, 3], "smt_siblings": [[0, 2], [1, 3]]}}
    plan = cpu_plan(facts, "auto")
    assert plan["housekeeping"] == [0, 2]
    assert plan["isolated"] == [1, 3]


def test_missing_facts():
    with pytest.raises(OptionError) as info:
        cpu_plan({}, "auto")
    assert "rt_node_facts" in str(info.value)
