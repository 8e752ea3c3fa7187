# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""sriov_vfs' plan and apply against a fake sysfs that behaves like the kernel."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os

import pytest


import qat_trees
from pci_kernel import FakeKernel

from ansible_collections.realtime.virt.plugins.module_utils._sriov import statefile
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import ApplyError, HostError, OptionError
from ansible_collections.realtime.virt.plugins.module_utils._sriov.manager import SriovVfs

PF = "0000:3d:00.0"


@pytest.fixture
def host(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    tree = qat_trees.PciTree(str(root))
    qat_trees.add_qat_pf(tree, PF, "4xxx", total=16)
    kernel = FakeKernel(tree)
    state = str(tmp_path / "etc" / "sriov-vfs.conf")
    return tree, kernel, state


def run(host, count, driver="vfio-pci", check_mode=False, persist=True, pf=PF):
    tree, kernel, state = host
    manager = SriovVfs(pf, count, driver=driver, persist=persist, state_file=state, root=tree.root,
                       check_mode=check_mode, writer=kernel)
    return manager.run()


def numvfs_writes(kernel):
    return [value for path, value in kernel.log if path.endswith("sriov_numvfs")]


def test_create_bind_persist_then_idempotent(host):
    tree, kernel, state = host
    result = run(host, 4)
    assert result["changed"] is True
    assert numvfs_writes(kernel) == ["4"]
    assert [tree.driver_of(vf) for vf in tree.vfs(PF)] == ["vfio-pci"] * 4
    assert result["vf_addresses"] == ["0000:3d:00.1", "0000:3d:00.2", "0000:3d:00.3", "0000:3d:00.4"]
    assert all(vf["driver_override"] == "vfio-pci" for vf in result["vfs"])
    assert statefile.parse(open(state).read()) == {PF: (4, "vfio-pci")}
    assert result["state_file_changed"] is True
    del kernel.log[:]
    again = run(host, 4)
    assert again["changed"] is False and again["actions"] == [] and kernel.log == []


def test_check_mode_predicts_and_writes_nothing(host):
    tree, kernel, state = host
    result = run(host, 4, check_mode=True)
    assert result["changed"] is True
    assert kernel.log == [] and tree.vfs(PF) == [] and not os.path.exists(state)
    assert [vf["pci_address"] for vf in result["vfs"]] == [None] * 4
    assert "sriov_numvfs: 4" in result["diff"]["after"] and "sriov_numvfs: 0" in result["diff"]["before"]
    real = run(host, 4)
    assert real["changed"] is True
    assert run(host, 4, check_mode=True)["changed"] is False


def test_check_mode_predicts_the_rebind_of_a_vf_that_lost_its_driver(host):
    tree, kernel, state = host
    run(host, 4)
    lost = tree.vfs(PF)[2]
    kernel.write("/sys/bus/pci/devices/%s/driver/unbind" % lost, lost)   # released behind our back
    assert tree.driver_of(lost) is None
    del kernel.log[:]
    check = run(host, 4, check_mode=True)
    assert kernel.log == [] and tree.driver_of(lost) is None
    assert check["changed"] is True and check["actions"] == ["probe %s: write %r to /sys/bus/pci/drivers_probe" % (lost, lost)]
    real = run(host, 4)
    assert tree.driver_of(lost) == "vfio-pci"
    assert real["changed"] is True and real["actions"] == check["actions"]
    assert kernel.log == [("/sys/bus/pci/drivers_probe", lost)]


def test_check_mode_to_zero_names_the_vfs_a_real_run_removes(host):
    tree, kernel, state = host
    run(host, 2)
    del kernel.log[:]
    result = run(host, 0, check_mode=True)
    assert result["vf_addresses_before"] == ["0000:3d:00.1", "0000:3d:00.2"]
    assert result["vf_addresses"] == [] and result["changed"] is True
    assert kernel.log == [] and len(tree.vfs(PF)) == 2
    assert statefile.parse(open(state).read()) == {PF: (2, "vfio-pci")}
    real = run(host, 0)
    assert real["vf_addresses_before"] == ["0000:3d:00.1", "0000:3d:00.2"] and tree.vfs(PF) == []
    assert numvfs_writes(kernel) == ["0"] and statefile.parse(open(state).read()) == {}


def test_different_count_goes_through_zero(host):
    tree, kernel, state = host
    run(host, 4)
    del kernel.log[:]
    result = run(host, 2)
    assert numvfs_writes(kernel) == ["0", "2"]
    assert len(tree.vfs(PF)) == 2 and result["sriov_numvfs_before"] == 4
    assert statefile.parse(open(state).read()) == {PF: (2, "vfio-pci")}


def test_max_and_zero(host):
    tree, kernel, state = host
    assert run(host, "max")["count"] == 16 and len(tree.vfs(PF)) == 16
    result = run(host, 0)
    assert tree.vfs(PF) == [] and result["vfs"] == []
    assert statefile.parse(open(state).read()) == {}


def test_rebinds_vfs_autoprobed_to_another_driver(tmp_path):
    tree = qat_trees.build(str(tmp_path), "gen_c62x")   # 4 VFs on c6xxvf
    kernel = FakeKernel(tree)
    result = SriovVfs("0000:3d:00.0", 4, state_file=str(tmp_path / "s.conf"), root=tree.root, writer=kernel).run()
    assert [tree.driver_of(vf) for vf in tree.vfs("0000:3d:00.0")] == ["vfio-pci"] * 4
    unbinds = [entry[0] for entry in kernel.log if entry[0].endswith("driver/unbind")]
    assert len(unbinds) == 4 and numvfs_writes(kernel) == []
    assert "unbind 0000:3d:01.0 from c6xxvf" in " ".join(result["actions"])


@pytest.mark.parametrize("release_on", ["driver_override", "driver/unbind"])
def test_vf_released_by_its_own_driver_meanwhile(tmp_path, release_on):
    # An NVMe VF without resources: its driver probes it asynchronously, then
    # lets it go - before the unbind is written, or while it is.
    tree = qat_trees.build(str(tmp_path), "gen_c62x")   # 4 VFs on c6xxvf
    kernel = FakeKernel(tree)
    released = []

    def release(path, value):
        if path.endswith("/0000:3d:01.1/" + release_on) and not released:
            tree.unbind("0000:3d:01.1")
            released.append(path)
            if release_on == "driver/unbind":
                raise OSError(errno.ENOENT, "No such file or directory", path)

    kernel.before_write = release
    result = SriovVfs("0000:3d:00.0", 4, state_file=str(tmp_path / "s.conf"), root=tree.root, writer=kernel).run()
    assert released
    assert [tree.driver_of(vf) for vf in tree.vfs("0000:3d:00.0")] == ["vfio-pci"] * 4
    if release_on == "driver/unbind":
        assert "0000:3d:01.1 had already left c6xxvf" in result["actions"]
    else:
        assert "unbind 0000:3d:01.1" not in " ".join(result["actions"])


def test_sets_override_on_vfs_already_on_vfio(tmp_path):
    tree = qat_trees.build(str(tmp_path), "two_socket_4xxx")
    kernel = FakeKernel(tree)
    SriovVfs("0000:6b:00.0", 16, state_file=str(tmp_path / "s.conf"), root=tree.root, writer=kernel).run()
    probes = [v for p, v in kernel.log if p == "/sys/bus/pci/drivers_probe"]
    assert len(probes) == 6          # only the 6 unbound VFs needed a probe
    assert len([entry[0] for entry in kernel.log if entry[0].endswith("driver_override")]) == 16


def test_ebusy_when_vfs_in_use(host):
    tree, kernel, state = host
    run(host, 4)
    kernel.busy.add(PF)
    before = open(state).read()
    with pytest.raises(ApplyError, match="still in use"):
        run(host, 2)
    assert len(tree.vfs(PF)) == 4 and open(state).read() == before


def test_partial_creation_reports_progress(host):
    tree, kernel, state = host
    kernel.partial[PF] = 3
    with pytest.raises(ApplyError) as info:
        run(host, 4)
    done = str(info.value).split("Done before the failure: ")[1]
    assert done.startswith("turn VF autoprobe of %s off: write '0'" % PF) and ";" not in done
    # turned back on all the same
    assert open(os.path.join(tree.device_dir(PF), "sriov_drivers_autoprobe")).read().strip() == "1"
    assert not os.path.exists(state)


def test_kernel_silently_creating_fewer_vfs(host):
    tree, kernel, state = host
    kernel.partial[PF] = 3
    kernel.partial_silent = True
    with pytest.raises(ApplyError, match="shows 3 VFs"):
        run(host, 4)


def test_bind_write_failure_names_the_step_and_keeps_state_file(host):
    tree, kernel, state = host
    run(host, 2)
    before = open(state).read()
    kernel.fail[("drivers_probe", "0000:3d:00.2")] = errno.EINVAL
    tree.unbind("0000:3d:00.1")
    tree.unbind("0000:3d:00.2")
    with pytest.raises(ApplyError) as info:
        run(host, 2)
    text = str(info.value)
    assert "binding VF 0000:3d:00.2 to vfio-pci failed at 'probe 0000:3d:00.2" in text
    assert "probe 0000:3d:00.1" in text.split("Done before the failure:")[1]
    assert open(state).read() == before


def test_driver_refuses_vf(host):
    tree, kernel, state = host
    kernel.refuse.add("vfio-pci")
    with pytest.raises(ApplyError, match="disable_denylist"):
        run(host, 1)


def test_vf_vanishes_between_discovery_and_bind(host):
    tree, kernel, state = host

    def vanish(path, value):
        if path.endswith("/0000:3d:00.2/driver_override"):
            tree.remove_device("0000:3d:00.2")

    kernel.before_write = vanish
    with pytest.raises(ApplyError, match="VF 0000:3d:00.2 .*vanished"):
        run(host, 2)
    assert not os.path.exists(state)


def test_vf_gone_before_its_turn(host):
    tree, kernel, state = host

    def vanish(path, value):
        if path.endswith("/0000:3d:00.1/driver_override"):
            tree.remove_device("0000:3d:00.2")

    kernel.before_write = vanish
    with pytest.raises(ApplyError) as info:
        run(host, 2)
    assert "VF 0000:3d:00.2 (virtfn1 of 0000:3d:00.0) vanished before it could be bound" in str(info.value)
    # new VFs: every driver_override is written before the first probe
    assert "make 0000:3d:00.1 prefer vfio-pci" in str(info.value) and "probe 0000:3d:00.1" not in str(info.value)
    assert open(os.path.join(tree.device_dir(PF), "sriov_drivers_autoprobe")).read().strip() == "1"
    assert not os.path.exists(state)


@pytest.mark.parametrize("pf, count, driver, words", [
    ("3d:00.0", 2, "vfio-pci", "pf='3d:00.0': not a PCI address"),
    ("0000:3d:00.0", -1, "vfio-pci", "count=-1: negative"),
    ("0000:3d:00.0", "lots", "vfio-pci", "count='lots': not a number"),
    ("0000:3d:00.0", 17, "vfio-pci", "count=17: more than 0000:3d:00.0 supports .sriov_totalvfs=16."),
    ("0000:3d:00.0", 2, "no such/driver", "driver='no such/driver': not a driver name"),
    ("0000:3d:00.0", 2, "igb_uio", "driver='igb_uio': not loaded"),
])
def test_bad_input_fails_before_any_write(host, pf, count, driver, words):
    tree, kernel, state = host
    with pytest.raises(OptionError, match=words):
        run(host, count, driver=driver, pf=pf)
    assert kernel.log == [] and not os.path.exists(state)


def test_missing_pf_and_pf_without_sriov(host):
    tree, kernel, state = host
    with pytest.raises(HostError, match="does not exist"):
        run(host, 1, pf="0000:99:00.0")
    tree.add_device("0000:00:1f.6", "15bb", driver="e1000e")
    with pytest.raises(HostError, match="no SR-IOV capability"):
        run(host, 1, pf="0000:00:1f.6")


def test_pf_without_driver(tmp_path):
    tree = qat_trees.build(str(tmp_path), "unbound_4xxx")
    kernel = FakeKernel(tree)
    with pytest.raises(HostError, match="no driver bound"):
        SriovVfs("0000:6b:00.0", 2, state_file=str(tmp_path / "s"), root=tree.root, writer=kernel).run()
    warned = SriovVfs("0000:6b:00.0", 2, state_file=str(tmp_path / "s"), root=tree.root, writer=kernel,
                      check_mode=True).run()
    assert warned["changed"] is True and "no driver bound" in warned["warnings"][0]
    assert kernel.log == []


def test_other_pfs_lines_kept_and_file_replaced_atomically(host, monkeypatch):
    tree, kernel, state = host
    os.makedirs(os.path.dirname(state))
    with open(state, "w") as handle:
        handle.write("# mine\n0000:e8:00.0 8 vfio-pci\n")
    run(host, 2)
    assert statefile.parse(open(state).read()) == {"0000:e8:00.0": (8, "vfio-pci"), PF: (2, "vfio-pci")}
    before = open(state).read()

    def broken_rename(src, dst):
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(os, "rename", broken_rename)
    with pytest.raises(ApplyError, match="cannot write the state file .*previous file is unchanged"):
        run(host, 3)
    assert open(state).read() == before
    assert sorted(os.listdir(os.path.dirname(state))) == ["sriov-vfs.conf"]


def test_broken_state_file_is_reported(host):
    tree, kernel, state = host
    os.makedirs(os.path.dirname(state))
    with open(state, "w") as handle:
        handle.write("0000:e8:00.0 eight\n")
    with pytest.raises(HostError, match="line 1 is .*not .<pf address> <count> <driver>."):
        run(host, 2)
    assert kernel.log == []


def test_persist_false_leaves_no_file(host):
    tree, kernel, state = host
    result = run(host, 2, persist=False)
    assert result["state_file"] is None and not os.path.exists(state)


NVME_PF = "0000:00:03.0"


@pytest.fixture
def nvme_host(tmp_path):
    # QEMU's emulated NVMe controller under Linux 6.1 (the lab VM): nvme
    # autoprobes every new VF, cannot bring it up (no resources assigned),
    # and lets it go later from a work item that releases whatever driver
    # the VF is on by then.
    tree = qat_trees.PciTree(str(tmp_path / "root"))
    tree.add_driver("vfio-pci")
    tree.add_pf(NVME_PF, "0010", "0010", 4, driver="nvme", vf_autoprobe_driver="nvme")
    kernel = FakeKernel(tree)
    kernel.late_release.add("nvme")
    return tree, kernel, str(tmp_path / "sriov-vfs.conf")


def test_new_vfs_are_not_autoprobed_so_a_late_release_cannot_unbind_them(nvme_host):
    tree, kernel, state = nvme_host
    first = run(nvme_host, 2, pf=NVME_PF)
    assert first["changed"] is True
    kernel.run_work()   # the kernel's work items, after the module's last read
    assert [tree.driver_of(vf) for vf in tree.vfs(NVME_PF)] == ["vfio-pci"] * 2
    autoprobe = os.path.join(tree.device_dir(NVME_PF), "sriov_drivers_autoprobe")
    assert open(autoprobe).read().strip() == "1"
    # autoprobe off while the VFs appear, back on once each carries its
    # driver_override and before any probe; nothing was ever unbound
    writes = [(path.rsplit("/", 1)[-1], value) for path, value in kernel.log]
    assert writes == [("sriov_drivers_autoprobe", "0"), ("sriov_numvfs", "2"),
                      ("driver_override", "vfio-pci"), ("driver_override", "vfio-pci"),
                      ("sriov_drivers_autoprobe", "1"),
                      ("drivers_probe", "0000:00:03.1"), ("drivers_probe", "0000:00:03.2")]
    del kernel.log[:]
    second = run(nvme_host, 2, pf=NVME_PF)
    assert second["changed"] is False and second["actions"] == [] and kernel.log == []


@pytest.mark.parametrize("autoprobe", ["0", None])
def test_autoprobe_off_or_missing_is_left_alone(nvme_host, autoprobe):
    tree, kernel, state = nvme_host
    path = os.path.join(tree.device_dir(NVME_PF), "sriov_drivers_autoprobe")
    if autoprobe is None:
        os.remove(path)     # a kernel before 4.12: the VFs autoprobe, as before
    else:
        with open(path, "w") as handle:
            handle.write(autoprobe + "\n")
    run(nvme_host, 2, pf=NVME_PF)
    assert not [entry for entry in kernel.log if entry[0].endswith("sriov_drivers_autoprobe")]
    assert [tree.driver_of(vf) for vf in tree.vfs(NVME_PF)] == ["vfio-pci"] * 2


def test_autoprobe_not_restored_while_failing_is_reported(nvme_host):
    tree, kernel, state = nvme_host
    kernel.fail[("sriov_numvfs", "2")] = errno.EIO
    kernel.fail[("sriov_drivers_autoprobe", "1")] = errno.EIO
    manager = SriovVfs(NVME_PF, 2, state_file=state, root=tree.root, writer=kernel)
    # the first failure is the one reported; the second is in the actions
    with pytest.raises(ApplyError, match="writing 2 to .*sriov_numvfs failed"):
        manager.run()
    assert manager.actions[-1].startswith("writing 1 to /sys/bus/pci/devices/%s/sriov_drivers_autoprobe failed" % NVME_PF)
    assert manager.actions[-1].endswith("new VFs of %s are not probed until it is 1" % NVME_PF)
