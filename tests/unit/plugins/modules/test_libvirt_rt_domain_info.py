# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""libvirt_rt_domain_info on a host without libvirt-python: check mode reads no domain, a real run fails."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.modules import libvirt_rt_domain_info


def _without_libvirt(monkeypatch):
    monkeypatch.setattr(libvirt_rt_domain_info, "libvirt", None)
    monkeypatch.setattr(libvirt_rt_domain_info, "LIB_IMPORT_ERROR", "ImportError: No module named 'libvirt'")


def test_check_mode_without_libvirt_python_reads_no_domain_and_warns(monkeypatch, run_module):
    _without_libvirt(monkeypatch)
    outcome = run_module(libvirt_rt_domain_info.main, {"names": ["vm1", "vm2"]}, check=True)
    assert outcome.failed is False, outcome.result
    assert outcome.result["changed"] is False
    assert outcome.result["libvirt_python"] is False
    assert outcome.result["domains"] == []
    assert outcome.result["missing"] == ["vm1", "vm2"]
    assert len(outcome.warnings) == 1
    assert "libvirt-python is not installed" in outcome.warnings[0]
    assert "check mode" in outcome.warnings[0]


def test_a_real_run_without_libvirt_python_fails_naming_the_library(monkeypatch, run_module):
    _without_libvirt(monkeypatch)
    outcome = run_module(libvirt_rt_domain_info.main, {"names": ["vm1"]}, check=False)
    assert outcome.failed is True
    assert "libvirt-python" in outcome.result["msg"]
    assert "domains" not in outcome.result
