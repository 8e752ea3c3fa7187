# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The pools the hugepages role will leave, and the placement that reads them (check mode of rt_domain)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import re

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.hugepages import FilterModule as HugepageFilters
from ansible_collections.realtime.virt.plugins.filter.rt_domain import FilterModule as DomainFilters
from ansible_collections.realtime.virt.plugins.module_utils._hugepages.plan import facts_after, planned_targets

AFTER = HugepageFilters().filters()["hugepages_after"]
PLACE = DomainFilters().filters()["rt_domain_placement"]


def _pool(total, free):
    return {"size_kb": 2048, "total": total, "free": free}


def _host(node0, node1=None, overall=None):
    """A two-node host (CPUs 0-3 and 4-7, 2-3 and 6-7 isolated) with the given 2M pools."""
    nodes = [{"id": 0, "cpus": [0, 1, 2, 3], "hugepages": {"2048kB": node0}}]
    if node1 is not None:
        nodes.append({"id": 1, "cpus": [4, 5, 6, 7], "hugepages": {"2048kB": node1}})
    sizes = {"2048kB": overall} if overall is not None else {}
    return {"cpus": {"online": list(range(8)), "isolated": [2, 3, 6, 7], "housekeeping": [0, 1, 4, 5]},
            "hugepages": {"sizes": sizes}, "numa": {"nodes": nodes}}


def _node_pools(facts):
    return [(node["id"], node["hugepages"]["2048kB"]["total"], node["hugepages"]["2048kB"]["free"])
            for node in facts["numa"]["nodes"]]


def _row(node, requested, before=0):
    """One row of hugepages_alloc's pages, as check mode returns it."""
    return {"node": node, "size": "2M", "size_kb": 2048, "requested": requested, "before": before,
            "obtained": requested, "attempts": 0, "ok": True}


def test_a_grown_pool_keeps_its_pages_in_use():
    # 100 pages, 40 free: 60 are held by running domains and stay held
    facts = _host(_pool(100, 40), _pool(8, 8), overall=_pool(108, 48))
    after = AFTER(facts, [_row(0, 128, 100)])
    assert _node_pools(after) == [(0, 128, 68), (1, 8, 8)]
    assert after["hugepages"]["sizes"]["2048kB"] == {"size_kb": 2048, "total": 136, "free": 76}
    # the facts handed in are not touched
    assert _node_pools(facts) == [(0, 100, 40), (1, 8, 8)]


def test_a_pool_shrunk_below_its_pages_in_use_has_none_free():
    assert _node_pools(AFTER(_host(_pool(100, 40)), [_row(0, 50, 100)])) == [(0, 50, 0)]
    assert _node_pools(AFTER(_host(_pool(100, 40)), [_row(0, 70, 100)])) == [(0, 70, 10)]
    assert _node_pools(AFTER(_host(_pool(100, 40)), [_row(0, 0, 100)])) == [(0, 0, 0)]


def test_a_pool_already_at_its_count_is_as_it_was():
    assert _node_pools(AFTER(_host(_pool(64, 10)), [_row(0, 64, 64)])) == [(0, 64, 10)]
    assert _node_pools(AFTER(_host(_pool(64, 10)), [])) == [(0, 64, 10)]
    assert _node_pools(AFTER(_host(_pool(64, 10)), None)) == [(0, 64, 10)]


def test_a_system_wide_pool_is_shared_out_over_the_nodes_in_id_order():
    facts = _host(_pool(10, 0), _pool(0, 0), overall=_pool(10, 0))
    after = AFTER(facts, [_row(None, 15, 10)])
    assert _node_pools(after) == [(0, 13, 3), (1, 2, 2)]
    assert after["hugepages"]["sizes"]["2048kB"] == {"size_kb": 2048, "total": 15, "free": 5}


def test_a_shrunk_system_wide_pool_gives_back_free_pages_only():
    # node 0 has no free page (all in use): the whole loss is node 1's free pages
    facts = _host(_pool(10, 0), _pool(10, 6), overall=_pool(20, 6))
    assert _node_pools(AFTER(facts, [_row(None, 16, 20)])) == [(0, 10, 0), (1, 6, 2)]
    # more than the free pages: the in-use pages stay
    assert _node_pools(AFTER(facts, [_row(None, 4, 20)])) == [(0, 10, 0), (1, 4, 0)]


def test_plan_targets_and_rows_give_the_same_pools():
    facts = _host(_pool(4, 4), _pool(0, 0))
    from_rows = facts_after(facts, {"targets": planned_targets([_row(1, 32), {"node": 0, "size": "2M", "count": 8}])})
    from_plan = facts_after(facts, {"targets": [{"node": 1, "size_kb": 2048, "count": 32},
                                                {"node": 0, "size_kb": 2048, "count": 8}]})
    assert from_rows == from_plan
    assert _node_pools(from_rows) == [(0, 8, 8), (1, 32, 32)]


def test_a_size_the_facts_lack_is_left_out():
    facts = _host(_pool(4, 4))
    assert AFTER(facts, [{"node": 0, "size_kb": 1048576, "requested": 2}]) == facts


@pytest.mark.parametrize("pools, message", [
    ("2M:64", r"hugepages_result.pages='2M:64': not a list of pools"),
    (["x"], r"hugepages_result.pages\[0\]='x': not a dictionary"),
    ([{"node": 0, "size": "3X", "requested": 1}], r"hugepages_result.pages\[0\].size='3X': not a hugepage size"),
    ([{"node": 0, "size_kb": 2048, "requested": "many"}], r"hugepages_result.pages\[0\].requested='many'"),
])
def test_bad_pools_are_filter_errors(pools, message):
    with pytest.raises(AnsibleFilterError, match="hugepages_after: " + message):
        AFTER(_host(_pool(0, 0)), pools)


# ---- the placement reads the pools to come, with the message of the real run -----------------------

DOMAIN = {"name": "rtv-a", "vcpus": 1, "memory_mib": 64, "cpus": "auto", "numa_node": 0,
          "memory": {"hugepages": {"page_size": "2M"}}}
SHORT = ("domain rtv-a needs 32 hugepages of 2048 KiB on NUMA node 0 (0 for the domains placed there before it "
         "and not running yet), the node has %d free; short by %d")


def _place(facts):
    return PLACE(facts, [copy.deepcopy(DOMAIN)], defined=[], hugepages="fail")


def test_the_planned_pool_covers_the_domain():
    # the host has no free page now; the hugepages role will give 32
    plan = _place(AFTER(_host(_pool(0, 0)), [_row(0, 32)]))
    assert plan["domains"][0]["numa_node"] == 0
    assert plan["warnings"] == []


def test_a_planned_pool_too_small_fails_as_the_real_run_would():
    planned = _host(_pool(0, 0))
    with pytest.raises(AnsibleFilterError) as in_check:
        _place(AFTER(planned, [_row(0, 31)]))
    # the real run reads the pool the hugepages role left: 31 pages, all free
    with pytest.raises(AnsibleFilterError) as for_real:
        _place(_host(_pool(31, 31)))
    assert str(in_check.value) == str(for_real.value)
    assert SHORT % (31, 1) in str(in_check.value)


def test_pages_in_use_are_not_counted_free():
    # 32 pages all held by a running domain; the role grows the pool to 63: 31 free, one short
    with pytest.raises(AnsibleFilterError, match=re.escape(SHORT % (31, 1))):
        _place(AFTER(_host(_pool(32, 0)), [_row(0, 63, 32)]))
    assert _place(AFTER(_host(_pool(32, 0)), [_row(0, 64, 32)]))["warnings"] == []


def test_without_a_plan_the_host_pools_decide():
    with pytest.raises(AnsibleFilterError, match=re.escape(SHORT % (0, 32))):
        _place(AFTER(_host(_pool(0, 0)), []))
    # a plan for another node does not help node 0
    with pytest.raises(AnsibleFilterError, match=re.escape(SHORT % (0, 32))):
        _place(AFTER(_host(_pool(0, 0), _pool(0, 0)), [_row(1, 64)]))
