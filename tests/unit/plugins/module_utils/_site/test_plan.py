# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""The whole-host plan: every stage checked first, every problem listed, what rt_host is handed."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

import qat_trees
import rt_node_trees

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._node.gather import gather_node_facts
from ansible_collections.realtime.virt.plugins.module_utils._qat.gather import gather_qat
from ansible_collections.realtime.virt.plugins.module_utils._site.plan import problems_message, sriov_needs_iommu
from ansible_collections.realtime.virt.plugins.module_utils._site import plan as site_plan
from ansible_collections.realtime.virt.plugins.action.rt_host_plan import fill_role_defaults
from ansible_collections.realtime.virt.plugins.modules.rt_host_plan import STAGES

QAT_C62X = {"pfs": [], "kernel_args": ["intel_iommu=on", "iommu=pt", "vfio-pci.disable_denylist=1"]}
NIC = "0000:3b:00.0"
QAT_PF = "0000:6b:00.0"


def plan_host(facts, stages, **kwargs):
    """plan_host as rt_host_plan calls it: the options a test leaves out are its roles' defaults."""
    filled = fill_role_defaults(stages)
    return site_plan.plan_host(facts, dict((stage, filled[stage]) for stage in STAGES), **kwargs)


@pytest.fixture
def fresh(tmp_path):
    """A fresh 4-CPU, one-node host (nothing isolated, no hugepages) with an SR-IOV NIC of 8 VFs."""
    root = rt_node_trees.build_shape(str(tmp_path), "test_host", cores_per_socket=4)
    tree = qat_trees.PciTree(root)
    tree.add_pf(NIC, "1593", "1889", 8, driver="ice")
    return root


def plan(root, **stages):
    facts = gather_node_facts(root)[0]
    qat = gather_qat(root)[0]
    return plan_host(facts, stages, qat=qat, reader=HostReader(root), inventory=["localhost", "vm1"])


@pytest.mark.parametrize("pfs, driver, expected", [
    ([], "vfio-pci", False),
    ([{"pf": NIC, "count": 2}], "vfio-pci", True),
    ([{"pf": NIC, "count": 2, "driver": ""}], "vfio-pci", True),
    ([{"pf": NIC, "count": 2, "driver": "iavf"}], "vfio-pci", False),
    ([{"pf": NIC, "count": 2}], "iavf", False),
    ([{"pf": NIC, "count": 2}, {"pf": "0000:3b:00.1", "count": 1, "driver": "vfio-pci"}], "iavf", True),
    ([{"pf": NIC, "count": 2}], None, True),
])
def test_vfio_vfs_need_the_iommu(pfs, driver, expected):
    assert sriov_needs_iommu(pfs, driver) is expected


def test_a_valid_host_plan_hands_rt_host_every_stage(hosts):
    result, problems = plan_host(
        hosts["two_socket_smt"],
        {"rt_host": {"isolated_cpus": "2-15,18-31", "kernel_args_extra": ["nmi_watchdog=0", "iommu=pt"]},
         "hugepages": {"pages": [{"size": "1G", "count": 4, "node": 0}, {"size": "2M", "count": 64, "node": 1}]}},
        qat=QAT_C62X)
    assert problems == []
    assert result["hugepages_kernel_args"] == ["hugepagesz=1G", "hugepages=0:4"]
    assert result["kernel_args_extra"] == ["nmi_watchdog=0", "iommu=pt", "intel_iommu=on", "vfio-pci.disable_denylist=1"]
    assert result["iommu"] is False
    assert result["isolated_cpuset"] == "2-15,18-31"
    assert result["kernel_args"][:5] == ["isolcpus=managed_irq,domain,2-15,18-31", "nohz=on", "nohz_full=2-15,18-31",
                                         "rcu_nocbs=2-15,18-31", "irqaffinity=0-1,16-17"]
    assert result["kernel_args"][-6:] == ["hugepagesz=1G", "hugepages=0:4", "nmi_watchdog=0", "iommu=pt", "intel_iommu=on",
                                          "vfio-pci.disable_denylist=1"]


def test_the_inventory_iommu_is_only_ever_turned_on(fresh):
    assert plan(fresh, rt_host={"iommu": True})[0]["iommu"] is True
    assert plan(fresh, sriov={"pfs": [{"pf": NIC, "count": 1}]})[0]["iommu"] is True
    assert plan(fresh)[0]["iommu"] is False


def test_every_problem_of_every_stage_is_listed(fresh):
    result, problems = plan(
        fresh,
        rt_host={"isolated_cpus": "1-9"},
        hugepages={"pages": [{"size": "3M", "count": 1}]},
        sriov={"pfs": [{"pf": "0000:7f:00.0", "count": 2}, {"pf": NIC, "count": 9}, {"pf": NIC, "count": 1},
                       {"pf": "3b:00.1", "count": 1}]},
        qat={"pfs": ["0000:6b:00.0"], "services": "crypto"},
        rt_domain={"domains": [{"name": "plc", "vcpus": 8, "memory_mib": 64, "cpus": "auto", "qat_vfs": 1}],
                   "allow_unisolated": True},
        rt_validate={"guests": ["vm9"]},
    )
    assert problems == [
        "rt_host_isolated_cpus='1-9': CPU(s) 4-9 are not online on this host (online: 0-3). Fix: isolate only online CPUs",
        "hugepages_pages[0].size='3M': this host has no 3M hugepages (it supports 2M, 1G). Fix: choose one of 2M, 1G",
        "sriov_pfs[0].pf='0000:7f:00.0': PCI device 0000:7f:00.0 does not exist on this host (no "
        "/sys/bus/pci/devices/0000:7f:00.0). Fix: check the address with 'lspci -D'",
        "sriov_pfs[1].count=9: more than %s supports (sriov_totalvfs=8). Fix: give at most 8 or 'max'" % NIC,
        "sriov_pfs[2].pf='%s': %s is listed twice (also sriov_pfs[1]). Fix: give each PF one entry with its count "
        "and driver" % (NIC, NIC),
        "sriov_pfs[3].pf='3b:00.1': not a PCI address. Fix: give domain:bus:device.function as 'lspci -D' prints it, "
        "e.g. 0000:6b:00.0",
        "qat_pfs[0]='0000:6b:00.0': not a QAT physical function of this host (it has none). Fix: list only the "
        "addresses qat_vf_info reports, or leave qat_pfs empty",
        "qat_services='crypto': names the unknown service 'crypto'. Fix: use sym, asym, dc, dcc joined by ';', e.g. 'sym;asym'",
        "rt_domain_domains (plc).qat_vfs='> 0': this host has no QAT physical function, so no QAT VF can be given to a "
        "domain. Fix: set qat_vfs: 0 for domains on this host, or run them on a host with QAT",
        "rt_domain_domains[0] (plc).cpus='auto': 8 vCPUs need 8 free online (rt_domain_allow_unisolated) CPUs on one "
        "NUMA node, short: node 0: 3 free (1-3). Fix: lower vcpus, remove or shrink other domains (CPUs in use: none), "
        "or isolate more CPUs with realtime.virt.rt_host",
    ]
    assert result["iommu"] is True
    assert problems_message(problems).startswith(
        "the plan refuses this host: 10 problem(s) found before any change, nothing was changed:\n- rt_host_isolated_cpus=")


def test_an_unknown_guest_is_a_problem_of_its_own(fresh):
    _result, problems = plan(fresh, rt_validate={"guests": ["vm1", "vm1"]})
    assert problems == ["rt_validate_guests[1]='vm1': guest vm1 is listed twice. Fix: give it once (with all its "
                        "CPUs in cpus)"]


@pytest.mark.parametrize("reboot, problem", [
    ("auto", None),
    ("force", None),
    ("never", "this host has no isolated CPUs, so there is nowhere to place real-time vCPUs"),
])
def test_domains_are_placed_on_the_cpus_rt_host_will_isolate_when_it_reboots(fresh, reboot, problem):
    result, problems = plan(fresh, rt_host={"reboot": reboot},
                            rt_domain={"domains": [{"name": "plc", "vcpus": 2, "memory_mib": 64, "cpus": "auto"}]})
    if problem is None:
        assert problems == []
        assert result["domains"] == [{"name": "plc", "placement": "auto", "numa_node": 0, "cpuset": "1-2",
                                      "emulator_cpuset": "0"}]
    else:
        assert len(problems) == 1 and problem in problems[0]


@pytest.mark.parametrize("pages, problem", [
    ([{"size": "2M", "count": 64, "node": 0}], None),
    ([{"size": "2M", "count": 16, "node": 0}], "domain plc needs 32 hugepages of 2048 KiB on NUMA node 0 (0 for the "
                                               "domains placed there before it and not running yet), the node has 16 free"),
    ([], "the node has 0 free"),
])
def test_domain_hugepages_are_checked_against_the_pools_the_hugepages_stage_will_give(fresh, pages, problem):
    _result, problems = plan(fresh, rt_host={"reboot": "auto"}, hugepages={"pages": pages},
                             rt_domain={"domains": [{"name": "plc", "vcpus": 1, "memory_mib": 64, "cpus": "auto",
                                                     "memory": {"hugepages": {"page_size": "2M"}}}]})
    if problem is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problem in problems[0], problems


@pytest.mark.parametrize("check, refused, warned", [("fail", True, False), ("warn", False, True), ("ignore", False, False)])
def test_the_hugepage_check_is_the_one_the_stage_gives(fresh, check, refused, warned):
    result, problems = plan(fresh, rt_host={"reboot": "auto"}, hugepages={"pages": []},
                            rt_domain={"hugepage_check": check,
                                       "domains": [{"name": "plc", "vcpus": 1, "memory_mib": 64, "cpus": "auto",
                                                    "memory": {"hugepages": {"page_size": "2M"}}}]})
    assert bool(problems) is refused, problems
    assert any("the node has 0 free" in warning for warning in result["warnings"]) is warned, result["warnings"]


@pytest.mark.parametrize("duration, problem", [
    (None, None),                                   # the role's default
    (30, None),
    ("soon", "rt_validate_duration='soon'"),
    (0, "rt_validate_duration=0"),
])
def test_the_guests_are_planned_with_the_stages_duration(fresh, duration, problem):
    stage = {"guests": ["vm1"]}
    if duration is not None:
        stage["duration"] = duration
    _result, problems = plan(fresh, rt_validate=stage)
    if problem is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problems[0].startswith(problem), problems


@pytest.mark.parametrize("qat_stage, problem", [
    ({"pfs": [QAT_PF]}, None),                      # numvfs left at the role's default, max
    ({"pfs": [QAT_PF], "numvfs": 16}, None),
    ({"pfs": [QAT_PF], "numvfs": 17}, "qat_numvfs=17: outside 0 to 16"),
    ({"pfs": [QAT_PF], "numvfs": 2, "numvfs_per_pf": {QAT_PF: 20}}, "qat_numvfs_per_pf[%s]=20: outside 0 to 16" % QAT_PF),
])
def test_qat_vf_counts_are_the_stages(fresh, qat_stage, problem):
    qat = {"pfs": [{"pci_address": QAT_PF, "sriov_totalvfs": 16}], "kernel_args": []}
    _result, problems = plan_host(gather_node_facts(fresh)[0], {"qat": qat_stage}, qat=qat)
    if problem is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problems[0].startswith(problem), problems


def test_a_stage_list_of_the_wrong_type_is_refused(fresh):
    _result, problems = plan(fresh, sriov={"pfs": NIC})
    assert problems == ["sriov_pfs='%s': not a list. Fix: give a list such as [{pf: '0000:3b:00.0', count: 4}]" % NIC]
    with pytest.raises(OptionError):
        sriov_needs_iommu(NIC)


def _with_nic(facts, **entry):
    """``facts`` with one network interface in time_sync, as rt_node_facts reports it from the kernel."""
    nic = dict({"name": "ens1f0", "hardware_transmit": False, "hardware_receive": False, "hardware_raw_clock": False,
                "software_transmit": True, "software_receive": True, "phc_index": None}, **entry)
    return dict(facts, time_sync={"interfaces": [nic]})


def test_ptp_input_is_refused_with_the_other_stages_problems(fresh):
    facts = _with_nic(gather_node_facts(fresh)[0])
    _result, problems = plan_host(facts, {"hugepages": {"pages": [{"size": "3M", "count": 1}]},
                                          "ptp": {"interfaces": ["eth7", "ens1f0"], "profile": "g8275.1",
                                                  "domain": 60}})
    ptp = [problem for problem in problems if problem.startswith("ptp_")]
    assert any("hugepages" in problem for problem in problems)
    assert len(ptp) == 3
    assert "ptp_interfaces: 'eth7' is not a network interface of this host (it has: ens1f0)" in ptp[0]
    assert "'ens1f0' has no hardware timestamping" in ptp[1]
    assert "ptp_domain=60 is outside the g8275.1 profile's domains 24-43" in ptp[2]


def test_ptp_is_planned_on_the_cpus_rt_host_leaves(fresh):
    facts = _with_nic(gather_node_facts(fresh)[0], hardware_transmit=True, hardware_receive=True,
                      hardware_raw_clock=True, phc_index=0)
    _result, problems = plan_host(facts, {"rt_host": {"isolated_cpus": "1-3"}, "ptp": {"interfaces": ["ens1f0"]}})
    assert problems == []
    _result, problems = plan_host(facts, {"rt_host": {"isolated_cpus": "1-3"},
                                          "ptp": {"interfaces": ["ens1f0"], "cpus": "0-1"}})
    assert problems == ["ptp_cpus='0-1' includes the isolated CPUs 1, where PTP daemons disturb the real-time vCPUs "
                        "and are themselves delayed. Fix: name housekeeping CPUs only (0), or auto"]


def test_no_ptp_interfaces_no_ptp_plan(fresh):
    facts = gather_node_facts(fresh)[0]
    assert plan_host(facts, {"ptp": {"interfaces": [], "profile": "nonsense"}})[1] == []
