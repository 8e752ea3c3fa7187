# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run sriov_vfs' main() in-process against a fake kernel."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

import qat_trees
from pci_kernel import FakeKernel

from ansible_collections.realtime.virt.plugins.module_utils._sriov import manager as sriov_state
from ansible_collections.realtime.virt.plugins.modules import sriov_vfs


@pytest.fixture
def host(tmp_path, monkeypatch, run_module):
    tree = qat_trees.PciTree(str(tmp_path / "root"))
    qat_trees.add_qat_pf(tree, "0000:6b:00.0", "4xxx", total=16)
    kernel = FakeKernel(tree)
    monkeypatch.setattr(sriov_state, "SysfsWriter", lambda root: kernel)
    state = str(tmp_path / "state.conf")

    def runner(check=False, diff=False, **args):
        params = {"pf": "0000:6b:00.0", "count": "4", "root": tree.root, "state_file": state}
        params.update(args)
        return run_module(sriov_vfs.main, params, check=check, diff=diff)

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
    assert out.failed is True and "pf='6b:00.0': not a PCI address" in out.result["msg"]
    assert kernel.log == []


def test_documentation_matches_argument_spec(module_doc):
    doc = module_doc(sriov_vfs)
    assert doc["author"] == ["realtime.virt contributors (!UNKNOWN)"]
    assert set(doc["options"]) == {"pf", "count", "driver", "persist", "state_file", "root", "vfs_removed"}
    assert doc["options"]["state_file"]["default"] == "/etc/realtime-virt/sriov-vfs.conf"
