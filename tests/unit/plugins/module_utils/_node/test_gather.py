# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""rt_node facts gathered from /proc + /sys trees of several hardware shapes."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type


import pytest


import rt_node_trees

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import HostError
from ansible_collections.realtime.virt.plugins.module_utils._node.gather import (
    gather_node_facts,
)

ISO_2S = list(range(2, 16)) + list(range(18, 32))


def dig(facts, dotted):
    value = facts
    for key in dotted.split("|"):
        if isinstance(value, list):
            key = int(key)
        value = value[key]
    return value


def gather(tmp_path, name, **overrides):
    root = rt_node_trees.build_shape(str(tmp_path), name, **overrides)
    return gather_node_facts(root)


CHECK_IDS = [
    "sched_rt_runtime", "isolated_cpus", "housekeeping_cpus", "nohz_full_covers_isolated",
    "rcu_nocbs_covers_isolated", "irq_affinity", "irqs_avoid_isolated", "workqueue_avoids_isolated", "hugepages_allocated", "hugetlbfs_mounted", "kvm_device",
    "virtualization_flag", "iommu_enabled", "preempt_rt", "thp_not_always", "tsc_deadline", "constant_tsc",
    "ksm_off", "timer_kernel_args", "cache_allocation", "time_sync",
]

# (shape, {"|"-separated path: expected value})
EXPECTED = [
    ("test_host", {
        "kernel|release": "6.1.0-28-amd64",
        "kernel|preempt_model": "dynamic",
        "kernel|preempt_rt": False,
        "kernel|cmdline_args|ro": True,
        "kernel|cmdline_args|root": "UUID=0b7a1c1e",
        "sched_rt_runtime_us": 950000,
        "sched_rt_period_us": 1000000,
        "cpus|count": 2,
        "cpus|online": [0, 1],
        "cpus|online_cpuset": "0-1",
        "cpus|isolated": [],
        "cpus|isolated_cpuset": "",
        "cpus|nohz_full": [],
        "cpus|rcu_nocbs": None,
        "cpus|isolcpus": None,
        "cpus|housekeeping": [0, 1],
        "cpus|socket_count": 1,
        "cpus|cores": 2,
        "cpus|threads_per_core": 1,
        "cpus|smt_active": False,
        "cpus|smt_siblings": [[0], [1]],
        "cpus|virtualization": "vmx",
        "numa|node_count": 1,
        "numa|nodes|0|cpus": [0, 1],
        "numa|nodes|0|memory_total_kb": 8388608,
        "numa|nodes|0|hugepages|2048kB": {"size_kb": 2048, "total": 0, "free": 0, "surplus": 0},
        "hugepages|default_size_kb": 2048,
        "hugepages|allocated_kb": 0,
        "hugepages|mounts": [],
        "thp|enabled": "madvise",
        "cpus|workqueue_cpuset": "0-1",
        "irqs|count": 5,
        "irqs|kernel_managed": 1,
        "irqs|on_isolated": [],
        "thp|defrag": "madvise",
        "iommu|enabled": False,
        "iommu|group_count": 0,
        "kvm|device_present": True,
        "kvm|modules": {"kvm": True, "kvm_intel": True, "kvm_amd": False},
        "kvm|nested": True,
        "rng|available": [],
        "rng|current": None,
        "rng|devices": {"random": True, "urandom": True, "hwrng": False},
        "realtime_ready": False,
        "kubevirt_labels": {},
    }),
    ("two_socket_smt", {
        "cpus|count": 32,
        "cpus|online_cpuset": "0-31",
        "cpus|isolated": ISO_2S,
        "cpus|isolated_cpuset": "2-15,18-31",
        "cpus|nohz_full": ISO_2S,
        "cpus|nohz_full_cpuset": "2-15,18-31",
        "cpus|rcu_nocbs": ISO_2S,
        "cpus|rcu_nocbs_cpuset": "2-15,18-31",
        "cpus|isolcpus": {"flags": ["managed_irq", "domain"], "cpus": ISO_2S, "cpuset": "2-15,18-31"},
        "cpus|housekeeping": [0, 1, 16, 17],
        "cpus|housekeeping_cpuset": "0-1,16-17",
        "cpus|irq_default_affinity": [0, 1, 16, 17],
        "cpus|socket_count": 2,
        "cpus|sockets|0": {"id": 0, "cpus": list(range(0, 8)) + list(range(16, 24)), "cpuset": "0-7,16-23",
                           "core_count": 8},
        "cpus|sockets|1|cpuset": "8-15,24-31",
        "cpus|cores": 16,
        "cpus|threads_per_core": 2,
        "cpus|smt_active": True,
        "cpus|smt_siblings": [[cpu, cpu + 16] for cpu in range(16)],
        "cpus|flags": {"tsc_deadline": True, "constant_tsc": True, "nonstop_tsc": True, "pdpe1gb": True,
                       "vmx": True, "svm": False},
        "kernel|cmdline_args|isolcpus": "managed_irq,domain,2-15,18-31",
        "kernel|cmdline_args|skew_tick": "1",
        "kernel|cmdline_args|nosoftlockup": True,
        "numa|node_count": 2,
        "numa|nodes|0|cpuset": "0-7,16-23",
        "numa|nodes|1|cpuset": "8-15,24-31",
        "numa|nodes|1|id": 1,
        "numa|nodes|0|memory_total_kb": 67108864,
        "numa|nodes|0|hugepages": {
            "2048kB": {"size_kb": 2048, "total": 512, "free": 512, "surplus": 0},
            "1048576kB": {"size_kb": 1048576, "total": 8, "free": 8, "surplus": 0}},
        "numa|nodes|1|hugepages|2048kB|total": 256,
        "numa|nodes|1|hugepages|1048576kB|total": 8,
        "hugepages|default_size_kb": 1048576,
        "hugepages|sizes|2048kB": {"size_kb": 2048, "total": 768, "free": 768, "reserved": 0, "surplus": 0,
                                   "overcommit": 0},
        "hugepages|sizes|1048576kB|total": 16,
        "hugepages|allocated_kb": 768 * 2048 + 16 * 1048576,
        "hugepages|mounts": [{"path": "/dev/hugepages", "pagesize_kb": 1048576},
                             {"path": "/dev/hugepages2M", "pagesize_kb": 2048},
                             {"path": "/dev/hugepages1G", "pagesize_kb": 1048576}],
        "thp|enabled": "never",
        "iommu": {"enabled": True, "group_count": 24, "units": ["dmar0", "dmar1"],
                  "cmdline": {"intel_iommu": "on", "iommu": "pt"}},
        "kvm|parameters|kvm_intel.ple_gap": "128",
        "rng": {"available": ["tpm-rng-0"], "current": "tpm-rng-0",
                "devices": {"random": True, "urandom": True, "hwrng": True}, "default_backend": "/dev/random"},
        "sched_rt_runtime_us": -1,
        "realtime_ready": True,
        "realtime_blockers": [],
        "kubevirt_labels": {"kubevirt.io/realtime": "true"},
    }),
    ("preempt_rt", {
        "kernel|release": "6.1.0-28-rt-amd64",
        "kernel|preempt_model": "rt",
        "kernel|preempt_rt": True,
        "cpus|count": 4,
        "cpus|isolated": [2, 3],
        "cpus|isolcpus": {"flags": ["domain"], "cpus": [2, 3], "cpuset": "2-3"},
        "cpus|rcu_nocbs": None,
        "cpus|housekeeping": [0, 1],
        "cpus|virtualization": "svm",
        "cpus|flags|tsc_deadline": False,
        "cpus|flags|pdpe1gb": False,
        "kvm|modules": {"kvm": True, "kvm_intel": False, "kvm_amd": True},
        "kvm|nested": True,
        "thp|enabled": "always",
        "hugepages|sizes|2048kB|total": 1024,
        "hugepages|sizes|1048576kB|total": 0,
        "realtime_ready": True,
        "kubevirt_labels": {"kubevirt.io/realtime": "true"},
    }),
    ("big_512", {
        "cpus|count": 512,
        "cpus|online_cpuset": "0-511",
        "cpus|isolated_cpuset": "8-255,264-511",
        "cpus|housekeeping_cpuset": "0-7,256-263",
        "cpus|socket_count": 8,
        "cpus|cores": 256,
        "cpus|threads_per_core": 2,
        "cpus|sockets|7|cpuset": "224-255,480-511",
        "cpus|smt_siblings|255": [255, 511],
        "numa|node_count": 8,
        "numa|nodes|7|cpuset": "224-255,480-511",
        "numa|nodes|3|hugepages|1048576kB|total": 16,
        "hugepages|sizes|2048kB|total": 8 * 4096,
        "hugepages|sizes|1048576kB|total": 8 * 16,
        "iommu|group_count": 300,
        "realtime_ready": True,
    }),
]


@pytest.mark.parametrize("name, expected", EXPECTED, ids=[item[0] for item in EXPECTED])
def test_shape_values(tmp_path, name, expected):
    facts, warnings = gather(tmp_path, name)
    assert warnings == []
    for path, value in expected.items():
        assert dig(facts, path) == value, path


# (shape, overrides, {check id: ready}) for the checks that differ between shapes
CHECK_TABLE = [
    ("test_host", {}, {"sched_rt_runtime": False, "isolated_cpus": False, "housekeeping_cpus": True,
                       "nohz_full_covers_isolated": False, "hugepages_allocated": False,
                       "hugetlbfs_mounted": False, "kvm_device": True, "virtualization_flag": True,
                       "iommu_enabled": False, "preempt_rt": False, "thp_not_always": True, "ksm_off": True,
                       "timer_kernel_args": False, "cache_allocation": False, "time_sync": False}),
    # no PTP hardware clock and no time daemon in the shape: time_sync warns
    ("two_socket_smt", {}, dict((check, check not in ("preempt_rt", "time_sync")) for check in CHECK_IDS)),
    ("two_socket_smt", {"resctrl": None}, {"cache_allocation": False}),
    ("two_socket_smt", {"resctrl": {"MB": {"min_bandwidth": "10", "bandwidth_gran": "10", "num_closids": "8"}}},
     {"cache_allocation": False}),
    ("preempt_rt", {}, {"preempt_rt": True, "thp_not_always": False, "tsc_deadline": False,
                        "rcu_nocbs_covers_isolated": True, "irq_affinity": False, "iommu_enabled": False}),
    ("preempt_rt", {"nohz_full": None}, {"nohz_full_covers_isolated": False, "rcu_nocbs_covers_isolated": False}),
    ("two_socket_smt", {"nohz_full": "2-15", "cmdline": "ro isolcpus=2-15,18-31 nohz_full=2-15"},
     {"nohz_full_covers_isolated": False, "rcu_nocbs_covers_isolated": False, "timer_kernel_args": False}),
    ("two_socket_smt", {"isolated": "0-31", "nohz_full": "0-31"}, {"housekeeping_cpus": False}),
    ("two_socket_smt", {"kvm": None}, {"kvm_device": False}),
    ("two_socket_smt", {"flags": rt_node_trees.BASE_FLAGS}, {"virtualization_flag": False, "constant_tsc": False,
                                                             "tsc_deadline": False}),
    ("two_socket_smt", {"ksm_run": "1"}, {"ksm_off": False}),
    ("two_socket_smt", {"hugetlbfs": ()}, {"hugetlbfs_mounted": False}),
    # an IRQ someone pinned to isolated CPU 5; a managed queue there is no problem
    ("two_socket_smt", {"irqs": [
        {"irq": 40, "names": ["eth1"], "pci": "0000:3b:00.0", "affinity": [5], "effective": [5]},
        {"irq": 41, "names": ["nvme0q6"], "pci": "0000:5e:00.0", "affinity": [6], "effective": [6], "managed": True}]},
     {"irqs_avoid_isolated": False}),
    ("two_socket_smt", {"irqs": [
        {"irq": 41, "names": ["nvme0q6"], "pci": "0000:5e:00.0", "affinity": [6], "effective": [6], "managed": True}]},
     {"irqs_avoid_isolated": True}),
    ("two_socket_smt", {"workqueue_cpumask": "0-31"}, {"workqueue_avoids_isolated": False}),
    ("two_socket_smt", {"workqueue_cpumask": ""}, {"workqueue_avoids_isolated": False}),
]


@pytest.mark.parametrize("name, overrides, readiness", CHECK_TABLE)
def test_checks(tmp_path, name, overrides, readiness):
    facts, _warnings = gather(tmp_path, name, **overrides)
    checks = dict((item["id"], item) for item in facts["realtime_checks"])
    assert [item["id"] for item in facts["realtime_checks"]] == CHECK_IDS
    for check_id, ready in readiness.items():
        assert checks[check_id]["ready"] is ready, check_id
    blockers = [item for item in facts["realtime_checks"] if item["blocker"] and not item["ready"]]
    assert facts["realtime_ready"] is (not blockers)
    assert facts["realtime_blockers"] == ["%s Fix: %s" % (item["problem"], item["fix"]) for item in blockers]


def test_test_host_blockers_are_plain_sentences_with_fixes(tmp_path):
    facts, _warnings = gather(tmp_path, "test_host")
    blockers = facts["realtime_blockers"]
    assert len(blockers) == 3  # throttling, no isolated CPUs, no hugepages
    assert blockers[0].startswith("Real-time throttling is on (kernel.sched_rt_runtime_us = 950000)")
    assert "Fix: set kernel.sched_rt_runtime_us=-1" in blockers[0]
    assert "realtime.virt.rt_host" in blockers[0]
    assert "isolcpus=managed_irq,domain,<cpus>" in blockers[1]
    assert "realtime.virt.hugepages" in blockers[2]
    for sentence in blockers:
        assert sentence.endswith(".")
    assert [item["blocker"] for item in facts["realtime_checks"][:3]] == [True, True, True]


def test_nohz_full_fix_names_the_isolated_cpus(tmp_path):
    facts, _warnings = gather(tmp_path, "two_socket_smt", nohz_full="2-15")
    check = [item for item in facts["realtime_checks"] if item["id"] == "nohz_full_covers_isolated"][0]
    assert check["observed"] == "isolated 2-15,18-31, nohz_full 2-15"
    assert check["problem"].startswith("Isolated CPUs 18-31 are not in nohz_full")
    assert "nohz_full=2-15,18-31" in check["fix"]
    assert check["blocker"] is False


@pytest.mark.parametrize(
    "runtime, labels, ready",
    [(-1, {"kubevirt.io/realtime": "true"}, True), (950000, {}, False), (0, {}, False), (1000000, {}, False)],
)
def test_kubevirt_label_rule(tmp_path, runtime, labels, ready):
    facts, _warnings = gather(tmp_path, "two_socket_smt", sched_rt_runtime_us=runtime)
    assert facts["sched_rt_runtime_us"] == runtime
    assert facts["kubevirt_labels"] == labels
    assert facts["realtime_ready"] is ready


def test_thp_never_and_1g_per_node(tmp_path):
    facts, _warnings = gather(tmp_path, "two_socket_smt")
    assert facts["thp"]["enabled"] == "never"
    assert [node["hugepages"]["1048576kB"]["total"] for node in facts["numa"]["nodes"]] == [8, 8]
    assert [node["hugepages"]["2048kB"]["total"] for node in facts["numa"]["nodes"]] == [512, 256]


@pytest.mark.parametrize(
    "debug, model",
    [("none voluntary (full) lazy", "dynamic-full"), ("(none) voluntary full", "dynamic-none")],
)
def test_preempt_from_debugfs(tmp_path, debug, model):
    facts, _warnings = gather(tmp_path, "test_host", debug_preempt=debug)
    assert facts["kernel"]["preempt_model"] == model
    assert facts["kernel"]["preempt_rt"] is False


def test_preempt_from_boot_config(tmp_path):
    rt_node_trees.Tree(str(tmp_path)).write(
        "/boot/config-6.1.0-28-amd64", "CONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_PREEMPT_DYNAMIC=y\n")
    facts, _warnings = gather(tmp_path, "test_host")
    assert facts["kernel"]["preempt_model"] == "dynamic-voluntary"


def test_cmdline_with_quotes_repeats_and_init_args(tmp_path):
    cmdline = 'ro console=tty0 console=ttyS0,115200 dyndbg="file x.c +p" quiet -- single'
    facts, _warnings = gather(tmp_path, "test_host", cmdline=cmdline)
    kernel = facts["kernel"]
    assert kernel["cmdline"] == cmdline
    assert kernel["cmdline_args"] == {"ro": True, "console": ["tty0", "ttyS0,115200"], "dyndbg": "file x.c +p",
                                      "quiet": True}
    assert kernel["cmdline_list"] == ["ro", "console=tty0", "console=ttyS0,115200", "dyndbg=file x.c +p", "quiet"]
    assert kernel["init_args"] == ["single"]


def test_rcu_nocbs_all_and_last_cpu(tmp_path):
    facts, _warnings = gather(tmp_path, "two_socket_smt", cmdline="ro rcu_nocbs=all nohz_full=2-N")
    assert facts["cpus"]["rcu_nocbs"] == list(range(32))
    # nohz_full= of the cmdline does not matter: the sysfs file is what the kernel applied
    assert facts["cpus"]["nohz_full_cpuset"] == "2-15,18-31"


def test_bad_cmdline_cpulist_warns(tmp_path):
    facts, warnings = gather(tmp_path, "test_host", cmdline="ro rcu_nocbs=3-1 isolcpus=domain,x")
    assert facts["cpus"]["rcu_nocbs"] is None
    assert facts["cpus"]["isolcpus"] is None
    assert len(warnings) == 2
    assert "rcu_nocbs=3-1" in warnings[0]
    assert "isolcpus" in warnings[1]


MISSING = [
    # (omitted kernel paths, {path: expected value}, warning fragments)
    (("/proc/sys/kernel/sched_rt_runtime_us",), {"sched_rt_runtime_us": None, "kubevirt_labels": {}},
     ["/proc/sys/kernel/sched_rt_runtime_us"]),
    (("/proc/cmdline",), {"kernel|cmdline": None, "kernel|cmdline_args": {}, "cpus|rcu_nocbs": None},
     ["/proc/cmdline"]),
    (("/proc/sys/kernel/version", "/proc/sys/kernel/osrelease"),
     {"kernel|preempt_model": None, "kernel|preempt_rt": None, "kernel|release": None},
     ["/proc/sys/kernel/osrelease", "/proc/sys/kernel/version"]),
    (("/sys/devices/system/cpu/online",), {"cpus|online": None, "cpus|count": None, "cpus|housekeeping": None,
                                           "cpus|online_cpuset": None, "cpus|sockets": []},
     ["/sys/devices/system/cpu/online"]),
    (("/sys/devices/system/cpu/isolated",), {"cpus|isolated": None, "cpus|housekeeping": [0, 1]},
     ["/sys/devices/system/cpu/isolated"]),
    (("/proc/cpuinfo",), {"cpus|flags": None, "cpus|virtualization": None}, ["/proc/cpuinfo"]),
    (("/sys/devices/system/cpu/cpu0/topology", "/sys/devices/system/cpu/cpu1/topology"),
     {"cpus|sockets": None, "cpus|smt_siblings": None, "cpus|cores": None}, ["no CPU topology"]),
    (("/proc/meminfo",), {"hugepages|default_size_kb": None, "memory|total_kb": None}, ["/proc/meminfo"]),
    (("/proc/mounts",), {"hugepages|mounts": None}, ["/proc/mounts"]),
    (("/sys/devices/system/node/node0/meminfo",), {"numa|nodes|0|memory_total_kb": None},
     ["/sys/devices/system/node/node0/meminfo"]),
    (("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages",), {"hugepages|sizes|2048kB|total": None},
     ["/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"]),
    # optional files: no warning
    (("/sys/devices/system/node",), {"numa": {"node_count": 0, "nodes": []}}, []),
    (("/sys/kernel/mm/transparent_hugepage",), {"thp": {"enabled": None, "defrag": None}}, []),
    (("/sys/kernel/iommu_groups", "/sys/class/iommu"), {"iommu|enabled": False, "iommu|units": []}, []),
    (("/sys/class/misc/hw_random",), {"rng|available": [], "rng|current": None}, []),
    (("/sys/kernel/mm/ksm",), {"ksm": {"run": None, "running": None}}, []),
    (("/proc/irq",), {"cpus|irq_default_affinity": None}, []),
]


@pytest.mark.parametrize("omit, expected, warned", MISSING, ids=[",".join(item[0]) for item in MISSING])
def test_missing_files_leave_facts_out_with_warnings(tmp_path, omit, expected, warned):
    facts, warnings = gather(tmp_path, "test_host", omit=omit)
    for path, value in expected.items():
        assert dig(facts, path) == value, path
    assert len(warnings) == len(warned)
    for warning, fragment in zip(warnings, warned):
        assert fragment in warning
    # The checklist is still complete and readable.
    assert [item["id"] for item in facts["realtime_checks"]] == CHECK_IDS


def test_unreadable_inputs_make_checks_unknown(tmp_path):
    facts, _warnings = gather(tmp_path, "two_socket_smt", omit=("/proc/sys/kernel/sched_rt_runtime_us",
                                                                "/proc/cpuinfo"))
    checks = dict((item["id"], item) for item in facts["realtime_checks"])
    assert checks["sched_rt_runtime"]["ready"] is False
    assert checks["sched_rt_runtime"]["observed"].startswith("unknown")
    assert checks["virtualization_flag"]["observed"].startswith("unknown")
    assert facts["realtime_ready"] is False
    assert len(facts["realtime_blockers"]) == 2


def test_garbage_values_warn(tmp_path):
    tree = rt_node_trees.Tree(str(tmp_path))
    rt_node_trees.build_shape(str(tmp_path), "test_host")
    tree.write("/proc/sys/kernel/sched_rt_runtime_us", "lots\n")
    tree.write("/sys/devices/system/cpu/isolated", "3-1\n")
    facts, warnings = gather_node_facts(str(tmp_path))
    assert facts["sched_rt_runtime_us"] is None
    assert facts["cpus"]["isolated"] is None
    assert any("not a number" in warning for warning in warnings)
    assert any("not a CPU list" in warning for warning in warnings)


def test_empty_tree_does_not_crash(tmp_path):
    facts, warnings = gather_node_facts(str(tmp_path))
    assert facts["cpus"]["count"] is None
    assert facts["numa"]["node_count"] == 0
    assert facts["realtime_ready"] is False
    assert len(warnings) >= 5


@pytest.mark.parametrize("root", ["/nonexistent/tree", __file__])
def test_bad_root(root):
    with pytest.raises(HostError) as info:
        gather_node_facts(root)
    assert "root=%r is not a directory" % root in str(info.value)
    assert "leave root at its default '/'" in str(info.value)


def test_captured_test_host():
    """The files copied from the development VM (capture_rt_node_testhost.py)."""
    facts, warnings = gather_node_facts(rt_node_trees.CAPTURED_TEST_HOST)
    assert warnings == []
    assert facts["root"] == rt_node_trees.CAPTURED_TEST_HOST
    assert facts["kernel"]["release"] == "6.18.44-fc-v1098"
    assert facts["kernel"]["preempt_model"] == "dynamic"
    assert facts["kernel"]["cmdline_args"]["console"] == "ttyS0"
    assert facts["kernel"]["init_args"][0] == "--firecracker-init"
    assert facts["sched_rt_runtime_us"] == 950000
    assert facts["cpus"]["online"] == [0, 1]
    assert facts["cpus"]["count"] == 2
    assert facts["cpus"]["smt_siblings"] == [[0], [1]]
    assert facts["cpus"]["socket_count"] == 1
    assert facts["cpus"]["isolated"] == []
    assert facts["cpus"]["nohz_full"] == []
    assert facts["cpus"]["flags"]["pdpe1gb"] is True
    assert facts["cpus"]["virtualization"] == "none"
    assert facts["numa"]["node_count"] == 1
    assert facts["numa"]["nodes"][0]["cpus"] == [0, 1]
    assert sorted(facts["numa"]["nodes"][0]["hugepages"]) == ["1048576kB", "2048kB"]
    assert facts["hugepages"]["default_size_kb"] == 2048
    assert facts["hugepages"]["sizes"]["2048kB"]["total"] == 0
    assert facts["hugepages"]["mounts"] == [{"path": "/dev/hugepages", "pagesize_kb": 2048}]
    assert facts["thp"] == {"enabled": "madvise", "defrag": "madvise"}
    assert facts["iommu"]["enabled"] is False
    assert facts["kvm"]["device_present"] is True
    assert facts["rng"]["current"] == "virtio_rng.0"
    assert facts["rng"]["devices"] == {"random": True, "urandom": True, "hwrng": True}
    assert facts["kubevirt_labels"] == {}
    assert facts["realtime_ready"] is False
    # the capture holds no /sys/class/net, no /proc/<pid> and no clocksource directory
    assert facts["time_sync"] == {"interfaces": [], "daemons": None, "processes": None, "ptp_running": None,
                                  "synchronised_by": None,
                                  "clocksource": {"current": None, "available": None, "kvm_clock": None},
                                  "hardware_clock": False}
