# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""The isolation checks of rt_validate on fixture trees: each passes, fails naming its evidence, or skips saying why."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

import rt_node_trees

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._node.gather import gather_node_facts
from ansible_collections.realtime.virt.plugins.module_utils._validate.isolation import (
    isolated_set,
    isolation_checks,
    tuned_verify_check,
)
from ansible_collections.realtime.virt.plugins.modules.rt_isolation_info import read

# A tuned 4-CPU host: CPUs 2-3 isolated, nohz_full and rcu_nocbs, irqaffinity=0-1.
TUNED = {"cores_per_socket": 4, "isolated": "2-3", "nohz_full": "2-3", "irq_default_affinity": "0-1",
         "cmdline": "ro isolcpus=managed_irq,domain,2-3 nohz_full=2-3 rcu_nocbs=2-3 irqaffinity=0-1",
         "tuned_active": "realtime-virtual-host", "thp_enabled": "always madvise [never]", "ksm_run": "2"}


def host(tmp_path, **overrides):
    """``(isolation as Ansible hands it over, rt_node facts)`` of a fixture tree."""
    root = rt_node_trees.build(str(tmp_path), rt_node_trees.shape("test_host", **dict(TUNED, **overrides)))
    result, _warnings = read({"root": root, "sysctls": [], "pfs": [], "reboot_marker": "/run/x"})
    return json.loads(json.dumps(result["isolation"])), gather_node_facts(root)[0]


def run(tmp_path, judge=None, tuned_verify=None, **overrides):
    info, facts = host(tmp_path, **overrides)
    return dict(((item["subject"], item["check"]), item)
                for item in isolation_checks(info, facts, isolated=judge, tuned_verify=tuned_verify))


ISO = "isolated CPUs 2-3"


def test_a_tuned_host_passes(tmp_path):
    verified = {"rc": 0, "stdout": "Verification succeeded, current system settings match the preset profile."}
    checks = run(tmp_path, tuned_verify=verified)
    statuses = dict((key, item["status"]) for key, item in checks.items())
    assert statuses == {
        (ISO, "interrupts"): "pass", (ISO, "default IRQ affinity"): "pass", (ISO, "workqueue cpumask"): "pass",
        (ISO, "ksoftirqd/N scheduling"): "pass", (ISO, "ktimers/N scheduling"): "skip",
        (ISO, "rcuc/N scheduling"): "skip", (ISO, "housekeeping threads"): "pass", (ISO, "nohz_full"): "pass",
        (ISO, "rcu_nocbs"): "pass", ("host", "transparent hugepages"): "pass", ("host", "KSM"): "pass",
        ("host", "tuned-adm verify"): "pass"}
    assert checks[(ISO, "interrupts")]["observed"] == "5 IRQs, none on CPUs 2-3"
    assert checks[(ISO, "ksoftirqd/N scheduling")]["expected"] == \
        "SCHED_FIFO priority 2 (tuned realtime-virtual-host group.ksoftirqd)"
    assert checks[(ISO, "ksoftirqd/N scheduling")]["observed"] == "2 thread(s), all SCHED_FIFO 2"
    assert "only PREEMPT_RT kernels" in checks[(ISO, "ktimers/N scheduling")]["message"]


def test_no_isolated_cpu_skips_saying_why(tmp_path):
    checks = run(tmp_path, **{"isolated": "", "nohz_full": None, "cmdline": "ro"})
    item = checks[("isolated CPUs", "CPU isolation")]
    assert item["status"] == "skip"
    assert "no CPU is isolated" in item["message"] and "realtime.virt.rt_host" in item["message"]
    assert not [key for key in checks if key[0].startswith("isolated CPUs ")]


def test_interrupt_on_an_isolated_cpu_fails_naming_irq_and_device(tmp_path):
    irqs = [{"irq": 4, "names": ["ttyS0"], "affinity": [0, 1], "effective": [0]},
            {"irq": 40, "names": ["eth1-rx-0"], "pci": "0000:3b:00.0", "affinity": [3], "effective": [3],
             "counts": {3: 4711}},
            {"irq": 41, "names": ["nvme0q3"], "pci": "0000:5e:00.0", "affinity": [2], "effective": [2], "managed": True}]
    item = run(tmp_path, irqs=irqs)[(ISO, "interrupts")]
    assert item["status"] == "fail"
    assert item["observed"] == "IRQ 40 (eth1-rx-0, PCI 0000:3b:00.0) on CPU 3 (affinity 3, 4711 interrupts there)"
    assert "echo 0-1 > /proc/irq/40/smp_affinity_list" in item["message"]
    assert "nvme0q3" not in item["message"]  # managed: the kernel's own to place


def test_interrupt_unknown_managed_is_a_warning(tmp_path):
    irqs = [{"irq": 41, "names": ["nvme0q3"], "pci": "0000:5e:00.0", "affinity": [2], "effective": [2], "managed": True}]
    item = run(tmp_path, irqs=irqs, irq_read_only_marks=False)[(ISO, "interrupts")]
    assert item["status"] == "warn"
    assert item["observed"].startswith("possibly kernel-managed: IRQ 41 (nvme0q3, PCI 0000:5e:00.0) on CPU 2")
    assert "debugfs" in item["message"]


def test_interrupts_skip_without_proc_irq(tmp_path):
    assert run(tmp_path, irqs=[])[(ISO, "interrupts")]["status"] == "skip"


@pytest.mark.parametrize("overrides, name, observed", [
    ({"irq_default_affinity": "0-3"}, "default IRQ affinity", "/proc/irq/default_smp_affinity: 0-3"),
    ({"workqueue_cpumask": "0-2"}, "workqueue cpumask", "/sys/devices/virtual/workqueue/cpumask: 0-2"),
])
def test_masks_fail_naming_the_isolated_cpus_they_hold(tmp_path, overrides, name, observed):
    item = run(tmp_path, **overrides)[(ISO, name)]
    assert item["status"] == "fail"
    assert item["observed"] == observed
    assert "includes isolated CPU(s) 2" in item["message"]


def test_workqueue_mask_skips_where_the_kernel_has_none(tmp_path):
    item = run(tmp_path, workqueue_cpumask="")[(ISO, "workqueue cpumask")]
    assert item["status"] == "skip"
    assert "cannot be read" in item["observed"]


def test_housekeeping_and_kthread_cpus_masks_where_present(tmp_path):
    info, facts = host(tmp_path)
    info["masks"].append({"name": "housekeeping kthread", "path": "/sys/kernel/housekeeping/kthread", "cpus": [0, 3]})
    info["masks"].append({"name": "kthread_cpus", "path": "/proc/cmdline", "cpus": [0, 1]})
    checks = dict((item["check"], item) for item in isolation_checks(info, facts))
    assert checks["housekeeping kthread"]["status"] == "fail"
    assert "includes isolated CPU(s) 3" in checks["housekeeping kthread"]["message"]
    assert checks["kthread_cpus"]["status"] == "pass"


def test_per_cpu_thread_at_the_wrong_policy_fails_naming_it(tmp_path):
    item = run(tmp_path, kthread_sched={"ksoftirqd/3": (0, 0)})[(ISO, "ksoftirqd/N scheduling")]
    assert item["status"] == "fail"
    assert item["observed"] == "ksoftirqd/3 SCHED_OTHER priority 0 (pid 16)"
    assert "not SCHED_FIFO priority 2 (tuned realtime-virtual-host group.ksoftirqd)" in item["message"]
    wrong_priority = run(tmp_path / "prio", kthread_sched={"ksoftirqd/2": (1, 5)})[(ISO, "ksoftirqd/N scheduling")]
    assert wrong_priority["status"] == "fail"
    assert wrong_priority["observed"].startswith("ksoftirqd/2 SCHED_FIFO priority 5")


def test_per_cpu_threads_of_preempt_rt(tmp_path):
    checks = run(tmp_path, realtime=True, kthread_sched={"rcuc/2": (1, 1)})
    assert checks[(ISO, "ktimers/N scheduling")]["status"] == "pass"
    rcuc = checks[(ISO, "rcuc/N scheduling")]
    assert rcuc["status"] == "fail"
    assert rcuc["observed"].startswith("rcuc/2 SCHED_FIFO priority 1")
    assert "SCHED_FIFO priority 4" in rcuc["expected"]


@pytest.mark.parametrize("overrides, reason", [
    ({"tuned_active": None}, "no tuned profile is active (/etc/tuned/active_profile is empty or missing)"),
    ({"tuned_active": None, "tuned_profiles": {}}, "tuned is not installed"),
    ({"tuned_active": "network-latency"}, "sets no policy for ksoftirqd/N"),
    ({"tuned_active": "gone"}, "tuned profile 'gone' is not in"),
])
def test_per_cpu_threads_skip_when_no_tuned_profile_sets_them(tmp_path, overrides, reason):
    item = run(tmp_path, **overrides)[(ISO, "ksoftirqd/N scheduling")]
    assert item["status"] == "skip"
    assert reason in item["message"]


def test_housekeeping_thread_on_an_isolated_cpu_fails_naming_it(tmp_path):
    item = run(tmp_path, kthread_cpus={"kswapd0": "0-3"})[(ISO, "housekeeping threads")]
    assert item["status"] == "fail"
    assert item["observed"] == "kswapd0 (pid 18) may run on 0-3"
    assert "taskset -pc 0-1" in item["message"]
    assert run(tmp_path / "none", kthreads=[])[(ISO, "housekeeping threads")]["status"] == "skip"


def test_nohz_full_and_rcu_nocbs(tmp_path):
    checks = run(tmp_path, nohz_full="2", cmdline="ro isolcpus=2-3 nohz_full=2")
    # isolated is the kernel's isolated and nohz_full CPUs: 2-3
    assert checks[(ISO, "nohz_full")]["status"] == "fail"
    assert "CPU(s) 3 are not in nohz_full (nohz_full 2)" in checks[(ISO, "nohz_full")]["message"]
    assert checks[(ISO, "rcu_nocbs")]["status"] == "fail"
    assert checks[(ISO, "rcu_nocbs")]["observed"] == "rcu_nocbs none, nohz_full 2"
    skipped = run(tmp_path / "old", nohz_full=None, cmdline="ro isolcpus=2-3 rcu_nocbs=2-3")
    assert skipped[(ISO, "nohz_full")]["status"] == "skip"
    assert "built without NO_HZ_FULL" in skipped[(ISO, "nohz_full")]["message"]
    assert skipped[(ISO, "rcu_nocbs")]["status"] == "pass"


@pytest.mark.parametrize("overrides, name, status, words", [
    ({"thp_enabled": "[always] madvise never"}, "transparent hugepages", "fail", "transparent hugepages are always"),
    ({"omit": ("/sys/kernel/mm/transparent_hugepage/enabled",)}, "transparent hugepages", "skip", ""),
    ({"ksm_run": "1"}, "KSM", "fail", "KSM runs (run=1)"),
    ({"omit": ("/sys/kernel/mm/ksm/run",)}, "KSM", "skip", ""),
])
def test_thp_and_ksm(tmp_path, overrides, name, status, words):
    item = run(tmp_path, **overrides)[("host", name)]
    assert item["status"] == status
    assert words in item["message"]


def test_thp_and_ksm_as_the_caller_allows(tmp_path):
    info, facts = host(tmp_path, thp_enabled="[always] madvise never", ksm_run="1")
    found = isolation_checks(info, facts, thp_allowed=["always"], ksm_allowed=[1])
    checks = dict((item["check"], item) for item in found)
    assert checks["transparent hugepages"]["status"] == "pass"
    assert checks["KSM"]["status"] == "pass"


def test_explicit_isolated_cpus_judge_an_untuned_host(tmp_path):
    untuned = {"isolated": "", "nohz_full": None, "cmdline": "ro", "irq_default_affinity": None, "tuned_active": None}
    checks = run(tmp_path, judge="1", **untuned)
    subject = "isolated CPUs 1"
    assert checks[(subject, "default IRQ affinity")]["status"] == "fail"
    assert checks[(subject, "workqueue cpumask")]["status"] == "fail"
    assert checks[(subject, "housekeeping threads")]["status"] == "fail"


@pytest.mark.parametrize("value, words", [
    ("1-x", "rt_validate_isolated_cpus='1-x'"),
    ("7", "are not online (online: 0-3)"),
    ("0-3", "leaving none for the host"),
    ("^1", "rt_validate_isolated_cpus='^1'"),
])
def test_explicit_isolated_cpus_refused_clearly(tmp_path, value, words):
    _info, facts = host(tmp_path)
    with pytest.raises(OptionError) as error:
        isolated_set(facts, value)
    assert words in str(error.value)
    assert "Fix:" in str(error.value)


@pytest.mark.parametrize("result, active, status, words", [
    (None, ["realtime-virtual-host"], "skip", "tuned is not installed"),
    ({"skipped": True}, ["realtime-virtual-host"], "skip", "tuned is not installed"),
    ({"rc": 1, "stdout": "No current active profile."}, [], "skip", "names no profile"),
    ({"rc": 1, "stderr": "Cannot talk to TuneD daemon via DBus. Is TuneD daemon running?"}, ["x"], "skip",
     "daemon does not answer"),
    ({"rc": 0, "stdout": "Verification succeeded, current system settings match the preset profile."}, ["x"], "pass",
     ""),
    ({"rc": 1, "stdout": "Verification failed, current system settings differ from the preset profile.\n"
                         "You can mostly fix this by restarting the TuneD daemon"}, ["x"], "fail",
     "tuned-adm verify failed for profile x (rc 1): Verification failed, current system settings differ from the "
     "preset profile. / You can mostly fix this by restarting the TuneD daemon"),
])
def test_tuned_adm_verify(result, active, status, words):
    item = tuned_verify_check(result, {"active": active})
    assert item["status"] == status
    assert words in item["message"]
