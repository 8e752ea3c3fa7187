# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run qat_vf_info's main() in-process over fixture trees."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
import yaml

import qat_trees

from ansible_collections.realtime.virt.plugins.modules import qat_vf_info


@pytest.fixture
def run(run_module):
    return lambda args: run_module(qat_vf_info.main, args)


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


def test_documentation_matches_results(tmp_path, module_doc):
    doc = module_doc(qat_vf_info)
    ret = yaml.safe_load(qat_vf_info.RETURN)
    assert doc["author"] == ["realtime.virt contributors (!UNKNOWN)"]
    assert set(doc["options"]) == {"root"}
    qat_trees.build(str(tmp_path), "two_socket_4xxx")
    from ansible_collections.realtime.virt.plugins.module_utils._qat.gather import gather_qat
    info = gather_qat(str(tmp_path))[0]
    assert set(ret) == set(info)
    assert set(ret["pfs"]["contains"]) == set(info["pfs"][0])
    assert set(ret["vfs"]["contains"]) == set(info["vfs"][0])
