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
    assert sorted(FILTERS) == ["rt_domain_attach_vfs", "rt_domain_hugepage_sizes", "rt_domain_placement",
                               "rt_domain_summary"]


def test_placement_filter_places():
    plan = FILTERS["rt_domain_placement"](NODE, [{"name": "a", "vcpus": 2, "cpus": "auto", "realtime": {}}])
    assert plan["domains"][0]["cpuset"] == "2-3"
    assert plan["domains"][0]["emulator_cpuset"] == "0-1"
    assert FILTERS["rt_domain_summary"](plan["domains"]) == "a: vCPUs on CPUs 2-3 (node 0, auto), emulator on 0-1"


def test_placement_filter_errors_are_filter_errors():
    expected = r"rt_domain_placement: rt_domain_domains\[0\] \(a\)\.cpus = 'auto': 3 vCPUs need 3 free isolated CPUs"
    with pytest.raises(AnsibleFilterError, match=expected):
        FILTERS["rt_domain_placement"](NODE, [{"name": "a", "vcpus": 3, "cpus": "auto"}])


def test_attach_filter_errors_are_filter_errors():
    plan = FILTERS["rt_domain_placement"](NODE, [{"name": "a", "vcpus": 1, "cpus": "auto", "qat_vfs": 1}])
    assert plan["vf_requests"] == [{"domain": "a", "count": 1, "numa_node": 0}]
    with pytest.raises(AnsibleFilterError, match="rt_domain_attach_vfs: .*gave 0 VFs"):
        FILTERS["rt_domain_attach_vfs"](plan, {})
