# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Table tests of the pure parsers behind rt_node_facts."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError
from ansible_collections.realtime.virt.plugins.module_utils._node import parsing


@pytest.mark.parametrize(
    "text, kernel, init",
    [
        ("", [], []),
        ("ro quiet", ["ro", "quiet"], []),
        ("  ro   quiet  \n", ["ro", "quiet"], []),
        ('dyndbg="file foo.c +p" ro', ["dyndbg=file foo.c +p", "ro"], []),
        ('"quoted flag" x=1', ["quoted flag", "x=1"], []),
        ("ro -- single --init-arg", ["ro"], ["single", "--init-arg"]),
        ("a=1 --", ["a=1"], []),
        ("a=--b", ["a=--b"], []),
    ],
)
def test_split_cmdline(text, kernel, init):
    assert parsing.split_cmdline(text) == (kernel, init)


def test_split_cmdline_none():
    assert parsing.split_cmdline(None) == ([], [])


@pytest.mark.parametrize(
    "words, expected",
    [
        (["ro", "quiet"], {"ro": True, "quiet": True}),
        (["root=UUID=ab-cd"], {"root": "UUID=ab-cd"}),
        (["console=tty0", "console=ttyS0,115200"], {"console": ["tty0", "ttyS0,115200"]}),
        (["a=1", "a=2", "a=3"], {"a": ["1", "2", "3"]}),
        (["quiet", "quiet"], {"quiet": [True, True]}),
        (["empty="], {"empty": ""}),
        (["isolcpus=managed_irq,domain,2-15"], {"isolcpus": "managed_irq,domain,2-15"}),
    ],
)
def test_parse_cmdline_args(words, expected):
    assert parsing.parse_cmdline_args(words) == expected


@pytest.mark.parametrize(
    "args, name, expected",
    [
        ({"rcu_nocbs": "2-3"}, "rcu_nocbs", "2-3"),
        ({"rcu-nocbs": "2-3"}, "rcu_nocbs", "2-3"),
        ({"rcu_nocbs": ["1", "2-3"]}, "rcu_nocbs", "2-3"),
        ({"nosoftlockup": True}, "nosoftlockup", True),
        ({}, "rcu_nocbs", None),
    ],
)
def test_cmdline_value(args, name, expected):
    assert parsing.cmdline_value(args, name) == expected


@pytest.mark.parametrize(
    "text, possible, expected",
    [
        ("2-5", None, [2, 3, 4, 5]),
        ("", None, []),
        ("all", [0, 1, 2, 3], [0, 1, 2, 3]),
        ("2-N", list(range(8)), [2, 3, 4, 5, 6, 7]),
        ("0-15:2/4", None, [0, 1, 4, 5, 8, 9, 12, 13]),
        ("0-6:2/4,7", None, [0, 1, 4, 5, 7]),
        ("1,3,5-6", None, [1, 3, 5, 6]),
    ],
)
def test_parse_cmdline_cpulist(text, possible, expected):
    assert parsing.parse_cmdline_cpulist(text, possible) == expected


@pytest.mark.parametrize("text", ["3-1", "x", "all", "0-7:5/4", "1--2"])
def test_parse_cmdline_cpulist_errors(text):
    with pytest.raises(CpusetError):
        parsing.parse_cmdline_cpulist(text)


@pytest.mark.parametrize(
    "value, flags, cpus",
    [
        ("managed_irq,domain,2-15,18-31", ["managed_irq", "domain"], list(range(2, 16)) + list(range(18, 32))),
        ("2-3", ["domain"], [2, 3]),
        ("nohz,1", ["nohz"], [1]),
        (True, [], []),
        (None, [], []),
    ],
)
def test_parse_isolcpus(value, flags, cpus):
    assert parsing.parse_isolcpus(value) == (flags, cpus)


@pytest.mark.parametrize("value", ["domain,x", "bogus,1-2", "domain,3-1"])
def test_parse_isolcpus_errors(value):
    with pytest.raises(CpusetError):
        parsing.parse_isolcpus(value)


@pytest.mark.parametrize(
    "text, expected",
    [("", []), ("(null)", []), ("\n", []), ("0-3,8", [0, 1, 2, 3, 8]), ("5", [5])],
)
def test_parse_sysfs_cpulist(text, expected):
    assert parsing.parse_sysfs_cpulist(text) == expected


def test_parse_meminfo_system_and_node():
    system = "MemTotal:       24683568 kB\nHugePages_Total:       8\nHugepagesize:       2048 kB\nbogus line\nX: y\n"
    assert parsing.parse_meminfo(system) == {"MemTotal": 24683568, "HugePages_Total": 8, "Hugepagesize": 2048}
    node = "Node 1 MemTotal:       5990120 kB\nNode 1 MemFree:         5160168 kB\nNode 1 HugePages_Free:     4\n"
    assert parsing.parse_meminfo(node) == {"MemTotal": 5990120, "MemFree": 5160168, "HugePages_Free": 4}
    assert parsing.parse_meminfo(None) == {}


@pytest.mark.parametrize(
    "text, expected",
    [("2M", 2048), ("1024M", 1048576), ("1G", 1048576), ("2048k", 2048), ("2048kB", 2048),
     ("2097152", 2048), ("16G", 16777216), ("huge", None), ("", None), (None, None)],
)
def test_size_to_kb(text, expected):
    assert parsing.size_to_kb(text) == expected


@pytest.mark.parametrize(
    "name, expected",
    [("hugepages-2048kB", 2048), ("hugepages-1048576kB", 1048576), ("hugepages-64kB", 64), ("demote", None),
     ("hugepages-2MB", None)],
)
def test_hugepage_dir_size_kb(name, expected):
    assert parsing.hugepage_dir_size_kb(name) == expected


MOUNTS = """sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0
hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0
none /mnt/huge\\0401G hugetlbfs rw,relatime,pagesize=1024M 0 0
hugetlbfs /run/hp hugetlbfs rw,relatime 0 0
short line
"""


def test_parse_mounts():
    mounts = parsing.parse_mounts(MOUNTS)
    assert len(mounts) == 4
    assert mounts[0] == {
        "device": "sysfs", "path": "/sys", "fstype": "sysfs",
        "options": {"rw": True, "nosuid": True, "nodev": True, "noexec": True, "relatime": True},
    }
    assert mounts[2]["path"] == "/mnt/huge 1G"
    assert mounts[2]["options"]["pagesize"] == "1024M"


@pytest.mark.parametrize(
    "default_kb, expected",
    [
        (2048, [{"path": "/dev/hugepages", "pagesize_kb": 2048}, {"path": "/mnt/huge 1G", "pagesize_kb": 1048576},
                {"path": "/run/hp", "pagesize_kb": 2048}]),
        (1048576, [{"path": "/dev/hugepages", "pagesize_kb": 2048}, {"path": "/mnt/huge 1G", "pagesize_kb": 1048576},
                   {"path": "/run/hp", "pagesize_kb": 1048576}]),
    ],
)
def test_hugetlbfs_mounts(default_kb, expected):
    assert parsing.hugetlbfs_mounts(parsing.parse_mounts(MOUNTS), default_kb) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("always [madvise] never", "madvise"),
        ("always madvise [never]", "never"),
        ("[always] madvise never", "always"),
        ("always defer defer+madvise [madvise] never", "madvise"),
        ("none voluntary (full) lazy", "full"),
        ("madvise", "madvise"),
        ("always madvise never", None),
        ("", None),
        (None, None),
    ],
)
def test_selected_choice(text, expected):
    assert parsing.selected_choice(text) == expected


def test_parse_cpu_flags_first_processor_only():
    cpuinfo = "processor\t: 0\nflags\t\t: fpu vmx tsc_deadline_timer\n\nprocessor\t: 1\nflags\t\t: fpu svm\n"
    assert parsing.parse_cpu_flags(cpuinfo) == {"fpu", "vmx", "tsc_deadline_timer"}
    assert parsing.parse_cpu_flags("processor\t: 0\nFeatures\t: fp asimd evtstrm\n") == {"fp", "asimd", "evtstrm"}
    assert parsing.parse_cpu_flags("") == set()


@pytest.mark.parametrize(
    "text, expected",
    [("Y", True), ("1", True), ("N", False), ("0", False), ("y\n", True), ("auto", None), (None, None)],
)
def test_parse_bool_param(text, expected):
    assert parsing.parse_bool_param(text) == expected


def test_parse_kernel_config():
    text = "# CONFIG_PREEMPT_NONE is not set\nCONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_PREEMPT_DYNAMIC=y\nCONFIG_HZ=250\n"
    assert parsing.parse_kernel_config(text, ("CONFIG_PREEMPT_NONE", "CONFIG_PREEMPT_VOLUNTARY", "CONFIG_PREEMPT_DYNAMIC")) == {
        "CONFIG_PREEMPT_VOLUNTARY": "y", "CONFIG_PREEMPT_DYNAMIC": "y"}


@pytest.mark.parametrize(
    "version, realtime, debug, cmdline, config, expected",
    [
        ("#1 SMP PREEMPT_RT Debian 6.1.119-1", None, None, None, None, "rt"),
        ("#1 SMP PREEMPT RT Fri Jan 1", None, None, None, None, "rt"),
        ("#1 SMP Debian", True, None, None, None, "rt"),
        ("#1 SMP", None, None, None, {"CONFIG_PREEMPT_RT": "y"}, "rt"),
        ("#1 SMP PREEMPT_DYNAMIC Debian", None, "none voluntary (full) lazy", None, None, "dynamic-full"),
        ("#1 SMP PREEMPT_DYNAMIC Debian", None, None, "none", None, "dynamic-none"),
        ("#1 SMP PREEMPT_DYNAMIC Debian", None, None, None,
         {"CONFIG_PREEMPT_VOLUNTARY": "y", "CONFIG_PREEMPT_DYNAMIC": "y"}, "dynamic-voluntary"),
        ("#1 SMP PREEMPT_DYNAMIC @0", None, None, None, None, "dynamic"),
        ("#1 SMP PREEMPT_DYNAMIC @0", None, None, "bogus", None, "dynamic"),
        ("#1 SMP PREEMPT Tue", None, None, None, None, "full"),
        ("#1 SMP PREEMPT_LAZY Tue", None, None, None, None, "lazy"),
        ("#1 SMP Tue", None, None, None, {"CONFIG_PREEMPT_VOLUNTARY": "y"}, "voluntary"),
        ("#1 SMP Tue", None, None, None, {"CONFIG_PREEMPT_NONE": "y"}, "none"),
        ("#1 SMP Tue", None, None, None, None, "none-or-voluntary"),
        (None, None, None, None, None, None),
    ],
)
def test_preempt_model(version, realtime, debug, cmdline, config, expected):
    assert parsing.preempt_model(version, realtime, debug, cmdline, config) == expected
