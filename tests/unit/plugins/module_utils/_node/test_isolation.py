# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Interrupts, CPU masks, kernel threads and tuned's rules read from /proc + /sys trees."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

import rt_node_trees

from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._node import isolation, tuned

# One interrupt of each kind on a 4-CPU host (CPUs 2-3 isolated): an IO-APIC
# line, a NIC vector someone pinned to CPU 3, a managed NVMe queue on CPU 2.
IRQS = [
    {"irq": 4, "chip": "IO-APIC", "hwirq": "4-edge", "names": ["ttyS0"], "affinity": [0, 1], "effective": [0]},
    {"irq": 40, "chip": "PCI-MSIX-0000:3b:00.0", "names": ["eth1-rx-0"], "pci": "0000:3b:00.0", "affinity": [3],
     "effective": [3], "counts": {3: 4711}},
    {"irq": 41, "chip": "PCI-MSIX-0000:5e:00.0", "names": ["nvme0q3"], "pci": "0000:5e:00.0", "affinity": [2],
     "effective": [2], "managed": True},
]


def read(tmp_path, **overrides):
    spec = dict({"cores_per_socket": 4, "isolated": "2-3", "nohz_full": "2-3", "irqs": IRQS}, **overrides)
    root = rt_node_trees.build(str(tmp_path), rt_node_trees.shape("test_host", **spec))
    return HostReader(root)


def by_irq(reader):
    return dict((irq["irq"], irq) for irq in isolation.read_irqs(reader))


def test_irqs_read_with_devices_pci_and_counts(tmp_path):
    irqs = by_irq(read(tmp_path))
    assert sorted(irqs) == [4, 40, 41]
    assert irqs[40]["devices"] == ["eth1-rx-0"]
    assert irqs[40]["pci"] == "0000:3b:00.0"
    assert irqs[40]["affinity"] == [3] and irqs[40]["effective"] == [3]
    assert irqs[40]["counts"] == {0: 0, 1: 0, 2: 0, 3: 4711}
    assert irqs[4]["pci"] is None


# rule of the docstring -> (managed of IRQ 4, 40, 41, and what decided 41)
@pytest.mark.parametrize("overrides, managed, decided", [
    ({}, (False, False, True), "read-only smp_affinity"),
    ({"irq_read_only_marks": False}, (False, None, None), None),
    ({"irq_read_only_marks": False, "irq_debugfs": True}, (False, False, True), "debugfs"),
])
def test_managed_irqs_told_by_debugfs_then_file_mode_then_msi(tmp_path, overrides, managed, decided):
    irqs = by_irq(read(tmp_path, **overrides))
    assert (irqs[4]["kernel_managed"], irqs[40]["kernel_managed"], irqs[41]["kernel_managed"]) == managed
    assert irqs[41]["managed_by"] == decided
    assert irqs[4]["managed_by"] == ("debugfs" if overrides.get("irq_debugfs") else "not an MSI vector")


def test_verdicts_name_the_offending_irq_only(tmp_path):
    verdicts = isolation.irq_verdicts(isolation.read_irqs(read(tmp_path)), [2, 3])
    assert [irq["irq"] for irq in verdicts["offending"]] == [40]
    assert verdicts["offending"][0]["on"] == [3]
    assert [irq["irq"] for irq in verdicts["managed"]] == [41]
    assert verdicts["possible"] == []
    assert isolation.describe_irq(verdicts["offending"][0]) == "IRQ 40 (eth1-rx-0, PCI 0000:3b:00.0)"


def test_verdicts_on_an_old_kernel_without_debugfs(tmp_path):
    irqs = isolation.read_irqs(read(tmp_path, irq_read_only_marks=False))
    verdicts = isolation.irq_verdicts(irqs, [2, 3])
    # both MSI vectors have masks wholly on isolated CPUs: a managed queue's would too
    assert [irq["irq"] for irq in verdicts["possible"]] == [40, 41]
    assert verdicts["offending"] == []
    # an unknown one whose mask also has a housekeeping CPU is not a managed queue kept there
    wide = [dict(irq, affinity=[1, 3]) if irq["irq"] == 40 else irq for irq in irqs]
    assert [irq["irq"] for irq in isolation.irq_verdicts(wide, [2, 3])["offending"]] == [40]


def test_effective_affinity_decides_and_empty_means_not_started(tmp_path):
    irqs = isolation.read_irqs(read(tmp_path))
    moved = [dict(irq, effective=[0]) if irq["irq"] == 40 else irq for irq in irqs]
    assert isolation.irq_verdicts(moved, [2, 3])["offending"] == []
    idle = [dict(irq, effective=[]) if irq["irq"] == 40 else irq for irq in irqs]
    assert isolation.irq_verdicts(idle, [2, 3])["offending"] == []
    # a kernel without effective_affinity_list: smp_affinity_list tells
    older = [dict(irq, effective=None) if irq["irq"] == 4 else irq for irq in irqs]
    assert [irq["irq"] for irq in isolation.irq_verdicts(older, [1])["offending"]] == [4]


def test_irq_names_fall_back_to_proc_interrupts(tmp_path):
    reader = read(tmp_path)
    os.rmdir(reader.path("/proc/irq/4/ttyS0"))
    assert by_irq(reader)[4]["devices"] == ["ttyS0"]


def test_parse_interrupts_skips_offline_columns_and_named_rows():
    text = ("           CPU0       CPU2\n"
            "  4:         10          0   IO-APIC   4-edge      ttyS0\n"
            " 16:          1          2   IO-APIC  16-fasteoi   ehci_hcd:usb1, i801_smbus\n"
            "NMI:          0          0   Non-maskable interrupts\n")
    parsed = isolation.parse_interrupts(text)
    assert parsed == {4: {"counts": {0: 10, 2: 0}, "names": "ttyS0"},
                      16: {"counts": {0: 1, 2: 2}, "names": "ehci_hcd:usb1, i801_smbus"}}
    assert isolation.parse_interrupts("") == {}


def test_masks_workqueue_housekeeping_and_kthread_cpus(tmp_path):
    reader = read(tmp_path, workqueue_cpumask="0-1")
    reader_tree = rt_node_trees.Tree(reader.root)
    reader_tree.write("/sys/kernel/housekeeping/kthread", "0-1\n")
    reader_tree.write("/sys/bus/workqueue/devices/writeback/cpumask", "f\n")
    masks = isolation.read_masks(reader, {"kthread_cpus": "0,3"}, [0, 1, 2, 3])
    assert masks == [
        {"name": "workqueue cpumask", "path": "/sys/devices/virtual/workqueue/cpumask", "cpus": [0, 1]},
        {"name": "writeback workqueue cpumask", "path": "/sys/bus/workqueue/devices/writeback/cpumask",
         "cpus": [0, 1, 2, 3]},
        {"name": "housekeeping kthread", "path": "/sys/kernel/housekeeping/kthread", "cpus": [0, 1]},
        {"name": "kthread_cpus", "path": "/proc/cmdline", "cpus": [0, 3]},
    ]
    assert isolation.read_masks(read(tmp_path / "none", workqueue_cpumask=""), {}, [0]) == []


def test_threads_are_kernel_threads_only(tmp_path):
    threads = isolation.read_threads(read(tmp_path, realtime=True))
    names = [thread["comm"] for thread in threads["per_cpu"]]
    assert names.count("ksoftirqd/0") == 1  # the user process called ksoftirqd/0 is left out
    assert set(thread["family"] for thread in threads["per_cpu"]) == {"ksoftirqd", "ktimers", "rcuc"}
    ksoftirqd3 = [thread for thread in threads["per_cpu"] if thread["comm"] == "ksoftirqd/3"][0]
    assert (ksoftirqd3["cpu"], ksoftirqd3["cpus"], ksoftirqd3["policy"], ksoftirqd3["priority"]) == (3, [3], "SCHED_OTHER", 0)
    assert sorted(thread["comm"] for thread in threads["housekeeping"]) == ["kcompactd0", "khugepaged", "kswapd0",
                                                                            "kworker/u8:0"]
    assert all(thread["cpus"] == [0, 1] for thread in threads["housekeeping"])


# -- tuned ---------------------------------------------------------------------------------------

def tuned_tree(tmp_path, active, profiles=None, etc=None):
    spec = rt_node_trees.shape("test_host", tuned_active=active, tuned_profiles=profiles)
    root = rt_node_trees.build(str(tmp_path), spec)
    tree = rt_node_trees.Tree(root)
    for name, text in (etc or {}).items():
        tree.write("/etc/tuned/%s/tuned.conf" % name, text)
    return HostReader(root)


def test_tuned_profile_follows_include_through_parents(tmp_path):
    found = tuned.read_tuned(tuned_tree(tmp_path, "realtime-virtual-host"))
    assert found["active"] == ["realtime-virtual-host"]
    assert found["files"] == ["/usr/lib/tuned/realtime-virtual-host/tuned.conf", "/usr/lib/tuned/realtime/tuned.conf",
                              "/usr/lib/tuned/network-latency/tuned.conf"]
    assert [(rule["group"], rule["policy"], rule["priority"]) for rule in found["rules"]] == [
        ("kthreads", None, 1), ("ksoftirqd", "SCHED_FIFO", 2), ("ktimers", "SCHED_FIFO", 2),
        ("rcuc", "SCHED_FIFO", 4), ("rcub", "SCHED_FIFO", 4)]
    assert tuned.rule_for(found["rules"], "ksoftirqd/7")["group"] == "ksoftirqd"
    assert tuned.rule_for(found["rules"], "kswapd0")["group"] == "kthreads"  # sched '*': no policy
    assert found["errors"] == []


def test_tuned_etc_profile_overrides_and_includes_its_namesake(tmp_path):
    etc = {"realtime-virtual-host": "[main]\ninclude=realtime-virtual-host\n[scheduler]\n"
                                    "group.ksoftirqd=0:f:11:*:^\\[ksoftirqd\ngroup.rcub=\n"}
    found = tuned.read_tuned(tuned_tree(tmp_path, "realtime-virtual-host", etc=etc))
    assert found["files"][:2] == ["/etc/tuned/realtime-virtual-host/tuned.conf",
                                  "/usr/lib/tuned/realtime-virtual-host/tuned.conf"]
    rules = dict((rule["group"], rule) for rule in found["rules"])
    assert rules["ksoftirqd"]["priority"] == 11
    assert "rcub" not in rules  # group.rcub= (empty) removes the inherited rule


def test_tuned_replace_drop_and_rule_prio(tmp_path):
    profiles = {
        "base": "[scheduler]\ngroup.a=0:f:5:*:^\\[ksoftirqd\ngroup.b=0:f:6:*:^\\[rcuc\n",
        "child": "[main]\ninclude=base\n[scheduler]\ndrop=group.b\ngroup.c=1:r:7:*:^\\[ksoftirqd\n",
        "fresh": "[main]\ninclude=base\n[scheduler]\nreplace=true\ngroup.d=0:o:0:*:^\\[kswapd\n",
    }
    child = tuned.read_tuned(tuned_tree(tmp_path / "child", "child", profiles=profiles))
    assert [rule["group"] for rule in child["rules"]] == ["a", "c"]
    assert tuned.rule_for(child["rules"], "ksoftirqd/2")["group"] == "c"  # higher rule_prio applies last
    fresh = tuned.read_tuned(tuned_tree(tmp_path / "fresh", "fresh", profiles=profiles))
    assert [rule["group"] for rule in fresh["rules"]] == ["d"]


def test_tuned_without_profile_or_with_a_missing_one(tmp_path):
    none = tuned.read_tuned(tuned_tree(tmp_path / "none", None))
    assert (none["installed"], none["active"], none["rules"]) == (True, [], [])
    missing = tuned.read_tuned(tuned_tree(tmp_path / "missing", "nosuch -optional"))
    assert missing["errors"] == ["tuned profile 'nosuch' is not in /etc/tuned/profiles, /etc/tuned, "
                                 "/usr/lib/tuned/profiles, /usr/lib/tuned"]
    broken = tuned.read_tuned(tuned_tree(tmp_path / "broken", "bad", profiles={"bad": "[scheduler\nx"}))
    assert broken["errors"] and "cannot be parsed" in broken["errors"][0]


def test_tuned_bad_rules_are_left_out():
    rules = tuned.scheduler_rules({"group.a": "x:f:1:*:re", "group.b": "0:z:1:*:re", "group.c": "0:f:1:*:(",
                                   "group.d": "0:f:1", "group.e": "0:f:3:*:ok", "isolated_cores": "1"})
    assert [rule["group"] for rule in rules] == ["e"]
