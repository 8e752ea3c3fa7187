# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""The qat_vf_select filter, alone and inside a template."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter import qat as qat_filters

POOL = [
    {"pci_address": "0000:6b:00.1", "numa_node": 0, "assignable": True},
    {"pci_address": "0000:6b:00.2", "numa_node": 0, "assignable": True},
    {"pci_address": "0000:e8:00.1", "numa_node": 1, "assignable": True},
    {"pci_address": "0000:e8:00.2", "numa_node": 1, "assignable": True},
]


def test_registered():
    assert qat_filters.FilterModule().filters() == {"qat_vf_select": qat_filters.qat_vf_select}


def test_plan():
    requests = [{"domain": "rt1", "count": 2, "numa_node": 0}, {"domain": "rt2", "count": 1, "numa_node": 1}]
    assert qat_filters.qat_vf_select(POOL, requests, {"rt2": ["0000:e8:00.2"]}) == {
        "rt1": ["0000:6b:00.1", "0000:6b:00.2"], "rt2": ["0000:e8:00.2"]}


def test_error_is_a_filter_error_with_free_counts():
    with pytest.raises(AnsibleFilterError) as info:
        qat_filters.qat_vf_select(POOL, [{"domain": "rt1", "count": 3, "numa_node": 0}])
    assert str(info.value).startswith("qat_vf_select: requests[rt1].count=3: domain 'rt1' asks for 3")
    assert "node 0: 2, node 1: 2" in str(info.value)


def test_documentation_example_result():
    doc_path = os.path.join(os.path.dirname(qat_filters.__file__), "qat_vf_select.yml")
    with open(doc_path) as handle:
        doc = yaml.safe_load(handle)
    assert doc["DOCUMENTATION"]["name"] == "qat_vf_select"
    assert doc["DOCUMENTATION"]["author"] == ["realtime.virt contributors (!UNKNOWN)"]
    pool = [{"pci_address": "0000:6b:00.%d" % i, "numa_node": 0} for i in (1, 2, 3)]
    pool += [{"pci_address": "0000:e8:00.%d" % i, "numa_node": 1} for i in (1, 2)]
    plan = qat_filters.qat_vf_select(pool, [{"domain": "rt1", "count": 2, "numa_node": 0},
                                            {"domain": "rt2", "count": 1, "numa_node": 1}],
                                     {"rt1": ["0000:6b:00.1"], "other": ["0000:e8:00.1"]})
    assert plan == {"rt1": ["0000:6b:00.1", "0000:6b:00.2"], "rt2": ["0000:e8:00.2"]}
    assert '"rt1": ["0000:6b:00.1", "0000:6b:00.2"], "rt2": ["0000:e8:00.2"]' in doc["EXAMPLES"]
