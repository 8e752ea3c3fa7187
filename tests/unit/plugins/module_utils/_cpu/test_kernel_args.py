# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Kernel argument computation and comparison with a command line."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type


import pytest


from ansible_collections.realtime.virt.plugins.module_utils._cpu.plan import cpu_plan
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._cpu.kernel_args import (
    compare_kernel_args,
    grubby_entries,
    normalise_arg,
    rt_kernel_args,
)

BASE_TAIL = ["skew_tick=1", "tsc=reliable", "nosoftlockup"]


@pytest.mark.parametrize("shape, isolated, iso, hk", [
    ("test_host", "auto", "1", "0"),
    ("two_socket_smt", "auto", "1-7,9-15,17-23,25-31", "0,8,16,24"),
    ("two_socket_smt", "2-15,18-31", "2-15,18-31", "0-1,16-17"),
    ("big_512", "8-255,264-511", "8-255,264-511", "0-7,256-263"),
])
def test_rt_kernel_args(hosts, shape, isolated, iso, hk):
    args = rt_kernel_args(cpu_plan(hosts[shape], isolated))
    assert args == [
        "isolcpus=managed_irq,domain,%s" % iso, "nohz=on", "nohz_full=%s" % iso, "rcu_nocbs=%s" % iso,
        "irqaffinity=%s" % hk,
    ] + BASE_TAIL


def test_iommu_hugepages_extra(hosts):
    plan = cpu_plan(hosts["test_host"], "1")
    args = rt_kernel_args(plan, iommu=True, hugepage_args=["hugepagesz=1G", "hugepages=4", "hugepagesz=2M", "hugepages=8"],
                          extra=["nosoftlockup", "tsc=nowatchdog", "nmi_watchdog=0"])
    assert args == [
        "isolcpus=managed_irq,domain,1", "nohz=on", "nohz_full=1", "rcu_nocbs=1", "irqaffinity=0", "skew_tick=1",
        "tsc=nowatchdog", "nosoftlockup", "intel_iommu=on", "iommu=pt",
        "hugepagesz=1G", "hugepages=4", "hugepagesz=2M", "hugepages=8", "nmi_watchdog=0",
    ]


def test_two_socket_args_match_its_cmdline(hosts):
    # The fixture's command line was tuned with these CPUs but lacks nohz=on.
    facts = hosts["two_socket_smt"]
    args = rt_kernel_args(cpu_plan(facts, "2-15,18-31"), iommu=True)
    result = compare_kernel_args(args, facts["kernel"]["cmdline"])
    assert result == {"applied": False, "present": [a for a in args if a != "nohz=on"], "missing": ["nohz=on"], "stale": []}
    result = compare_kernel_args(args, facts["kernel"]["cmdline"] + " nohz=on")
    assert result == {"applied": True, "present": args, "missing": [], "stale": []}
    # auto picks other CPUs than the running kernel has.
    auto = rt_kernel_args(cpu_plan(facts, "auto"))
    result = compare_kernel_args(auto, facts["kernel"]["cmdline"])
    assert result["applied"] is False
    assert result["missing"] == auto[:5]


def test_test_host_has_nothing(hosts):
    facts = hosts["test_host"]
    args = rt_kernel_args(cpu_plan(facts, "auto"))
    result = compare_kernel_args(args, facts["kernel"]["cmdline_list"])
    assert result["missing"] == args and result["present"] == []


@pytest.mark.parametrize("wanted, current, missing", [
    (["nohz_full=2-3"], "ro nohz_full=2,3", []),
    (["nohz_full=2-3"], "ro nohz-full=2-3", []),
    (["nohz_full=2-3"], "nohz_full=2-3 nohz_full=2", ["nohz_full=2-3"]),     # last value wins
    (["isolcpus=managed_irq,domain,2-3"], "isolcpus=domain,managed_irq,2,3", []),
    (["isolcpus=managed_irq,domain,2-3"], "isolcpus=2-3", ["isolcpus=managed_irq,domain,2-3"]),
    (["hugepagesz=1G", "hugepages=4"], "hugepagesz=2M hugepages=8 hugepagesz=1G hugepages=4", []),
    (["nosoftlockup"], "ro -- nosoftlockup", ["nosoftlockup"]),               # init's arguments do not count
    (["skew_tick=1"], ["skew_tick=1"], []),
    (["skew_tick=1"], [["skew_tick=1"], ["ro"]], ["skew_tick=1"]),           # every boot entry must have it
    (["skew_tick=1"], None, ["skew_tick=1"]),
])
def test_compare(wanted, current, missing):
    result = compare_kernel_args(wanted, current)
    assert result["missing"] == missing
    assert result["applied"] is (not missing)


@pytest.mark.parametrize("word, normal", [
    ("rcu_nocbs=3,1-2", "rcu_nocbs=1-3"),
    ("isolcpus=domain,managed_irq,1-2", "isolcpus=domain,managed_irq,1-2"),
    ("nohz-full=1", "nohz_full=1"),
    ("quiet", "quiet"),
    ("nohz_full=bad", "nohz_full=bad"),
])
def test_normalise(word, normal):
    assert normalise_arg(word) == normal


@pytest.mark.parametrize("extra, token", [
    (["a b"], "a b"),
    (["x=\"y\""], "x=\"y\""),
    (["x=$(reboot)"], "x=$(reboot)"),
    ([3], 3),
])
def test_bad_extra(hosts, extra, token):
    with pytest.raises(OptionError) as info:
        rt_kernel_args(cpu_plan(hosts["test_host"], "1"), extra=extra)
    assert info.value.option == "rt_host_kernel_args_extra"
    assert info.value.value == token
    assert "Fix:" in str(info.value)


def test_bad_plan():
    with pytest.raises(OptionError) as info:
        rt_kernel_args({"isolated": [], "housekeeping": [0]})
    assert "rt_cpu_plan" in str(info.value)


def test_grubby_entries():
    text = (
        "index=0\nkernel=\"/boot/vmlinuz-5.14.0-rt\"\nargs=\"ro crashkernel=auto isolcpus=1\"\nroot=\"/dev/sda1\"\n"
        "index=1\nkernel=\"/boot/vmlinuz-5.14.0\"\nargs=\"ro crashkernel=auto\"\n"
    )
    entries = grubby_entries(text)
    assert entries == [["ro", "crashkernel=auto", "isolcpus=1"], ["ro", "crashkernel=auto"]]
    assert compare_kernel_args(["isolcpus=1"], entries)["missing"] == ["isolcpus=1"]


def test_stale():
    result = compare_kernel_args(["nohz_full=2", "skew_tick=1"], "nohz_full=1 mitigations=off",
                                 previous=["nohz_full=1", "mitigations=off", "skew_tick=1"])
    assert result["missing"] == ["nohz_full=2", "skew_tick=1"]
    assert result["stale"] == ["mitigations=off"]
