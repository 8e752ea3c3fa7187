# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._placement.hugepages import hugepage_sizes
from ansible_collections.realtime.virt.plugins.module_utils._placement.plan import plan_domains, summary
from ansible_collections.realtime.virt.plugins.module_utils._placement.vfs import attach_vfs, free_vfs_per_node


def node(nodes, isolated, free_2m=512):
    """rt_node facts: nodes = {id: [cpus]}, isolated=[cpus]."""
    online = sorted(cpu for cpus in nodes.values() for cpu in cpus)
    return {
        "cpus": {"online": online, "isolated": sorted(isolated),
                 "housekeeping": [cpu for cpu in online if cpu not in isolated]},
        "numa": {"nodes": [{"id": nid, "cpus": cpus,
                            "hugepages": {"2048kB": {"size_kb": 2048, "free": free_2m, "total": free_2m},
                                          "1048576kB": {"size_kb": 1048576, "free": 0, "total": 0}}}
                           for nid, cpus in sorted(nodes.items())]},
    }


TWO_NODES = node({0: [0, 1, 2, 3, 4, 5], 1: [6, 7, 8, 9, 10, 11]}, isolated=[2, 3, 4, 5, 8, 9, 10, 11])
TEST_HOST = node({0: [0, 1]}, isolated=[], free_2m=16)


def dom(name, vcpus=2, **extra):
    options = {"name": name, "vcpus": vcpus, "memory_mib": 64, "cpus": "auto", "realtime": {}}
    options.update(extra)
    return options


def by_name(plan):
    return dict((item["name"], item) for item in plan["domains"])


def test_auto_places_on_isolated_cpus_of_one_node_with_emulator_on_housekeeping():
    plan = by_name(plan_domains(TWO_NODES, [dom("a", 3), dom("b", 2)]))
    assert plan["a"]["cpus"] == [2, 3, 4]
    assert plan["a"]["numa_node"] == 0
    assert plan["a"]["options"]["cpu"]["pinning"] == [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"},
                                                      {"vcpu": 2, "cpuset": "4"}]
    assert plan["a"]["emulator_cpuset"] == "0-1"
    assert plan["a"]["options"]["memory"]["numatune"] == {"mode": "strict", "nodeset": "0"}
    # only CPU 5 is left on node 0, so b goes to node 1
    assert plan["b"]["cpus"] == [8, 9]
    assert plan["b"]["numa_node"] == 1
    assert plan["b"]["emulator_cpuset"] == "6-7"
    assert "cpus" not in plan["a"]["options"]


@pytest.mark.parametrize("domains, defined, expected", [
    # CPUs of a domain libvirt already holds are not given again
    ([dom("a", 2)], [{"name": "other", "pinning": [{"vcpu": 0, "cpus": [2]}], "realtime": {"vcpus": [0]}}], [3, 4]),
    # a defined domain of the list keeps its placement (idempotent re-runs)
    ([dom("a", 2)], [{"name": "a", "running": True, "pinning": [{"vcpu": 0, "cpus": [4]}, {"vcpu": 1, "cpus": [5]}],
                      "realtime": {"vcpus": [0, 1]}}], [4, 5]),
    # ... unless it no longer fits (3 vCPUs now)
    ([dom("a", 3)], [{"name": "a", "pinning": [{"vcpu": 0, "cpus": [4]}, {"vcpu": 1, "cpus": [5]}]}], [2, 3, 4]),
    # numa_node restricts the node
    ([dom("a", 2, numa_node=1)], [], [8, 9]),
])
def test_auto_respects_defined_domains(domains, defined, expected):
    plan = plan_domains(TWO_NODES, domains, defined=defined)
    assert plan["domains"][0]["cpus"] == expected


def test_kept_placement_is_reported():
    defined = [{"name": "a", "pinning": [{"vcpu": 0, "cpus": [9]}, {"vcpu": 1, "cpus": [10]}]}]
    plan = plan_domains(TWO_NODES, [dom("a", 2)], defined=defined)
    assert plan["domains"][0]["kept"] is True
    assert plan["domains"][0]["numa_node"] == 1


def test_explicit_cpuset_pins_in_order_and_counts_as_taken():
    plan = by_name(plan_domains(TWO_NODES, [dom("x", 2, cpus="4-5"), dom("a", 3)]))
    assert plan["x"]["options"]["cpu"]["pinning"] == [{"vcpu": 0, "cpuset": "4"}, {"vcpu": 1, "cpuset": "5"}]
    assert plan["a"]["cpus"] == [8, 9, 10]


def test_vf_requests_follow_the_node():
    plan = plan_domains(TWO_NODES, [dom("a", 2, qat_vfs=2), dom("b", 1)], vf_free={0: 0, 1: 4})
    assert plan["vf_requests"] == [{"domain": "a", "count": 2, "numa_node": 1}]
    assert plan["domains"][0]["cpus"] == [8, 9]
    attached = attach_vfs(plan, {"a": ["0000:6b:00.1", "0000:6b:00.2"]})
    assert attached["domains"][0]["options"]["hostdevs"] == ["0000:6b:00.1", "0000:6b:00.2"]
    assert "hostdevs" not in plan["domains"][0]["options"]


def test_attach_vfs_fails_when_short():
    plan = plan_domains(TWO_NODES, [dom("a", 1, qat_vfs=2)])
    with pytest.raises(OptionError, match=r"\(a\)\.qat_vfs=2: the QAT selection gave 1 VFs"):
        attach_vfs(plan, {"a": ["0000:6b:00.1"]})


@pytest.mark.parametrize("domains, match", [
    ([dom("a", 1), dom("a", 1)], r"rt_domain_domains\[1\]\.name='a': the name is used twice \(also rt_domain_domains\[0\]\)"),
    ([dom("a", 1, qat_vfs=-1)], r"rt_domain_domains\[0\] \(a\)\.qat_vfs=-1: .*whole number"),
    ([dom("a", 1, qat_vfs=True)], r"\(a\)\.qat_vfs=True"),
    ([dom("a", 5)], r"\(a\)\.cpus='auto': 5 vCPUs need 5 free isolated CPUs on one NUMA node.*node 0: 4 free \(2-5\); "
                    r"node 1: 4 free \(8-11\)"),
    ([dom("a", 2, cpus="2")], r"\(a\)\.cpus='2': 1 CPUs for 2 vCPUs"),
    ([dom("a", 2, cpus="x")], r"\(a\)\.cpus='x': neither 'auto' nor a CPU set"),
    ([dom("a", 2, cpu={"pinning": [{"vcpu": 0, "cpuset": "1"}]})], r"cpus and cpu.pinning both place the vCPUs"),
    ([dom("a", 2, numa_node=7)], r"\(a\)\.numa_node=7: the host has no such NUMA node"),
    ([{"vcpus": 1}], r"rt_domain_domains\[0\]\.name=None"),
    ([dom("a", 4), dom("b", 4), dom("c", 1)], r"\(c\)\.cpus='auto': 1 vCPUs need 1 free.*node 0: 0 free"),
    ([dom("x", 2, cpus="2-3"), dom("y", 2, cpus="3-4")], r"\(y\)\.cpus='3-4': host CPU 3 already runs vCPUs of domain x"),
])
def test_bad_input_and_overcommit_fail_naming_variable_value_and_fix(domains, match):
    with pytest.raises(OptionError, match=match) as error:
        plan_domains(TWO_NODES, domains)
    assert "Fix:" in str(error.value)


def test_realtime_domain_may_not_share_a_cpu_with_a_defined_domain():
    defined = [{"name": "old", "pinning": [{"vcpu": 0, "cpus": [2]}]}]
    with pytest.raises(OptionError, match="host CPU 2 already runs vCPUs of domain old"):
        plan_domains(TWO_NODES, [dom("x", 1, cpus="2")], defined=defined)
    # two plain domains may share
    plain = {"name": "y", "vcpus": 1, "cpus": "2"}
    assert plan_domains(TWO_NODES, [plain], defined=defined)["domains"][0]["cpus"] == [2]


def test_no_isolated_cpus_fails_unless_allowed():
    with pytest.raises(OptionError, match="no isolated CPUs.*rt_domain_allow_unisolated: true"):
        plan_domains(TEST_HOST, [dom("a", 1)])
    plan = plan_domains(TEST_HOST, [dom("a", 1)], allow_unisolated=True)
    placed = plan["domains"][0]
    assert placed["cpus"] == [1]
    assert placed["emulator_cpuset"] == "0"
    assert "non-isolated CPUs 1" in plan["warnings"][0]
    with pytest.raises(OptionError, match=r"1 vCPUs need 1 free online \(rt_domain_allow_unisolated\) CPUs"):
        plan_domains(TEST_HOST, [dom("a", 1), dom("b", 1)], allow_unisolated=True)


def test_hugepage_shortfall_fails_warns_or_is_ignored():
    big = dom("a", 1, memory_mib=64, memory={"hugepages": {"page_size": "2M"}})  # 32 pages, 16 free
    with pytest.raises(OptionError, match=r"\(a\)\.memory\.hugepages=64: .*needs 32 hugepages of 2048 KiB on NUMA "
                       r"node 0 .* 16 free; short by 16"):
        plan_domains(TEST_HOST, [big], allow_unisolated=True)
    plan = plan_domains(TEST_HOST, [big], allow_unisolated=True, hugepages="warn")
    assert "short by 16" in plan["warnings"][-1]
    assert plan_domains(TEST_HOST, [big], allow_unisolated=True, hugepages="ignore")["warnings"][-1].find("short") < 0
    # a running domain already holds its pages
    running = [{"name": "a", "running": True, "pinning": [{"vcpu": 0, "cpus": [1]}]}]
    assert plan_domains(TEST_HOST, [big], defined=running, allow_unisolated=True)["domains"][0]["kept"]


def test_defaults_are_merged_under_each_domain():
    plan = plan_domains(TEST_HOST, [dom("a", 1, memory={"hugepages": {"page_size": "2M"}}, memory_mib=16)],
                        allow_unisolated=True, defaults={"domain_type": "qemu", "memory": {"locked": False}})
    options = plan["domains"][0]["options"]
    assert options["domain_type"] == "qemu"
    assert options["memory"]["locked"] is False
    assert options["memory"]["hugepages"] == {"page_size": "2M"}
    assert options["state"] == "running"
    assert hugepage_sizes(plan["domains"]) == [2048]
    assert summary(plan["domains"]) == "a: vCPUs on CPUs 1 (node 0, auto), emulator on 0"


def test_autostart_passes_through_to_the_module_options():
    """A domain's own autostart and a default one reach libvirt_rt_domains; a default skips absent domains."""
    plan = by_name(plan_domains(TEST_HOST, [dom("a", 1, autostart=False), dom("b", 1, cpus=None, realtime=None),
                                            {"name": "gone", "state": "absent"},
                                            {"name": "gone-too", "state": "absent", "autostart": True}],
                                allow_unisolated=True, defaults={"autostart": True}))
    assert plan["a"]["options"]["autostart"] is False
    assert plan["b"]["options"]["autostart"] is True
    assert "autostart" not in plan["gone"]["options"]
    assert plan["gone-too"]["options"]["autostart"] is True   # asked for by the domain itself: the module refuses it
    assert "autostart" not in by_name(plan_domains(TEST_HOST, [dom("c", 1)], allow_unisolated=True))["c"]["options"]


def test_absent_and_unplaced_domains_pass_through():
    plan = by_name(plan_domains(TWO_NODES, [{"name": "gone", "state": "absent", "cpus": "auto", "vcpus": 99},
                                            {"name": "plain", "vcpus": 1}]))
    assert plan["gone"]["placement"] == "absent"
    assert plan["plain"]["placement"] == "none"
    assert plan["plain"]["cpus"] == []


def test_not_rt_node_facts():
    with pytest.raises(OptionError, match="not rt_node facts"):
        plan_domains({}, [])


# ---- QAT VFs steer the node choice (vf_free) ---------------------------------------------------------
# node 0 has 6 free isolated CPUs, node 1 only 2
WIDE_NODE_0 = node({0: [0, 1, 2, 3, 4, 5, 6, 7], 1: [8, 9, 10, 11]}, isolated=[2, 3, 4, 5, 6, 7, 10, 11])
VFS = ([{"pci_address": "0000:6b:00.%d" % n, "numa_node": 0, "assignable": True} for n in range(1, 3)]
       + [{"pci_address": "0000:e8:00.%d" % n, "numa_node": 1, "assignable": True} for n in range(1, 4)])


def test_domain_with_vfs_lands_on_the_node_that_has_them_despite_fewer_cpus():
    plan = plan_domains(WIDE_NODE_0, [dom("a", 2, qat_vfs=2)], vf_free={0: 0, 1: 3})
    placed = by_name(plan)["a"]
    assert (placed["numa_node"], placed["cpus"]) == (1, [10, 11])
    assert plan["vf_requests"] == [{"domain": "a", "count": 2, "numa_node": 1}]
    # without vf_free the CPUs alone decide: node 0
    assert by_name(plan_domains(WIDE_NODE_0, [dom("a", 2, qat_vfs=2)]))["a"]["numa_node"] == 0


def test_string_node_keys_are_accepted():
    assert by_name(plan_domains(WIDE_NODE_0, [dom("a", 1, qat_vfs=1)], vf_free={"0": 0, "1": 1}))["a"]["numa_node"] == 1


def test_vfs_taken_by_earlier_domains_are_counted():
    # node 1 has 3 VFs: a takes 2, so b (1 VF) still fits there, c (2 VFs) fits nowhere
    plan = plan_domains(WIDE_NODE_0, [dom("a", 1, qat_vfs=2), dom("b", 1, qat_vfs=1)], vf_free={0: 0, 1: 3})
    assert [(d["name"], d["numa_node"]) for d in plan["domains"]] == [("a", 1), ("b", 1)]
    with pytest.raises(OptionError) as error:
        plan_domains(WIDE_NODE_0, [dom("a", 1, qat_vfs=2), dom("c", 1, qat_vfs=2)], vf_free={0: 0, 1: 3})
    message = str(error.value)
    assert message.startswith("rt_domain_domains[1] (c).cpus='auto': 1 vCPUs and 2 QAT VFs need 1 free isolated CPUs "
                              "and 2 free assignable VFs on one NUMA node")
    assert "node 0: 6 free CPUs (2-7), 0 free QAT VFs; node 1: 1 free CPUs (11), 1 free QAT VFs" in message
    assert "Fix: lower vcpus or qat_vfs" in message


def test_explicitly_pinned_domains_take_their_node_vfs_first():
    plan = plan_domains(WIDE_NODE_0, [dom("a", 1, qat_vfs=2), dom("x", 1, cpus="10", qat_vfs=2)],
                        vf_free={0: 2, 1: 2})
    assert by_name(plan)["a"]["numa_node"] == 0  # x holds node 1's two VFs


def test_overcommit_on_a_named_node_names_its_counts():
    with pytest.raises(OptionError, match=r"\(a\)\.cpus='auto': 2 vCPUs and 4 QAT VFs .* on one NUMA node \(node 1\)"
                       r".*short: node 1: 2 free CPUs \(10-11\), 3 free QAT VFs\. Fix:"):
        plan_domains(WIDE_NODE_0, [dom("a", 2, qat_vfs=4, numa_node=1)], vf_free={0: 8, 1: 3})


@pytest.mark.parametrize("vf_free, match", [
    ([1, 2], r"vf_free=\[1, 2\]: must map NUMA node ids"),
    ({"zero": 1}, r"'zero': 1 is not a node id"),
    ({0: "many"}, r"0: 'many' is not a node id with a whole VF count"),
])
def test_bad_vf_free_fails_naming_it(vf_free, match):
    with pytest.raises(OptionError, match=match):
        plan_domains(WIDE_NODE_0, [dom("a", 1, qat_vfs=1)], vf_free=vf_free)


@pytest.mark.parametrize("defined, keep, expected", [
    ([], None, {0: 2, 1: 3}),
    # another defined domain holds one VF on each node
    ([{"name": "old", "hostdevs": ["0000:6b:00.1", "0000:E8:00.3"]}], None, {0: 1, 1: 2}),
    # the domain being planned holds them: they stay free for it
    ([{"name": "a", "hostdevs": ["0000:6b:00.1"]}], ["a"], {0: 2, 1: 3}),
])
def test_free_vfs_per_node(defined, keep, expected):
    assert free_vfs_per_node(VFS, defined, keep) == expected


def test_free_vfs_per_node_reports_empty_nodes_and_unknown_node_vfs():
    vfs = VFS + [{"pci_address": "0000:f0:00.1", "numa_node": -1},
                 {"pci_address": "0000:f0:00.2", "numa_node": 1, "assignable": False}]
    assert free_vfs_per_node(vfs, nodes=[0, 1, 2]) == {0: 3, 1: 4, 2: 1}
    with pytest.raises(OptionError, match="without pci_address"):
        free_vfs_per_node([{"numa_node": 0}])
