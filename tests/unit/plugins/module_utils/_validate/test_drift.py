# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Drift: the values rt_host, hugepages and sriov applied, compared with what a fixture tree shows."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

import rt_node_trees
from pci_kernel import PciTree

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._node.gather import gather_node_facts
from ansible_collections.realtime.virt.plugins.module_utils._validate.drift import drift_checks
from ansible_collections.realtime.virt.plugins.modules.rt_isolation_info import read

# What rt_host computed for the 2-socket host (its TWO_SOCKET_CMDLINE holds them all).
ARGS = ["isolcpus=managed_irq,domain,2-15,18-31", "nohz_full=2-15,18-31", "rcu_nocbs=2-15,18-31",
        "irqaffinity=0-1,16-17", "skew_tick=1", "tsc=reliable", "nosoftlockup", "intel_iommu=on", "iommu=pt",
        "default_hugepagesz=1G", "hugepagesz=1G", "hugepages=8"]
# hugepages_pages matching the shape's pools (2M: 512 and 256, 1G: 8 and 8) and mounts.
PAGES = [{"size": "2M", "count": 512, "node": 0}, {"size": "2M", "count": 256, "node": 1},
         {"size": "1G", "count": 8, "node": 0}, {"size": "1G", "count": 8, "node": 1}]
SUBJECT = "applied settings"


def host(tmp_path, sysctls=("kernel.sched_rt_runtime_us",), pfs=(), marker=False, **overrides):
    root = rt_node_trees.build_shape(str(tmp_path / "host"), "two_socket_smt", **overrides)
    tree = rt_node_trees.Tree(root)
    if marker:
        tree.write("/run/realtime-virt/reboot-required", "# reboot\n")
    for pf, numvfs, driver in pfs:
        pci = PciTree(root)
        for name in ("ice", driver):
            pci.add_driver(name)
        pci.add_pf(pf, "1593", "1889", 8, driver="ice")
        pci.set_numvfs(pf, numvfs, drivers=[driver] * numvfs)
    result, _warnings = read({"root": root, "sysctls": list(sysctls), "pfs": [pf for pf, _n, _d in pfs],
                              "reboot_marker": "/run/realtime-virt/reboot-required"})
    return json.loads(json.dumps(result["applied"])), gather_node_facts(root)[0]


def checks(tmp_path, host_args=None, **expected):
    applied, facts = host(tmp_path, **(host_args or {}))
    return dict((item["check"], item) for item in drift_checks(applied, facts, **expected))


def test_everything_applied_still_holds(tmp_path):
    result = checks(tmp_path, sysctls={"kernel.sched_rt_runtime_us": -1}, kernel_args=ARGS, hugepages=PAGES,
                    hugepages_default_size="1G")
    assert dict((name, item["status"]) for name, item in result.items()) == {
        "sysctl kernel.sched_rt_runtime_us": "pass", "kernel arguments": "pass",
        "hugepages 2M node 0": "pass", "hugepages 2M node 1": "pass", "hugepages 1G node 0": "pass",
        "hugepages 1G node 1": "pass", "hugetlbfs /dev/hugepages": "pass", "hugetlbfs /dev/hugepages2M": "pass"}
    assert result["kernel arguments"]["observed"] == "all 12 in /proc/cmdline"


def test_sysctl_changed_by_hand_fails_from_what_to_what(tmp_path):
    result = checks(tmp_path, host_args={"sched_rt_runtime_us": 950000}, sysctls={"kernel.sched_rt_runtime_us": "-1"})
    item = result["sysctl kernel.sched_rt_runtime_us"]
    assert (item["status"], item["expected"], item["observed"]) == ("fail", "-1", "950000")
    assert "kernel.sched_rt_runtime_us changed from -1 to 950000" in item["message"]
    assert "sysctl -w kernel.sched_rt_runtime_us=-1" in item["message"]


def test_in_check_mode_a_difference_warns_and_a_match_still_passes(tmp_path):
    # --check: rt_host and hugepages applied nothing before rt_validate, so a
    # value the real run would set is not a drift to fail on.
    result = checks(tmp_path, host_args={"sched_rt_runtime_us": 950000}, check_mode=True,
                    sysctls={"kernel.sched_rt_runtime_us": "-1"}, kernel_args=ARGS, hugepages=PAGES,
                    hugepages_default_size="1G")
    item = result["sysctl kernel.sched_rt_runtime_us"]
    assert (item["status"], item["expected"], item["observed"]) == ("warn", "-1", "950000")
    assert item["message"].startswith("--check applies nothing, so this may be what the real run sets: drift: ")
    assert result["hugepages 2M node 0"]["status"] == "pass"


def test_sysctl_missing_from_the_kernel(tmp_path):
    applied, facts = host(tmp_path, sysctls=("kernel.no_such_knob",))
    item = drift_checks(applied, facts, sysctls={"kernel.no_such_knob": 1})[0]
    assert item["status"] == "fail"
    assert "changed from 1 to absent from this kernel" in item["message"]


def test_boot_argument_changed_fails_naming_old_and_new(tmp_path):
    cmdline = rt_node_trees.TWO_SOCKET_CMDLINE.replace("nohz_full=2-15,18-31", "nohz_full=2-15").replace(" skew_tick=1", "")
    item = checks(tmp_path, host_args={"cmdline": cmdline}, kernel_args=ARGS)["kernel arguments"]
    assert item["status"] == "fail"
    assert item["observed"] == "nohz_full=2-15,18-31 -> nohz_full=2-15; skew_tick=1 -> absent"
    assert "differs from what rt_host wrote" in item["message"]


def test_boot_arguments_skip_while_a_reboot_is_pending(tmp_path):
    cmdline = "ro quiet"
    pending = checks(tmp_path, host_args={"cmdline": cmdline}, kernel_args=ARGS, reboot_pending=True)
    assert pending["kernel arguments"]["status"] == "skip"
    assert "a reboot is pending" in pending["kernel arguments"]["message"]
    marked = checks(tmp_path / "marker", host_args={"cmdline": cmdline, "marker": True}, kernel_args=ARGS)
    assert marked["kernel arguments"]["status"] == "skip"


def test_boot_arguments_skip_when_rt_host_did_not_run(tmp_path):
    item = checks(tmp_path, kernel_args=[])["kernel arguments"]
    assert item["status"] == "skip"
    assert "rt_validate_drift_kernel_args is empty" in item["message"]


def test_pool_that_shrank_fails_naming_node_and_counts(tmp_path):
    result = checks(tmp_path, host_args={"hugepages": {2048: [500, 256], 1048576: [8, 8]}}, hugepages=PAGES,
                    hugepages_default_size="1G")
    item = result["hugepages 2M node 0"]
    assert (item["status"], item["expected"], item["observed"]) == ("fail", "512 pages", "500 pages")
    assert "the 2M pool on node 0 changed from 512 to 500 pages" in item["message"]
    assert result["hugepages 2M node 1"]["status"] == "pass"


def test_boot_only_pool_skips_while_a_reboot_is_pending(tmp_path):
    shrunk = {"hugepages": {2048: [512, 256], 1048576: [0, 0]}}
    pending = checks(tmp_path, host_args=shrunk, hugepages=PAGES, hugepages_default_size="1G", runtime_sizes=["2M"],
                     reboot_pending=True)
    assert pending["hugepages 1G node 0"]["status"] == "skip"
    booted = checks(tmp_path / "booted", host_args=shrunk, hugepages=PAGES, hugepages_default_size="1G",
                    runtime_sizes=["2M"])
    assert booted["hugepages 1G node 0"]["status"] == "fail"


def test_unmounted_or_remounted_hugetlbfs_fails(tmp_path):
    gone = checks(tmp_path, host_args={"hugetlbfs": (("/dev/hugepages", None),)}, hugepages=PAGES,
                  hugepages_default_size="1G")
    item = gone["hugetlbfs /dev/hugepages2M"]
    assert (item["status"], item["observed"]) == ("fail", "not mounted")
    assert "changed from mounted (2M pages) to not mounted" in item["message"]
    other = checks(tmp_path / "other", host_args={"hugetlbfs": (("/dev/hugepages", None), ("/dev/hugepages2M", "1G"))},
                   hugepages=PAGES, hugepages_default_size="1G")
    assert other["hugetlbfs /dev/hugepages2M"]["status"] == "fail"
    assert "changed from 2M to 1G pages" in other["hugetlbfs /dev/hugepages2M"]["message"]
    unchecked = checks(tmp_path / "off", host_args={"hugetlbfs": ()}, hugepages=PAGES, hugepages_default_size="1G",
                       hugetlbfs=False)
    assert not [name for name in unchecked if name.startswith("hugetlbfs")]


def test_vfs_hold_their_count_and_driver(tmp_path):
    pfs = (("0000:3b:00.0", 2, "vfio-pci"),)
    good = checks(tmp_path, host_args={"pfs": pfs}, sriov_pfs=[{"pf": "0000:3b:00.0", "count": 2}])
    assert good["VFs of 0000:3b:00.0"]["status"] == "pass"
    assert good["VFs of 0000:3b:00.0"]["observed"] == "2 VFs, drivers vfio-pci"
    bad = checks(tmp_path / "bad", host_args={"pfs": (("0000:3b:00.0", 1, "iavf"),)},
                 sriov_pfs=[{"pf": "0000:3b:00.0", "count": 2}])
    item = bad["VFs of 0000:3b:00.0"]
    assert item["status"] == "fail"
    assert "VF count from 2 to 1" in item["message"]
    assert "driver from vfio-pci to: 0000:3b:00.1 on iavf" in item["message"]
    maximum = checks(tmp_path / "max", host_args={"pfs": (("0000:3b:00.0", 2, "vfio-pci"),)},
                     sriov_pfs=[{"pf": "0000:3b:00.0", "count": "max"}])
    assert "VF count from 8 to 2" in maximum["VFs of 0000:3b:00.0"]["message"]
    gone = checks(tmp_path / "gone", sriov_pfs=[{"pf": "0000:3b:00.0", "count": 2}])
    assert "PCI device 0000:3b:00.0 is gone" in gone["VFs of 0000:3b:00.0"]["message"]


@pytest.mark.parametrize("expected, words", [
    ({"sysctls": ["kernel.sched_rt_runtime_us"]}, "rt_validate_drift_sysctls"),
    ({"kernel_args": ["nohz_full=1 2"]}, "rt_validate_drift_kernel_args='nohz_full=1 2'"),
    ({"hugepages": [{"size": "3M", "count": 1}]}, "rt_validate_drift_hugepages[0].size='3M'"),
    ({"hugepages": [{"size": "2M", "count": 1}], "runtime_sizes": ["huge"]}, "rt_validate_drift_hugepages_runtime_sizes"),
    ({"sriov_pfs": [{"pf": "3b:00", "count": 1}]}, "rt_validate_drift_sriov_pfs[0].pf='3b:00'"),
    ({"sriov_pfs": ["0000:3b:00.0"]}, "rt_validate_drift_sriov_pfs[0]='0000:3b:00.0'"),
    ({"sriov_pfs": {"pf": "0000:3b:00.0"}}, "rt_validate_drift_sriov_pfs"),
])
def test_bad_expectations_are_refused_naming_the_variable(tmp_path, expected, words):
    applied, facts = host(tmp_path)
    with pytest.raises(OptionError) as error:
        drift_checks(applied, facts, **expected)
    assert words in str(error.value)
