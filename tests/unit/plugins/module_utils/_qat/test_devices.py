# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""The QAT device table, services strings and kernel arguments."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._qat import devices
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._qat.services import parse_services, same_services


@pytest.mark.parametrize("vendor, device, kind, generation", [
    ("0x8086", "0x0435", "pf", "dh895xcc"),
    ("0x8086", "0x0443", "vf", "dh895xcc"),
    ("0x8086", "0x37c8", "pf", "c62x"),
    ("0x8086", "0x37c9", "vf", "c62x"),
    ("0x8086", "0x19e2", "pf", "c3xxx"),
    ("0x8086", "0x19e3", "vf", "c3xxx"),
    ("0x8086", "0x4940", "pf", "4xxx"),
    ("0x8086", "0x4941", "vf", "4xxx"),
    ("0x8086", "0x4942", "pf", "401xx"),
    ("0x8086", "0x4943", "vf", "401xx"),
    ("0x8086", "0x4944", "pf", "402xx"),
    ("0x8086", "0x4945", "vf", "402xx"),
    ("0x8086", "0x4946", "pf", "420xx"),
    ("0x8086", "0x4947", "vf", "420xx"),
    ("0x8086", "0x15bb", None, None),
    ("0x10de", "0x4940", None, None),
    (None, None, None, None),
])
def test_classify(vendor, device, kind, generation):
    found_kind, entry = devices.classify(vendor, device)
    assert found_kind == kind
    assert (entry["generation"] if entry else None) == generation


def test_driver_names_have_no_qat_prefix():
    for entry in devices.GENERATIONS:
        assert not entry["pf_driver"].startswith("qat_")
        assert entry["kernel_module"].startswith("qat_")
        assert entry["vf_driver"] is None or entry["vf_driver"] == entry["pf_driver"] + "vf"
        assert (entry["vf_driver"] is None) is (entry["family"] == "gen4")


@pytest.mark.parametrize("generations, modules, args", [
    ([], [], []),
    (["4xxx"], ["qat_4xxx", "vfio-pci"], ["intel_iommu=on", "iommu=pt"]),
    (["4xxx", "401xx", "402xx"], ["qat_4xxx", "vfio-pci"], ["intel_iommu=on", "iommu=pt"]),
    (["c62x", "420xx"], ["qat_c62x", "qat_420xx", "vfio-pci"],
     ["intel_iommu=on", "iommu=pt", "vfio-pci.disable_denylist=1"]),
    (["dh895xcc"], ["qat_dh895xcc", "vfio-pci"], ["intel_iommu=on", "iommu=pt", "vfio-pci.disable_denylist=1"]),
])
def test_modules_and_kernel_args(generations, modules, args):
    assert devices.kernel_modules(generations) == modules
    assert devices.kernel_args(generations) == args


@pytest.mark.parametrize("value, services", [
    ("sym", ["sym"]), ("dc", ["dc"]), ("asym", ["asym"]), ("dcc", ["dcc"]),
    ("sym;asym", ["sym", "asym"]), ("asym;sym", ["asym", "sym"]), ("sym;dc", ["sym", "dc"]),
    ("asym;dc", ["asym", "dc"]), (" SYM ; dc ", ["sym", "dc"]),
])
def test_services_accepted(value, services):
    assert parse_services(value) == services


@pytest.mark.parametrize("value, words", [
    ("sym;asym;dc", "at most 2"),
    ("crypto", "unknown service 'crypto'"),
    ("sym;;dc", "unknown service ''"),
    ("sym;sym", "twice"),
    ("dcc;sym", "stand alone"),
    ("", "not a services string"),
    (None, "not a services string"),
])
def test_services_refused(value, words):
    with pytest.raises(OptionError) as info:
        parse_services(value)
    assert words in str(info.value)
    assert "qat_services=" in str(info.value)


@pytest.mark.parametrize("current, wanted, same", [
    ("sym;asym", "asym;sym", True), ("dc", "dc", True), ("sym;asym", "dc", False), (None, "dc", False),
    ("sym;dc", "sym", False),
])
def test_same_services(current, wanted, same):
    assert same_services(current, wanted) is same
