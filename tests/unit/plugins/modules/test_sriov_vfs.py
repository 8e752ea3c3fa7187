# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run sriov_vfs' main() in-process against a fake kernel."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import json
import os
import sys

import pytest
import yaml

from ansible.module_utils import basic

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "module_utils", "fixtures", "qat")
)

import qat_trees  # noqa: E402  pylint: disable=wrong-import-position
from pci_tree import FakeKernel  # noqa: E402  pylint: disable=wrong-import-position

from ansible_collections.realtime.virt.plugins.module_utils._sriov import manager as sriov_state  # noqa: E402
from ansible_collections.realtime.virt.plugins.modules import sriov_vfs  # noqa: E402

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
def host(tmp_path, monkeypatch):
    tree = qat_trees.PciTree(str(tmp_path / "root"))
    qat_trees.add_qat_pf(tree, "0000:6b:00.0", "4xxx", total=16)
    kernel = FakeKernel(tree)
    monkeypatch.setattr(sriov_state, "SysfsWriter", lambda root: kernel)

    def exit_json(self, **kwargs):
        raise ModuleExit(kwargs, False)

    def fail_json(self, **kwargs):
        raise ModuleExit(kwargs, True)

    monkeypatch.setattr(basic.AnsibleModule, "exit_json", exit_json)
    monkeypatch.setattr(basic.AnsibleModule, "fail_json", fail_json)
    monkeypatch.setattr(basic.AnsibleModule, "warn", lambda self, text: None)
    state = str(tmp_path / "state.conf")

    def runner(check=False, diff=False, **args):
        params = {"pf": "0000:6b:00.0", "count": "4", "root": tree.root, "state_file": state,
                  "_ansible_check_mode": check, "_ansible_diff": diff}
        params.update(args)
        with patch_module_args(params):
            with pytest.raises(ModuleExit) as info:
                sriov_vfs.main()
        return info.value

    return tree, kernel, state, runner


def test_check_real_check_real(host):
    tree, kernel, state, run = host
    first = run(check=True, diff=True)
    assert first.result["changed"] is True and kernel.log == [] and "diff" in first.result
    second = run()
    assert second.result["changed"] is True and len(tree.vfs("0000:6b:00.0")) == 4
    assert "diff" not in second.result
    third = run(check=True, diff=True)
    assert third.result["changed"] is False and "diff" not in third.result
    fourth = run()
    assert fourth.result["changed"] is False
    assert open(state).read().strip().endswith("0000:6b:00.0 4 vfio-pci")


def test_failure_message_and_actions(host):
    tree, kernel, state, run = host
    run()
    kernel.busy.add("0000:6b:00.0")
    out = run(count="2")
    assert out.failed is True
    assert out.result["msg"].startswith("sriov_vfs: the kernel refused to remove the VFs of 0000:6b:00.0 (EBUSY)")
    assert out.result["actions"] == []


def test_bad_pf_fails_naming_option(host):
    tree, kernel, state, run = host
    out = run(pf="6b:00.0")
    assert out.failed is True and "pf='6b:00.0' is not a PCI address" in out.result["msg"]
    assert kernel.log == []


def test_documentation_matches_argument_spec():
    doc = yaml.safe_load(sriov_vfs.DOCUMENTATION)
    assert doc["author"] == ["realtime.virt contributors (!UNKNOWN)"]
    assert set(doc["options"]) == {"pf", "count", "driver", "persist", "state_file", "root"}
    assert doc["options"]["state_file"]["default"] == "/etc/realtime-virt/sriov-vfs.conf"
