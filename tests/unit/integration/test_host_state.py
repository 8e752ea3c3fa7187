# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""The host snapshot the reliability tests trust: differences are never hidden."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from integration_scripts import load

host_state = load("host_state")

SNAP = {"sysctl": {"kernel/sched_rt_runtime_us": "950000"}, "hugepage_pools": {}, "hugetlbfs_mounts": [],
        "files": {}, "domains": {"vm1": {"state": "running", "inactive_xml": "<domain/>"}}}


def test_identical_snapshots_compare_equal():
    assert host_state.compare(SNAP, dict(SNAP)) == []


@pytest.mark.parametrize("which", ["first", "second", "both"])
def test_libvirt_down_is_a_difference_even_in_both_snapshots(which):
    down = dict(SNAP, domains={"error": "virsh list failed"})
    before = down if which in ("first", "both") else SNAP
    after = down if which in ("second", "both") else SNAP
    lines = host_state.compare(before, after)
    assert any("libvirt did not answer" in line for line in lines), lines


def test_a_changed_sysctl_and_mount_are_differences():
    after = dict(SNAP, sysctl={"kernel/sched_rt_runtime_us": "-1"}, hugetlbfs_mounts=["/dev/hugepages1G rw,pagesize=1G"])
    lines = host_state.compare(SNAP, after)
    assert "sysctl kernel/sched_rt_runtime_us: \"950000\" -> \"-1\"" in lines
    assert any(line.startswith("hugetlbfs_mounts:") for line in lines)


def test_restore_unmounts_added_and_remounts_removed_mounts(monkeypatch):
    calls = []
    mounted = [("/dev/hugepages", "rw,pagesize=2M"), ("/dev/hugepages1G", "rw,pagesize=1024M")]
    monkeypatch.setattr(host_state, "_hugetlbfs_mounts", lambda: mounted)
    monkeypatch.setattr(host_state.subprocess, "run", lambda argv, check=False: calls.append(argv))
    monkeypatch.setattr(host_state.os, "makedirs", lambda path, exist_ok=False: None)
    host_state._restore_mounts([["/dev/hugepages", "rw,pagesize=2M"], ["/mnt/huge", "rw,pagesize=2M"]])
    assert calls == [["umount", "/dev/hugepages1G"],
                     ["mount", "-t", "hugetlbfs", "-o", "rw,pagesize=2M", "hugetlbfs", "/mnt/huge"]]


def test_reset_drops_rt_hosts_ban_and_keeps_the_rest_of_irqbalances_file(tmp_path, monkeypatch):
    monkeypatch.setattr(host_state, "ROLE_OWNED", ())
    monkeypatch.setattr(host_state, "_write", _write_unless_proc(host_state._write))
    settings = tmp_path / "irqbalance"
    settings.write_text("#IRQBALANCE_ONESHOT=\n#IRQBALANCE_BANNED_CPULIST=\nIRQBALANCE_BANNED_CPULIST=1\n")
    host_state.reset(irqbalance=str(settings))
    assert settings.read_text() == "#IRQBALANCE_ONESHOT=\n#IRQBALANCE_BANNED_CPULIST=\n"


def test_reset_without_irqbalances_file_creates_none(tmp_path, monkeypatch):
    monkeypatch.setattr(host_state, "ROLE_OWNED", ())
    monkeypatch.setattr(host_state, "_write", _write_unless_proc(host_state._write))
    host_state.reset(irqbalance=str(tmp_path / "irqbalance"))
    assert not (tmp_path / "irqbalance").exists()


def _write_unless_proc(write):
    """host_state._write for files of the test; the kernel's (/proc, /sys) are left alone."""
    return lambda path, value: None if path.startswith(("/proc/", "/sys/")) else write(path, value)
