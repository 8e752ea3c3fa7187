# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run qat_services' main() in-process against a fake kernel: check, real, check, real."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

import qat_trees
from pci_kernel import FakeKernel

from ansible_collections.realtime.virt.plugins.module_utils._qat import services as qat_services_utils
from ansible_collections.realtime.virt.plugins.modules import qat_services


PF = "0000:6b:00.0"


@pytest.fixture
def host(tmp_path, monkeypatch, run_module):
    tree = qat_trees.PciTree(str(tmp_path / "root"))
    qat_trees.add_qat_pf(tree, PF, "4xxx", services="sym;asym")
    kernel = FakeKernel(tree)
    monkeypatch.setattr(qat_services_utils, "SysfsWriter", lambda root: kernel)

    def runner(check=False, diff=False, **args):
        params = {"pf": PF, "services": "dc", "root": tree.root}
        params.update(args)
        return run_module(qat_services.main, params, check=check, diff=diff)

    return tree, kernel, runner


def test_check_real_check_real(host):
    tree, kernel, run = host
    first = run(check=True, diff=True)
    assert first.failed is False and first.result["changed"] is True and kernel.log == []
    assert first.result["diff"]["after"] == "state: up\ncfg_services: dc\n"
    second = run()
    assert second.result["changed"] is True and "diff" not in second.result
    assert [value for path, value in kernel.log] == ["down", "dc", "up"]
    third = run(check=True, diff=True)
    assert third.result["changed"] is False and "diff" not in third.result
    fourth = run()
    assert fourth.result["changed"] is False and len(kernel.log) == 3
    with open(os.path.join(tree.device_dir(PF), "qat", "cfg_services")) as handle:
        assert handle.read().strip() == "dc"


def test_refused_write_fails_with_actions(host):
    tree, kernel, run = host
    kernel.qat_stay_down.add(PF)
    out = run()
    assert out.failed is True
    assert out.result["msg"].startswith("qat_services: 0000:6b:00.0 did not come up with services 'dc'")
    assert [action.split(": write")[0] for action in out.result["actions"]] == [
        "take %s down" % PF, "set the services of %s" % PF]


@pytest.mark.parametrize("args, words", [
    ({"services": "sym;asym;dc"}, ["services='sym;asym;dc'", "at most 2"]),
    ({"pf": "6b:00.0"}, ["pf='6b:00.0'", "lspci -D"]),
    ({"services": None}, ["services"]),
])
def test_bad_input_fails_naming_option(host, args, words):
    tree, kernel, run = host
    out = run(**args)
    assert out.failed is True and kernel.log == []
    for word in words:
        assert word in out.result["msg"]


def test_documentation_matches_argument_spec(module_doc):
    doc = module_doc(qat_services)
    assert doc["author"] == ["realtime.virt contributors (!UNKNOWN)"]
    assert doc["extends_documentation_fragment"] == ["realtime.virt.attributes", "realtime.virt.host_root",
                                                     "realtime.virt.pci_pf"]
    assert set(doc["options"]) == {"pf", "services", "root"}
    assert yaml.safe_load(qat_services.EXAMPLES)[0]["realtime.virt.qat_services"]["services"] == "sym;asym"
    assert set(yaml.safe_load(qat_services.RETURN)) == {"pf", "services", "services_before", "state", "state_before",
                                                        "actions", "vfs_removed"}
