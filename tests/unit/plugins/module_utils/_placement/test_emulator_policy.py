# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""``emulator: housekeeping | isolate | share`` in rt_domain_domains, placed before any change."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._placement.plan import plan_domains


def node(nodes, isolated):
    online = sorted(cpu for cpus in nodes.values() for cpu in cpus)
    return {"cpus": {"online": online, "isolated": sorted(isolated),
                     "housekeeping": [cpu for cpu in online if cpu not in isolated]},
            "numa": {"nodes": [{"id": nid, "cpus": cpus, "hugepages": {}} for nid, cpus in sorted(nodes.items())]}}


# node 0: housekeeping 0-1, isolated 2-5; node 1: housekeeping 6-7, isolated 8-11
TWO_NODES = node({0: [0, 1, 2, 3, 4, 5], 1: [6, 7, 8, 9, 10, 11]}, isolated=[2, 3, 4, 5, 8, 9, 10, 11])


def dom(name, vcpus=2, **extra):
    options = {"name": name, "vcpus": vcpus, "memory_mib": 64, "cpus": "auto", "realtime": {}}
    options.update(extra)
    return options


def placed(domains, defined=None, host=None):
    return dict((item["name"], item) for item in plan_domains(host or TWO_NODES, domains, defined=defined)["domains"])


def test_housekeeping_is_the_default():
    plan = placed([dom("a", 2)])
    assert plan["a"]["cpus"] == [2, 3] and plan["a"]["emulator_cpuset"] == "0-1"
    assert "emulator" not in plan["a"]["options"]  # placement's own key never reaches the module


def test_isolate_takes_one_more_isolated_cpu_of_the_node_no_one_else_gets():
    plan = placed([dom("a", 2, emulator="isolate"), dom("b", 1)])
    assert plan["a"]["cpus"] == [2, 3] and plan["a"]["emulator_cpuset"] == "4"
    assert plan["a"]["options"]["cpu"]["emulator_cpuset"] == "4"
    assert plan["b"]["cpus"] == [5]  # CPU 4 is a's emulator's


def test_isolate_moves_to_a_node_with_room_for_the_emulator_too():
    # x leaves node 0 three free isolated CPUs: 3 vCPUs fit there, 3 vCPUs and an emulator CPU do not
    assert placed([dom("x", 1, cpus="2"), dom("a", 3)])["a"]["cpus"] == [3, 4, 5]
    plan = placed([dom("x", 1, cpus="2"), dom("a", 3, emulator="isolate")])
    assert (plan["a"]["numa_node"], plan["a"]["cpus"], plan["a"]["emulator_cpuset"]) == (1, [8, 9, 10], "11")


def test_isolate_that_no_node_can_satisfy_names_the_count():
    with pytest.raises(OptionError) as error:
        placed([dom("a", 4, emulator="isolate")], host=node({0: [0, 1, 2, 3, 4, 5]}, isolated=[2, 3, 4, 5]))
    text = str(error.value)
    assert text.startswith("rt_domain_domains[0] (a).cpus=")
    assert "4 vCPUs and an emulator CPU of their own (emulator: isolate) need 5 free isolated CPUs" in text
    assert "node 0: 4 free (2-5)" in text


def test_isolate_with_an_explicit_cpu_set_takes_the_next_free_cpu_of_its_node():
    plan = placed([dom("x", 2, cpus="8-9", emulator="isolate"), dom("a", 1, numa_node=1)])
    assert plan["x"]["emulator_cpuset"] == "10"
    assert plan["a"]["cpus"] == [11]  # CPU 10 is x's emulator's
    with pytest.raises(OptionError) as error:
        placed([dom("x", 4, cpus="2-5", emulator="isolate")])
    assert str(error.value).startswith("rt_domain_domains[0] (x).emulator='isolate': node 0 has no free isolated "
                                       "CPU left for the emulator: its isolated CPUs 2-5 are all taken")


def test_an_isolated_emulator_of_a_defined_domain_stays_taken():
    defined = [{"name": "old", "realtime": {"vcpus": [0]}, "pinning": [{"vcpu": 0, "cpus": [2]}], "emulator_cpus": [3]}]
    assert placed([dom("a", 2)], defined)["a"]["cpus"] == [4, 5]
    # a housekeeping emulator CPU is shared by design and takes nothing
    defined[0]["emulator_cpus"] = [0, 1]
    assert placed([dom("a", 2)], defined)["a"]["cpus"] == [3, 4]


def test_a_re_run_keeps_the_vcpus_and_the_emulator():
    first = placed([dom("a", 2, emulator="isolate")])["a"]
    defined = [{"name": "a", "realtime": {"vcpus": [0, 1]}, "emulator_cpus": [4],
                "pinning": [{"vcpu": 0, "cpus": [2]}, {"vcpu": 1, "cpus": [3]}]}]
    again = placed([dom("a", 2, emulator="isolate")], defined)["a"]
    assert again["kept"] is True
    assert (again["cpus"], again["emulator_cpuset"]) == (first["cpus"], first["emulator_cpuset"]) == ([2, 3], "4")


def test_share_puts_the_emulator_on_the_cpus_of_the_vcpus_outside_the_mask():
    plan = placed([dom("a", 3, emulator="share", realtime={"mask": "^0"})])
    assert plan["a"]["cpus"] == [2, 3, 4] and plan["a"]["emulator_cpuset"] == "2"
    pinned = placed([dom("p", 2, cpus=None, emulator="share", realtime={"mask": "1"},
                         cpu={"pinning": [{"vcpu": 0, "cpuset": "9"}, {"vcpu": 1, "cpuset": "10"}]})])
    assert pinned["p"]["options"]["cpu"]["emulator_cpuset"] == "9"


@pytest.mark.parametrize("entry, message", [
    (dom("a", 2, emulator="share"), "rt_domain_domains[0] (a).emulator='share': realtime.mask makes every vCPU "
                                    "real-time"),
    (dom("a", 2, emulator="share", realtime=None), "rt_domain_domains[0] (a).emulator='share': share needs a real-time"),
    (dom("a", 2, emulator="dedicated"), "rt_domain_domains[0] (a).emulator='dedicated': not an emulator policy"),
    (dom("a", 2, emulator="isolate", cpu={"emulator_cpuset": "0"}),
     "rt_domain_domains[0] (a).emulator='isolate': cpu.emulator_cpuset already places the emulator"),
    (dom("a", 2, cpus=None, emulator="isolate"), "rt_domain_domains[0] (a).emulator='isolate': isolate needs the vCPUs placed"),
])
def test_bad_emulator_policies_are_refused(entry, message):
    with pytest.raises(OptionError) as error:
        placed([entry])
    assert str(error.value).startswith(message)


def test_the_cachetune_groups_of_all_domains_fit_the_hosts_classes_of_service():
    host = dict(TWO_NODES, resctrl={"mounted": True, "resources": {
        "L3": {"cbm_mask": 0x7ff, "min_cbm_bits": 1, "num_closids": 4}, "MB": {"num_closids": 8}}})
    group = {"vcpus": "0", "caches": [{"id": 0, "size": 2, "unit": "MiB"}]}
    fits = [dom("a", 1, cachetune=[group]), dom("b", 1, cachetune=[group, dict(group, vcpus="0")])]
    assert len(plan_domains(host, fits)["domains"]) == 2  # 3 groups, 4 classes less the default's
    with pytest.raises(OptionError) as error:
        plan_domains(host, fits + [dom("c", 1, cachetune=[group])])
    assert str(error.value).startswith("rt_domain_domains='a: 1, b: 2, c: 1': the domains ask 4 cachetune groups "
                                       "together, but the host has 4 classes of service")
    # without resctrl facts (or not mounted) the module's own check is the one that speaks
    assert len(plan_domains(TWO_NODES, fits + [dom("c", 1, cachetune=[group])])["domains"]) == 3


@pytest.mark.parametrize("mask", [0, "0"])
def test_share_reads_a_mask_of_0_as_vcpu_0_whether_yaml_gives_an_integer_or_a_string(mask):
    # vCPU 0 real-time, vCPU 1 not: the emulator shares vCPU 1's host CPU
    plan = placed([dom("a", 2, emulator="share", realtime={"mask": mask})])
    assert plan["a"]["cpus"] == [2, 3] and plan["a"]["emulator_cpuset"] == "3"
