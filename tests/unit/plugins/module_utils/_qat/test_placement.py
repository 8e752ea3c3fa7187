# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""VF placement: NUMA-local, free, never twice, fails before anything."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._qat.placement import select_vfs


def vfs(node0=4, node1=2, bus0="6b", bus1="e8"):
    out = [{"pci_address": "0000:%s:00.%d" % (bus0, i + 1), "numa_node": 0, "assignable": True} for i in range(node0)]
    out += [{"pci_address": "0000:%s:00.%d" % (bus1, i + 1), "numa_node": 1, "assignable": True} for i in range(node1)]
    return out


def test_numa_local_and_in_address_order():
    plan = select_vfs(vfs(), [{"domain": "a", "count": 2, "numa_node": 0}, {"domain": "b", "count": 2, "numa_node": 1}])
    assert plan == {"a": ["0000:6b:00.1", "0000:6b:00.2"], "b": ["0000:e8:00.1", "0000:e8:00.2"]}


def test_never_twice_and_used_ones_skipped():
    plan = select_vfs(vfs(), [{"domain": "a", "count": 1, "numa_node": 0}, {"domain": "b", "count": 2, "numa_node": 0}],
                      used=["0000:6b:00.1"])
    assert plan == {"a": ["0000:6b:00.2"], "b": ["0000:6b:00.3", "0000:6b:00.4"]}
    given = plan["a"] + plan["b"]
    assert len(given) == len(set(given))


def test_domain_keeps_what_it_holds_so_runs_are_stable():
    used = {"b": ["0000:6b:00.4"], "other": ["0000:6b:00.1"]}
    requests = [{"domain": "a", "count": 1, "numa_node": 0}, {"domain": "b", "count": 2, "numa_node": 0}]
    first = select_vfs(vfs(), requests, used)
    assert first == {"a": ["0000:6b:00.2"], "b": ["0000:6b:00.3", "0000:6b:00.4"]}
    again = select_vfs(vfs(), requests, {"a": first["a"], "b": first["b"], "other": ["0000:6b:00.1"]})
    assert again == first


def test_held_vf_on_wrong_node_is_not_kept():
    plan = select_vfs(vfs(), [{"domain": "a", "count": 1, "numa_node": 1}], {"a": ["0000:6b:00.1"]})
    assert plan == {"a": ["0000:e8:00.1"]}


def test_any_node_and_unknown_node():
    pool = [{"pci_address": "0000:00:06.0", "numa_node": -1}, {"pci_address": "0000:00:05.0", "numa_node": -1}]
    assert select_vfs(pool, [{"domain": "g", "count": 2, "numa_node": 0}]) == {"g": ["0000:00:05.0", "0000:00:06.0"]}
    assert select_vfs(vfs(), [{"domain": "x", "count": 5}])["x"][-1] == "0000:e8:00.1"


def test_unassignable_vfs_ignored_and_zero_count():
    pool = vfs(node0=2, node1=0)
    pool[0]["assignable"] = False
    assert select_vfs(pool, [{"domain": "a", "count": 1, "numa_node": 0}, {"domain": "z", "count": 0}]) == {
        "a": ["0000:6b:00.2"], "z": []}


def test_too_many_states_free_per_node():
    with pytest.raises(OptionError) as info:
        select_vfs(vfs(), [{"domain": "a", "count": 3, "numa_node": 1}], used=["0000:6b:00.1"])
    text = str(info.value)
    assert "domain 'a' asks for 3 QAT VF(s) on NUMA node 1 but only 2 can be given" in text
    assert "node 0: 3, node 1: 2" in text


def test_second_request_short_after_first():
    with pytest.raises(OptionError, match="domain 'b' asks for 2 .* only 1 can be given"):
        select_vfs(vfs(node0=3), [{"domain": "a", "count": 2, "numa_node": 0}, {"domain": "b", "count": 2, "numa_node": 0}])


def test_no_vfs_at_all():
    with pytest.raises(OptionError, match="no assignable VF is free on any node"):
        select_vfs([], [{"domain": "a", "count": 1}])


@pytest.mark.parametrize("requests, words", [
    ([{"count": 1}], "no domain name"),
    ([{"domain": "a", "count": -1}], r"requests\[a\]\.count=-1: negative"),
    ([{"domain": "a", "count": "two"}], "not a whole number"),
    ([{"domain": "a", "count": True}], "not a whole number"),
    ([{"domain": "a", "count": 1, "numa_node": "x"}], "not a NUMA node id"),
    ([{"domain": "a", "count": 1}, {"domain": "a", "count": 1}], "requested twice"),
    ("a", "must be a list"),
])
def test_bad_requests(requests, words):
    with pytest.raises(OptionError, match=words):
        select_vfs(vfs(), requests)


@pytest.mark.parametrize("pool, words", [
    ([{"numa_node": 0}], "has no pci_address"),
    ([{"pci_address": "6b:00.1", "numa_node": 0}], r"vfs\[\]\.pci_address='6b:00.1': not a PCI address"),
    ({"pci_address": "0000:6b:00.1"}, "must be a list"),
])
def test_bad_vf_list(pool, words):
    with pytest.raises(OptionError, match=words):
        select_vfs(pool, [{"domain": "a", "count": 1}])


def test_bad_used():
    with pytest.raises(OptionError, match="used='0000:6b:00.1': must be a list of PCI addresses"):
        select_vfs(vfs(), [{"domain": "a", "count": 1}], used="0000:6b:00.1")
