# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""HugepageAllocator on a fixture tree: writes, retries, shortfall report."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest


import rt_node_trees

from ansible_collections.realtime.virt.plugins.module_utils._hugepages.apply import (
    HugepageAllocator,
    keep_in_use,
    shortfall_message,
)
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError

NODE1_2M = "sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages"


class StingyAllocator(HugepageAllocator):
    """Acts like a kernel that gives at most ``limit`` pages, a few more after each compaction."""

    def __init__(self, root, limit, **kwargs):
        super(StingyAllocator, self).__init__(root, **kwargs)
        self.limit = limit
        self.compactions = 0
        self.sleeps = []
        self.sleep = self.sleeps.append

    def _write(self, path, value):
        super(StingyAllocator, self)._write(path, min(value, self.limit + 10 * self.compactions))

    def _compact(self):
        self.compactions += 1


def read(root, path):
    with open(os.path.join(root, path)) as handle:
        return int(handle.read())


def test_writes_only_changed_pools(tmp_path):
    root = rt_node_trees.build_shape(str(tmp_path), "two_socket_smt")
    allocator = HugepageAllocator(root, delay=0)
    plan = allocator.plan([{"size": "2M", "count": 512, "node": 0}, {"size": "2M", "count": 300, "node": 1}])
    rows = allocator.apply(plan)
    assert [(r["node"], r["before"], r["obtained"], r["attempts"], r["ok"]) for r in rows] == [
        (0, 512, 512, 0, True), (1, 256, 300, 1, True)]
    assert read(root, NODE1_2M) == 300


def test_retry_then_success(tmp_path):
    root = rt_node_trees.build_shape(str(tmp_path), "two_socket_smt")
    allocator = StingyAllocator(root, limit=280, retries=5, delay=0.5)
    rows = allocator.apply(allocator.plan([{"size": "2M", "count": 300, "node": 1}]))
    assert rows[0]["obtained"] == 300 and rows[0]["attempts"] == 3 and rows[0]["ok"]
    assert allocator.compactions == 2 and allocator.sleeps == [0.5, 0.5]


def test_shortfall_is_reported_not_hidden(tmp_path):
    root = rt_node_trees.build_shape(str(tmp_path), "two_socket_smt")
    allocator = StingyAllocator(root, limit=260, retries=2, delay=0)
    rows = allocator.apply(allocator.plan([{"size": "2M", "count": 400, "node": 1}]))
    assert rows[0]["obtained"] == 280 and rows[0]["ok"] is False and rows[0]["attempts"] == 3
    assert read(root, NODE1_2M) == 280
    message = shortfall_message(rows)
    assert "node 1 2M: requested 400, obtained 280 (was 256, 3 attempt(s))" in message
    assert "stay allocated" in message


def test_shrink_before_grow(tmp_path):
    root = rt_node_trees.build_shape(str(tmp_path), "two_socket_smt")
    allocator = HugepageAllocator(root, delay=0)
    order = []
    original = allocator._write
    allocator._write = lambda path, value: (order.append(path), original(path, value))
    allocator.apply(allocator.plan([{"size": "2M", "count": 600, "node": 0}, {"size": "2M", "count": 0, "node": 1}]))
    assert order[0].endswith("node1/hugepages/hugepages-2048kB/nr_hugepages")


def test_refusal_writes_nothing(tmp_path):
    root = rt_node_trees.build_shape(str(tmp_path), "test_host")
    allocator = HugepageAllocator(root, delay=0)
    with pytest.raises(OptionError) as info:
        allocator.plan([{"size": "2M", "count": 10 ** 6, "node": 0}])
    assert info.value.option == "pages"
    assert read(root, "sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages") == 0


class BusyAllocator(HugepageAllocator):
    """Acts like a kernel where ``busy`` pages of a pool are mapped: a lower count never goes below them."""

    def __init__(self, root, busy, **kwargs):
        super(BusyAllocator, self).__init__(root, **kwargs)
        self.busy = busy
        self.sleep = lambda seconds: None

    def _write(self, path, value):
        busy = [pages for end, pages in self.busy.items() if path.endswith(end)]
        super(BusyAllocator, self)._write(path, max([value] + busy))


def test_keep_in_use_accepts_only_the_pages_a_lowered_pool_keeps(tmp_path):
    root = rt_node_trees.build_shape(str(tmp_path), "two_socket_smt")
    node0 = "sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages"
    allocator = BusyAllocator(root, {node0: 10, NODE1_2M: 300}, retries=0, delay=0)
    # node 0 goes 512 -> 0 with 10 pages in use; node 1 goes 256 -> 200 with 300 in use (it cannot shrink at all)
    rows = allocator.apply(allocator.plan([{"size": "2M", "count": 0, "node": 0}, {"size": "2M", "count": 200, "node": 1}]))
    assert [(r["node"], r["before"], r["obtained"], r["ok"]) for r in rows] == [(0, 512, 10, False), (1, 256, 300, False)]
    warnings = keep_in_use(rows)
    assert warnings == ["node 0 2M: 10 page(s) stay in the pool because something uses them (asked for 0, the kernel "
                        "kept 10); the kernel frees them when they are released"]
    assert rows[0]["ok"] is True and rows[0]["in_use"] == 10
    # more pages than the pool had before is not a lowered pool keeping its pages
    assert rows[1]["ok"] is False and "in_use" not in rows[1]
    assert "node 1 2M: requested 200, obtained 300" in shortfall_message(rows)


def test_keep_in_use_leaves_a_growing_shortfall_failing(tmp_path):
    root = rt_node_trees.build_shape(str(tmp_path), "two_socket_smt")
    allocator = StingyAllocator(root, limit=260, retries=0, delay=0)
    rows = allocator.apply(allocator.plan([{"size": "2M", "count": 400, "node": 1}]))
    assert keep_in_use(rows) == [] and rows[0]["ok"] is False
