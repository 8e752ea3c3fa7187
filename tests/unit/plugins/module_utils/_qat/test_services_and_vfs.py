# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""qat_services and sriov_vfs on a Gen4 PF that has VFs, against a fake
kernel that follows the QAT driver where it matters to them:

* taking the PF ``down`` removes every VF (state_store() -> adf_dev_down()
  -> adf_dev_shutdown() -> adf_disable_sriov() -> pci_disable_sriov());
* ``qat/state`` and ``qat/cfg_services`` exist only while the PF driver is
  bound (adf_sysfs_init() adds them with devm_device_add_group());
* the in-tree drivers enable every VF on any non-zero count
  (adf_enable_sriov() -> pci_enable_sriov(pdev, totalvfs)).

What the modules do about it: qat_services says how many VFs a services
change takes away (vfs_removed, predicted in check mode too), and sriov_vfs
names a driver that enabled every VF on a count it was not given.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os

import pytest

import qat_trees
from pci_kernel import FakeKernel

from ansible_collections.realtime.virt.plugins.module_utils._qat.gather import gather_qat
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import ApplyError, HostError
from ansible_collections.realtime.virt.plugins.module_utils._qat.services import QatServices
from ansible_collections.realtime.virt.plugins.module_utils._sriov.manager import SriovVfs

PF = "0000:6b:00.0"
QAT = "/sys/bus/pci/devices/%s/qat/" % PF


@pytest.fixture
def host(tmp_path):
    """One 4xxx PF on qat_4xxx, services sym;asym, 16 VFs on vfio-pci."""
    tree = qat_trees.PciTree(str(tmp_path / "root"))
    qat_trees.add_qat_pf(tree, PF, "4xxx", services="sym;asym")
    kernel = FakeKernel(tree)
    state_file = str(tmp_path / "sriov-vfs.conf")
    SriovVfs(PF, 16, state_file=state_file, root=tree.root, writer=kernel).run()
    assert [tree.driver_of(vf) for vf in tree.vfs(PF)] == ["vfio-pci"] * 16
    del kernel.log[:]
    return tree, kernel, state_file


def qat_file(tree, name):
    with open(os.path.join(tree.qat_dir(PF), name)) as handle:
        return handle.read().strip()


def services(host, wanted, check_mode=False):
    tree, kernel, state_file = host
    return QatServices(PF, wanted, root=tree.root, check_mode=check_mode, writer=kernel).run()


def vfs(host, count, check_mode=False):
    tree, kernel, state_file = host
    return SriovVfs(PF, count, state_file=state_file, root=tree.root, check_mode=check_mode, writer=kernel).run()


# -- the fake follows the driver ----------------------------------------------------------------------
def test_down_removes_every_vf_and_up_does_not_bring_them_back(host):
    tree, kernel, state_file = host
    kernel.write(QAT + "state", "down")
    assert tree.vfs(PF) == [] and qat_file(tree, "state") == "down"
    assert not os.path.exists(tree.device_dir("0000:6b:00.1"))
    kernel.write(QAT + "state", "up")
    assert tree.vfs(PF) == []
    with open(os.path.join(tree.device_dir(PF), "sriov_numvfs")) as handle:
        assert handle.read().strip() == "0"


def test_qat_group_exists_only_while_the_pf_driver_is_bound(host):
    tree, kernel, state_file = host
    kernel.write(QAT + "state", "down")
    kernel.write(QAT + "cfg_services", "dc")
    kernel.write("/sys/bus/pci/drivers/4xxx/unbind", PF)
    assert not os.path.exists(tree.qat_dir(PF)) and tree.driver_of(PF) is None
    with pytest.raises(OSError) as info:
        kernel.write(QAT + "state", "up")
    assert info.value.errno == errno.ENOENT
    (pf,) = gather_qat(tree.root)[0]["pfs"]
    assert (pf["driver"], pf["state"], pf["cfg_services"]) == (None, None, None)
    with pytest.raises(HostError, match="no readable qat/state"):
        services(host, "dc")
    # a new probe starts from the device's default services, up
    kernel.write("/sys/bus/pci/drivers/4xxx/bind", PF)
    assert (qat_file(tree, "state"), qat_file(tree, "cfg_services")) == ("up", "sym;asym")


def test_unbinding_the_pf_driver_removes_its_vfs(host):
    tree, kernel, state_file = host
    kernel.write("/sys/devices/pci0000:6b/%s/driver/unbind" % PF, PF)
    assert tree.vfs(PF) == []


def test_loading_the_driver_binds_pfs_except_one_without_firmware(tmp_path):
    tree = qat_trees.build(str(tmp_path), "two_socket_4xxx_bare")
    kernel = FakeKernel(tree)
    kernel.firmware_missing.add("0000:e8:00.0")
    assert kernel.load_module("qat_4xxx", *qat_trees.MODULES["qat_4xxx"]) is True
    assert kernel.load_module("qat_4xxx", *qat_trees.MODULES["qat_4xxx"]) is False
    assert (tree.driver_of(PF), tree.driver_of("0000:e8:00.0")) == ("4xxx", None)
    assert os.path.isdir(tree.qat_dir(PF)) and not os.path.exists(tree.qat_dir("0000:e8:00.0"))
    with open(os.path.join(tree.root, "proc", "modules")) as handle:
        assert handle.read().startswith("qat_4xxx ")


def test_sriov_numvfs_brings_a_down_device_up(host):
    tree, kernel, state_file = host
    kernel.write(QAT + "state", "down")
    kernel.write("/sys/bus/pci/devices/%s/sriov_numvfs" % PF, "16")
    assert qat_file(tree, "state") == "up" and len(tree.vfs(PF)) == 16


# -- what the collection does with it ------------------------------------------------------------------
def test_services_then_vfs_leaves_the_vfs_in_place(host):
    """The qat role's order: services first, then sriov_vfs recreates and rebinds the VFs."""
    tree, kernel, state_file = host
    assert services(host, "dc")["changed"] is True
    assert tree.vfs(PF) == []             # the services change took every VF away
    result = vfs(host, 16)
    assert result["changed"] is True and result["sriov_numvfs_before"] == 0
    assert [tree.driver_of(vf) for vf in tree.vfs(PF)] == ["vfio-pci"] * 16
    assert (qat_file(tree, "cfg_services"), qat_file(tree, "state")) == ("dc", "up")


def test_vfs_then_services_loses_the_vfs(host):
    """The other order ends with no VF at all, and neither module fails."""
    tree, kernel, state_file = host
    assert vfs(host, 16)["changed"] is False
    assert services(host, "dc")["changed"] is True
    assert tree.vfs(PF) == []


@pytest.mark.parametrize("check_mode", [False, True])
def test_services_change_reports_the_vfs_it_removes(host, check_mode):
    result = services(host, "dc", check_mode=check_mode)
    assert result["vfs_removed"] == 16
    assert any("16 VFs" in warning for warning in result["warnings"])


def test_check_mode_cannot_see_the_vfs_a_services_change_removes(host):
    """Why the role's --check under-predicts on a host that has VFs: each module alone is honest."""
    tree, kernel, state_file = host
    assert services(host, "dc", check_mode=True)["changed"] is True
    assert vfs(host, 16, check_mode=True)["changed"] is False    # the VFs are still there
    assert kernel.log == []
    services(host, "dc")
    assert vfs(host, 16)["changed"] is True                      # the real run recreates them


def test_in_tree_qat_driver_enabling_every_vf_is_named(host):
    tree, kernel, state_file = host
    vfs(host, 0)
    kernel.all_vfs.add(PF)
    with pytest.raises(ApplyError) as info:
        vfs(host, 4)
    message = str(info.value)
    assert len(tree.vfs(PF)) == 16
    assert "only part" not in message and "16" in message and "0 or 16" in message


def test_check_mode_told_of_the_removal_predicts_the_vfs_the_real_run_recreates(host):
    """The qat role hands vfs_removed from qat_services to sriov_vfs: --check then predicts the real run."""
    tree, kernel, state_file = host
    removed = services(host, "dc", check_mode=True)["vfs_removed"]
    predicted = SriovVfs(PF, 16, state_file=state_file, root=tree.root, check_mode=True, writer=kernel,
                         vfs_removed=removed > 0).run()
    assert kernel.log == []
    assert predicted["changed"] is True and predicted["sriov_numvfs_before"] == 0
    services(host, "dc")
    real = vfs(host, 16)
    assert real["changed"] is True and [vf["driver"] for vf in real["vfs"]] == [vf["driver"] for vf in predicted["vfs"]]
