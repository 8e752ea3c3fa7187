# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""The sriov role's boot-time script (the qat role installs it too), rendered
from its template and run with sh against a kernel-shaped PCI tree
(REALTIME_VIRT_ROOT prefixes /sys).

The tree is plain files, so the kernel's side effects (VFs appearing when
sriov_numvfs is written, binding on drivers_probe) do not happen, and a file
keeps only its last write. So every write is also recorded, in order: the
script writes through ``printf '%s' VALUE > FILE``, and a spy printf put in
front of it logs the file (the shell's redirected fd 1) and the value
before writing. The qat_fake_kernel integration target runs the same
script against a fake that reacts like the kernel.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess

import jinja2
import pytest

import qat_trees

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

TEMPLATE = os.path.join(TOP, "roles", "sriov", "templates", "realtime-virt-sriov-vfs.sh.j2")
PF = "0000:6b:00.0"
SPY = r"""
printf() {  # test spy: log '<file> <value>' of every write, then write
    if [ "$1" = '%s' ] && [ "$#" -eq 2 ]; then
        echo "$(readlink /proc/$$/fd/1) $2" >> "$REALTIME_VIRT_WRITES"
    fi
    command printf "$@"
}
"""


def read(path):
    with open(path) as handle:
        return handle.read().strip()


@pytest.fixture
def boot(tmp_path):
    tree = qat_trees.PciTree(str(tmp_path / "root"))
    qat_trees.add_qat_pf(tree, PF, "4xxx", services="sym;asym")
    services_file = tmp_path / "qat-services.conf"
    state_file = tmp_path / "sriov-vfs.conf"
    with open(TEMPLATE) as handle:
        text = jinja2.Template(handle.read(), keep_trailing_newline=True).render(
            ansible_managed="test", sriov_qat_services_file=str(services_file), sriov_state_file=str(state_file))
    shebang, body = text.split("\n", 1)
    assert shebang.startswith("#!")
    script = tmp_path / "realtime-virt-sriov-vfs"
    script.write_text(shebang + "\n" + SPY + body)
    log = tmp_path / "writes.log"

    def run(services=None, state=None):
        for path, lines in ((services_file, services), (state_file, state)):
            if lines is not None:
                path.write_text("# comment\n\n" + "".join(line + "\n" for line in lines))
        if log.exists():
            log.unlink()
        env = dict(os.environ, REALTIME_VIRT_ROOT=tree.root, REALTIME_VIRT_WRITES=str(log))
        out = subprocess.run(["sh", str(script)], env=env, capture_output=True, text=True, timeout=60, check=False)
        out.writes = []
        if log.exists():
            for line in log.read_text().splitlines():
                path, value = line.split(" ", 1)
                out.writes.append((os.path.relpath(path, tree.sys), value))
        return out

    return tree, run


def test_services_are_written_with_the_device_down_then_up(boot):
    tree, run = boot
    out = run(services=[PF + " dc"])
    assert out.returncode == 0, out.stdout + out.stderr
    qat = os.path.join(tree.device_dir(PF), "qat")
    assert (read(os.path.join(qat, "cfg_services")), read(os.path.join(qat, "state"))) == ("dc", "up")
    dev = os.path.relpath(qat, tree.sys)
    assert out.writes == [(dev + "/state", "down"), (dev + "/cfg_services", "dc"), (dev + "/state", "up")]


def test_services_already_set_are_left_alone(boot):
    tree, run = boot
    qat = os.path.join(tree.device_dir(PF), "qat")
    before = os.stat(os.path.join(qat, "state")).st_mtime_ns
    out = run(services=[PF + " sym;asym"])
    assert out.returncode == 0
    assert os.stat(os.path.join(qat, "state")).st_mtime_ns == before
    assert out.writes == []


def test_existing_vfs_are_bound_by_address(boot):
    tree, run = boot
    tree.set_numvfs(PF, 3, ["vfio-pci", None, None])
    vfs = tree.vfs(PF)
    out = run(state=[PF + " 3 vfio-pci"])
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip() == "realtime-virt-sriov-vfs: %s: 3 VFs on vfio-pci" % PF
    for vf in vfs:
        assert read(os.path.join(tree.device_dir(vf), "driver_override")) == "vfio-pci"
    # the count was right, so sriov_numvfs was not written; the last unbound VF was probed
    assert read(os.path.join(tree.device_dir(PF), "sriov_numvfs")) == "3"
    assert read(os.path.join(tree.sys, "bus/pci/drivers_probe")) == vfs[-1]


def test_a_different_count_is_written(boot):
    tree, run = boot
    tree.set_numvfs(PF, 2)
    out = run(state=[PF + " 8 vfio-pci"])
    assert out.returncode == 0
    assert read(os.path.join(tree.device_dir(PF), "sriov_numvfs")) == "8"
    # the kernel takes a new non-zero count only after 0: both writes, in this order
    numvfs = os.path.relpath(os.path.join(tree.device_dir(PF), "sriov_numvfs"), tree.sys)
    assert [value for path, value in out.writes if path == numvfs] == ["0", "8"]


def test_missing_state_files_are_not_an_error(boot):
    tree, run = boot
    out = run()
    assert out.returncode == 0 and out.stdout == ""


def test_a_refused_services_write_still_brings_the_device_up(boot):
    tree, run = boot
    qat = os.path.join(tree.device_dir(PF), "qat")
    # A directory in place of cfg_services makes the write fail, as a
    # driver refusing the value would.
    os.remove(os.path.join(qat, "cfg_services"))
    os.mkdir(os.path.join(qat, "cfg_services"))
    out = run(services=[PF + " dc"])
    assert out.returncode == 1
    assert "writing 'dc'" in out.stdout
    assert read(os.path.join(qat, "state")) == "up"


def test_new_vfs_are_created_with_autoprobe_off_until_their_override_is_set(boot):
    # As sriov_vfs does: a VF's own driver never takes a new VF, so it cannot
    # give it up later (unbinding the driver the script bound it to).
    tree, run = boot
    tree.set_numvfs(PF, 2, [None, None])
    vfs = tree.vfs(PF)
    out = run(state=[PF + " 4 vfio-pci"])
    assert out.returncode == 0, out.stdout + out.stderr
    pf = os.path.relpath(tree.device_dir(PF), tree.sys)
    # the plain tree keeps its 2 VFs whatever count is written
    assert out.writes == [(pf + "/sriov_numvfs", "0"), (pf + "/sriov_drivers_autoprobe", "0"),
                          (pf + "/sriov_numvfs", "4")] + \
        [(os.path.relpath(tree.device_dir(vf), tree.sys) + "/driver_override", "vfio-pci") for vf in vfs] + \
        [(pf + "/sriov_drivers_autoprobe", "1")] + \
        [("bus/pci/drivers_probe", vf) for vf in vfs]
    assert read(os.path.join(tree.device_dir(PF), "sriov_drivers_autoprobe")) == "1"


def test_autoprobe_already_off_or_missing_is_left_alone(boot):
    tree, run = boot
    autoprobe = os.path.join(tree.device_dir(PF), "sriov_drivers_autoprobe")
    with open(autoprobe, "w") as handle:
        handle.write("0\n")
    out = run(state=[PF + " 2 vfio-pci"])
    assert out.returncode == 0, out.stdout + out.stderr
    assert not [path for path, value in out.writes if path.endswith("sriov_drivers_autoprobe")]
    os.remove(autoprobe)    # a kernel before 4.12
    out = run(state=[PF + " 3 vfio-pci"])
    assert out.returncode == 0, out.stdout + out.stderr
    assert not [path for path, value in out.writes if path.endswith("sriov_drivers_autoprobe")]
