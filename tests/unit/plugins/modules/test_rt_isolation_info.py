# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run rt_isolation_info's main() in-process over fixture trees."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

import rt_node_trees

from ansible_collections.realtime.virt.plugins.modules import rt_isolation_info


@pytest.mark.parametrize("check_mode", [False, True])
def test_main_reads_a_tuned_host(tmp_path, run_module, check_mode):
    root = rt_node_trees.build_shape(str(tmp_path), "two_socket_smt")
    rt_node_trees.Tree(root).write("/run/realtime-virt/reboot-required", "# reboot\n")
    outcome = run_module(rt_isolation_info.main, {"root": root, "sysctls": ["kernel.sched_rt_runtime_us", "vm.no_such"]},
                         check=check_mode)
    assert outcome.failed is False, outcome.result
    result = outcome.result
    assert result["changed"] is False
    assert sorted(result) == ["applied", "changed", "isolation"]
    isolation = result["isolation"]
    assert [irq["irq"] for irq in isolation["irqs"]] == [4, 9, 120, 130, 131, 132]
    assert [irq["irq"] for irq in isolation["irqs"] if irq["kernel_managed"]] == [131, 132]
    assert isolation["masks"][0] == {"name": "workqueue cpumask", "path": "/sys/devices/virtual/workqueue/cpumask",
                                     "cpus": [0, 1, 16, 17]}
    assert len(isolation["threads"]["per_cpu"]) == 32
    assert isolation["tuned"]["active"] == ["realtime-virtual-host"]
    assert isolation["nohz_full_reported"] is True
    assert isolation["cpus"] == {"isolated": list(range(2, 16)) + list(range(18, 32)),
                                 "nohz_full": list(range(2, 16)) + list(range(18, 32))}
    assert result["applied"]["sysctls"] == {"kernel.sched_rt_runtime_us": "-1", "vm.no_such": None}
    assert result["applied"]["reboot_marker"] == {"path": "/run/realtime-virt/reboot-required", "present": True}
    assert outcome.warnings == []


@pytest.mark.parametrize("args, words", [
    ({"root": "/nonexistent/iso"}, ["rt_isolation_info: root='/nonexistent/iso'", "not a directory", "Fix:"]),
    ({"sysctls": ["kernel/sched_rt_runtime_us"]}, ["sysctls='kernel/sched_rt_runtime_us'", "not a sysctl name", "Fix:"]),
    ({"pfs": ["3b:00.0"]}, ["pfs='3b:00.0'", "not a PCI address", "lspci -D"]),
])
def test_main_refuses_bad_input_clearly(tmp_path, run_module, args, words):
    root = rt_node_trees.build_shape(str(tmp_path), "test_host")
    outcome = run_module(rt_isolation_info.main, dict({"root": root}, **args))
    assert outcome.failed is True
    for word in words:
        assert word in outcome.result["msg"]


def test_main_reports_no_nohz_full_list_on_a_kernel_without_one(tmp_path, run_module):
    # test_host: no CPU isolated, and no nohz_full file (a kernel without NO_HZ_FULL)
    root = rt_node_trees.build_shape(str(tmp_path), "test_host")
    outcome = run_module(rt_isolation_info.main, {"root": root})
    assert outcome.failed is False, outcome.result
    assert outcome.result["isolation"]["cpus"] == {"isolated": [], "nohz_full": None}
    assert outcome.result["isolation"]["nohz_full_reported"] is False
