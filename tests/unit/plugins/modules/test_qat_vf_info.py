# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run qat_vf_info's main() in-process over fixture trees."""
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

from ansible_collections.realtime.virt.plugins.modules import qat_vf_info  # noqa: E402

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
    def exit_json(self, **kwargs):
        raise ModuleExit(kwargs, False)

    def fail_json(self, **kwargs):
        raise ModuleExit(kwargs, True)

    monkeypatch.setattr(basic.AnsibleModule, "exit_json", exit_json)
    monkeypatch.setattr(basic.AnsibleModule, "fail_json", fail_json)

    def runner(args):
        with patch_module_args(args):
            with pytest.raises(ModuleExit) as info:
                qat_vf_info.main()
        return info.value

    return runner


@pytest.mark.parametrize("check_mode", [False, True])
def test_main_reports_vfs(tmp_path, run, check_mode):
    qat_trees.build(str(tmp_path), "two_socket_4xxx")
    out = run({"root": str(tmp_path), "_ansible_check_mode": check_mode})
    assert out.failed is False and out.result["changed"] is False
    assert len(out.result["pfs"]) == 2 and len(out.result["assignable_vfs"]) == 14
    assert "ansible_facts" not in out.result


def test_main_no_qat(tmp_path, run):
    qat_trees.build(str(tmp_path), "no_qat")
    out = run({"root": str(tmp_path)})
    assert out.result["present"] is False and out.result["pfs"] == [] and out.result["kernel_args"] == []


def test_main_bad_root(tmp_path, run):
    out = run({"root": str(tmp_path / "nope")})
    assert out.failed is True and out.result["msg"].startswith("qat_vf_info: root=")


def test_documentation_matches_results(tmp_path):
    doc = yaml.safe_load(qat_vf_info.DOCUMENTATION)
    ret = yaml.safe_load(qat_vf_info.RETURN)
    assert doc["author"] == ["realtime.virt contributors (!UNKNOWN)"]
    assert set(doc["options"]) == {"root"}
    qat_trees.build(str(tmp_path), "two_socket_4xxx")
    from ansible_collections.realtime.virt.plugins.module_utils._qat.gather import gather_qat
    info = gather_qat(str(tmp_path))[0]
    assert set(ret) == set(info)
    assert set(ret["pfs"]["contains"]) == set(info["pfs"][0])
    assert set(ret["vfs"]["contains"]) == set(info["vfs"][0])
