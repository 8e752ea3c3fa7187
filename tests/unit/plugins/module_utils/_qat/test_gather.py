# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""qat_vf_info's gathering over kernel-shaped QAT sysfs trees."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest


import qat_trees

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import HostError
from ansible_collections.realtime.virt.plugins.module_utils._qat.gather import gather_qat


def gather(tmp_path, shape):
    qat_trees.build(tmp_path, shape)
    info, warnings = gather_qat(str(tmp_path))
    assert warnings == []
    return info


def test_two_socket_4xxx(tmp_path):
    info = gather(tmp_path, "two_socket_4xxx")
    assert info["present"] is True
    assert [pf["pci_address"] for pf in info["pfs"]] == ["0000:6b:00.0", "0000:e8:00.0"]
    first, second = info["pfs"]
    assert first["generation"] == "4xxx" and first["family"] == "gen4"
    assert first["driver"] == "4xxx" and first["expected_driver"] == "4xxx"
    assert first["kernel_module"] == "qat_4xxx"
    assert (first["numa_node"], second["numa_node"]) == (0, 1)
    assert (first["sriov_totalvfs"], first["sriov_numvfs"]) == (16, 16)
    assert (first["state"], first["cfg_services"], second["cfg_services"]) == ("up", "sym;asym", "dc")
    assert first["vf_driver"] is None and first["vfio_denylist"] is False
    assert len(first["vfs"]) == 16 and len(second["vfs"]) == 16
    vf0 = first["vfs"][0]
    assert vf0["pci_address"] == "0000:6b:00.1" and vf0["pf"] == "0000:6b:00.0" and vf0["index"] == 0
    assert vf0["device_id"] == "4941" and vf0["driver"] == "vfio-pci" and vf0["assignable"] is True
    assert vf0["vfio_device"] == "/dev/vfio/%d" % vf0["iommu_group"]
    # 16 VFs at offset 1, stride 1: 00.1 .. 00.7, 01.0 .. 01.7, 02.0
    assert first["vfs"][15]["pci_address"] == "0000:6b:02.0"
    assert first["vfs"][10]["driver"] is None and first["vfs"][10]["assignable"] is False
    assert first["vfs"][10]["vfio_device"] is None
    assert len(info["vfs"]) == 32
    assert len(info["assignable_vfs"]) == 14
    assert sum(1 for vf in info["assignable_vfs"] if vf["numa_node"] == 1) == 4
    groups = [vf["iommu_group"] for vf in info["vfs"]]
    assert len(set(groups)) == 32
    assert info["generations"] == ["4xxx"]
    assert info["kernel_modules"] == ["qat_4xxx", "vfio-pci"]
    assert info["kernel_args"] == ["intel_iommu=on", "iommu=pt"]


def test_c62x_three_pfs(tmp_path):
    info = gather(tmp_path, "c62x_three_pfs")
    assert [pf["pci_address"] for pf in info["pfs"]] == ["0000:3d:00.0", "0000:3f:00.0", "0000:da:00.0"]
    assert set(pf["driver"] for pf in info["pfs"]) == {"c6xx"}
    assert [pf["numa_node"] for pf in info["pfs"]] == [0, 0, 1]
    for pf in info["pfs"]:
        assert pf["sriov_numvfs"] == 0 and pf["vfs"] == []
        assert pf["state"] is None and pf["cfg_services"] is None and pf["services_supported"] is False
        assert pf["vf_driver"] == "c6xxvf" and pf["vfio_denylist"] is True
    assert info["vfs"] == [] and info["assignable_vfs"] == []
    assert info["kernel_modules"] == ["qat_c62x", "vfio-pci"]
    assert info["kernel_args"] == ["intel_iommu=on", "iommu=pt", "vfio-pci.disable_denylist=1"]


def test_no_qat_is_empty_not_an_error(tmp_path):
    info = gather(tmp_path, "no_qat")
    assert info["present"] is False
    assert (info["pfs"], info["vfs"], info["assignable_vfs"]) == ([], [], [])
    assert (info["generations"], info["kernel_modules"], info["kernel_args"]) == ([], [], [])


def test_empty_root_without_sys_is_empty(tmp_path):
    info, warnings = gather_qat(str(tmp_path))
    assert info["pfs"] == [] and info["present"] is False
    assert warnings == []


def test_guest_sees_vfs_without_pf(tmp_path):
    info = gather(tmp_path, "guest_vfs")
    assert info["pfs"] == []
    assert [(vf["pci_address"], vf["pf"], vf["index"], vf["driver"], vf["numa_node"]) for vf in info["vfs"]] == [
        ("0000:00:05.0", None, None, None, -1),
        ("0000:00:06.0", None, None, "vfio-pci", -1),
    ]
    assert [vf["pci_address"] for vf in info["assignable_vfs"]] == ["0000:00:06.0"]
    assert info["present"] is True and info["kernel_args"] == []


@pytest.mark.parametrize("generation, pf_id, vf_id, driver, vf_driver, module, denylist, services", [
    ("dh895xcc", "0435", "0443", "dh895xcc", "dh895xccvf", "qat_dh895xcc", True, False),
    ("c62x", "37c8", "37c9", "c6xx", "c6xxvf", "qat_c62x", True, False),
    ("c3xxx", "19e2", "19e3", "c3xxx", "c3xxxvf", "qat_c3xxx", True, False),
    ("4xxx", "4940", "4941", "4xxx", None, "qat_4xxx", False, True),
    ("401xx", "4942", "4943", "4xxx", None, "qat_4xxx", False, True),
    ("402xx", "4944", "4945", "4xxx", None, "qat_4xxx", False, True),
    ("420xx", "4946", "4947", "420xx", None, "qat_420xx", False, True),
])
def test_every_generation(tmp_path, generation, pf_id, vf_id, driver, vf_driver, module, denylist, services):
    info = gather(tmp_path, "gen_" + generation)
    (pf,) = info["pfs"]
    assert (pf["generation"], pf["device_id"], pf["vf_device_id"]) == (generation, pf_id, vf_id)
    assert (pf["driver"], pf["vf_driver"], pf["kernel_module"]) == (driver, vf_driver, module)
    assert pf["services_supported"] is services
    assert (pf["cfg_services"] is not None) is services
    assert len(pf["vfs"]) == 4
    # the kernel autoprobes VFs to the generation's VF driver; Gen4 has none
    assert set(vf["driver"] for vf in pf["vfs"]) == {vf_driver}
    assert all(vf["device_id"] == vf_id for vf in pf["vfs"])
    assert info["assignable_vfs"] == []
    assert ("vfio-pci.disable_denylist=1" in info["kernel_args"]) is denylist
    assert info["kernel_modules"] == [module, "vfio-pci"]


def test_gen2_vfs_sit_at_offset_8(tmp_path):
    info = gather(tmp_path, "gen_c62x")
    assert [vf["pci_address"] for vf in info["vfs"]] == ["0000:3d:01.0", "0000:3d:01.1", "0000:3d:01.2", "0000:3d:01.3"]


def test_pf_without_driver(tmp_path):
    info = gather(tmp_path, "unbound_4xxx")
    (pf,) = info["pfs"]
    assert pf["driver"] is None and pf["expected_driver"] == "4xxx"
    assert pf["firmware"] == ["qat_4xxx.bin", "qat_4xxx_mmp.bin"]


def test_unreadable_file_is_a_warning(tmp_path):
    tree = qat_trees.build(tmp_path, "two_socket_4xxx")
    os.unlink(os.path.join(tree.device_dir("0000:6b:00.0"), "sriov_numvfs"))
    os.mkdir(os.path.join(tree.device_dir("0000:6b:00.0"), "sriov_numvfs"))
    info, warnings = gather_qat(str(tmp_path))
    assert info["pfs"][0]["sriov_numvfs"] is None
    assert len(warnings) == 1 and "sriov_numvfs" in warnings[0]


def test_root_must_be_a_directory(tmp_path):
    with pytest.raises(HostError, match="not a directory"):
        gather_qat(str(tmp_path / "missing"))
