# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.rt_domain import FilterModule

FILTERS = FilterModule().filters()
NODE = {"cpus": {"online": [0, 1, 2, 3], "isolated": [2, 3], "housekeeping": [0, 1]},
        "numa": {"nodes": [{"id": 0, "cpus": [0, 1, 2, 3], "hugepages": {}}]}}


def test_filters_are_exported():
    assert sorted(FILTERS) == ["rt_domain_attach_vfs", "rt_domain_hugepage_sizes", "rt_domain_node_after",
                               "rt_domain_placement", "rt_domain_summary", "rt_domain_vf_free"]


def test_placement_filter_places():
    plan = FILTERS["rt_domain_placement"](NODE, [{"name": "a", "vcpus": 2, "cpus": "auto", "realtime": {}}])
    assert plan["domains"][0]["cpuset"] == "2-3"
    assert plan["domains"][0]["emulator_cpuset"] == "0-1"
    assert FILTERS["rt_domain_summary"](plan["domains"]) == "a: vCPUs on CPUs 2-3 (node 0, auto), emulator on 0-1"


def test_placement_filter_errors_are_filter_errors():
    expected = r"rt_domain_placement: rt_domain_domains\[0\] \(a\)\.cpus='auto': 3 vCPUs need 3 free isolated CPUs"
    with pytest.raises(AnsibleFilterError, match=expected):
        FILTERS["rt_domain_placement"](NODE, [{"name": "a", "vcpus": 3, "cpus": "auto"}])


def test_attach_filter_errors_are_filter_errors():
    plan = FILTERS["rt_domain_placement"](NODE, [{"name": "a", "vcpus": 1, "cpus": "auto", "qat_vfs": 1}])
    assert plan["vf_requests"] == [{"domain": "a", "count": 1, "numa_node": 0}]
    with pytest.raises(AnsibleFilterError, match="rt_domain_attach_vfs: .*gave 0 VFs"):
        FILTERS["rt_domain_attach_vfs"](plan, {})


TWO = {"cpus": {"online": list(range(8)), "isolated": [2, 3, 4, 5, 6, 7], "housekeeping": [0, 1]},
       "numa": {"nodes": [{"id": 0, "cpus": [0, 1, 2, 3, 4, 5], "hugepages": {}},
                          {"id": 1, "cpus": [6, 7], "hugepages": {}}]}}
ASSIGNABLE = [{"pci_address": "0000:e8:00.%d" % n, "numa_node": 1, "assignable": True} for n in (1, 2)]


def test_vf_free_steers_a_qat_domain_to_the_node_with_vfs():
    free = FILTERS["rt_domain_vf_free"](ASSIGNABLE, [], keep=["a"], nodes=[0, 1])
    assert free == {0: 0, 1: 2}
    plan = FILTERS["rt_domain_placement"](TWO, [{"name": "a", "vcpus": 2, "cpus": "auto", "qat_vfs": 2}], vf_free=free)
    assert (plan["domains"][0]["numa_node"], plan["domains"][0]["cpuset"]) == (1, "6-7")
    attached = FILTERS["rt_domain_attach_vfs"](plan, {"a": ["0000:e8:00.1", "0000:e8:00.2"]})
    assert attached["domains"][0]["options"]["hostdevs"] == ["0000:e8:00.1", "0000:e8:00.2"]


def test_vf_overcommit_names_each_nodes_counts():
    held = [{"name": "other", "hostdevs": ["0000:e8:00.1"]}]
    free = FILTERS["rt_domain_vf_free"](ASSIGNABLE, held, keep=["a"], nodes=[0, 1])
    expected = (r"rt_domain_placement: .*\(a\)\.cpus='auto': 2 vCPUs and 2 QAT VFs need .* short: "
                r"node 0: 4 free CPUs \(2-5\), 0 free QAT VFs; node 1: 2 free CPUs \(6-7\), 1 free QAT VFs")
    with pytest.raises(AnsibleFilterError, match=expected):
        FILTERS["rt_domain_placement"](TWO, [{"name": "a", "vcpus": 2, "cpus": "auto", "qat_vfs": 2}], vf_free=free)


def test_vf_free_filter_errors_are_filter_errors():
    with pytest.raises(AnsibleFilterError, match="rt_domain_vf_free: vfs='not a list': must be a list of VFs"):
        FILTERS["rt_domain_vf_free"]("not a list")
