# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run rt_node_facts' main() in-process over fixture trees."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import json
import os
import sys

import pytest

from ansible.module_utils import basic

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "module_utils", "fixtures")
)

import rt_node_trees  # noqa: E402  pylint: disable=wrong-import-position

from ansible_collections.realtime.virt.plugins.modules import rt_node_facts  # noqa: E402

try:
    from ansible.module_utils.testing import patch_module_args
except ImportError:  # ansible-core before 2.19
    @contextlib.contextmanager
    def patch_module_args(args=None):
        old = basic._ANSIBLE_ARGS
        basic._ANSIBLE_ARGS = json.dumps({"ANSIBLE_MODULE_ARGS": args or {}}).encode()
        try:
            yield
        finally:
            basic._ANSIBLE_ARGS = old


class ModuleExit(Exception):
    def __init__(self, result, failed):
        super(ModuleExit, self).__init__(result)
        self.result = result
        self.failed = failed


@pytest.fixture
def run(monkeypatch):
    warnings = []

    def exit_json(self, **kwargs):
        raise ModuleExit(kwargs, False)

    def fail_json(self, **kwargs):
        raise ModuleExit(kwargs, True)

    monkeypatch.setattr(basic.AnsibleModule, "exit_json", exit_json)
    monkeypatch.setattr(basic.AnsibleModule, "fail_json", fail_json)
    monkeypatch.setattr(basic.AnsibleModule, "warn", lambda self, text: warnings.append(text))

    def runner(args):
        del warnings[:]
        with patch_module_args(args):
            with pytest.raises(ModuleExit) as info:
                rt_node_facts.main()
        return info.value, list(warnings)

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
