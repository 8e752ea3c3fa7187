# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Hugepage plan per NUMA node, including the requests it must refuse."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type


import pytest


import rt_node_trees

from ansible_collections.realtime.virt.plugins.module_utils._node.gather import gather_node_facts
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._hugepages.plan import (
    hugepage_plan,
    size_kb,
    size_label,
)


@pytest.fixture(scope="module")
def hosts(hosts, tmp_path_factory):  # pylint: disable=redefined-outer-name
    """The shared shapes (tests/unit/plugins/conftest.py) plus a 2M-only host."""
    result = dict(hosts)
    # A 2M-only host (no pdpe1gb, no 1G directory).
    root = rt_node_trees.build_shape(str(tmp_path_factory.mktemp("small")), "test_host", hugepage_sizes_kb=(2048,))
    result["no_1g"] = gather_node_facts(root)[0]
    return result


@pytest.mark.parametrize("text, kb, label", [
    ("2M", 2048, "2M"), ("1G", 1048576, "1G"), ("2048kB", 2048, "2M"), ("1048576kB", 1048576, "1G"),
    ("2048", 2048, "2M"), (2048, 2048, "2M"), ("64K", 64, "64K"), ("2MiB", 2048, "2M"),
])
def test_sizes(text, kb, label):
    assert size_kb(text) == kb
    assert size_label(kb) == label


def test_two_socket_plan(hosts):
    # The fixture has 512/256 2M pages and 8/8 1G pages on nodes 0/1.
    plan = hugepage_plan(hosts["two_socket_smt"], [
        {"size": "2M", "count": 512, "node": 0},
        {"size": "2M", "count": 300, "node": 1},
        {"size": "1G", "count": 8, "node": 0},
        {"size": "1G", "count": 8, "node": 1},
    ])
    assert [(t["node"], t["size"], t["count"], t["current"], t["changed"]) for t in plan["targets"]] == [
        (0, "2M", 512, 512, False), (1, "2M", 300, 256, True), (0, "1G", 8, 8, False), (1, "1G", 8, 8, False),
    ]
    assert plan["changed"] is True
    assert plan["targets"][1]["path"] == "/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages"
    # Linux 6.1 reserves boot pages per node: 8 on node 0 and 8 on node 1, not 16 spread
    assert plan["kernel_args"] == ["hugepagesz=1G", "hugepages=0:8,1:8"]
    assert plan["warnings"] == []
    # Its default size is 1G: that is /dev/hugepages, 2M gets its own mount.
    assert plan["default_size"] == "1G"
    assert [(m["path"], m["opts"]) for m in plan["mounts"]] == [
        ("/dev/hugepages2M", "pagesize=2M"), ("/dev/hugepages", "pagesize=1G")]


def test_test_host_2m_any_node(hosts):
    plan = hugepage_plan(hosts["test_host"], [{"size": "2M", "count": 64}], default_size="2M")
    (target,) = plan["targets"]
    assert target["node"] is None
    assert target["path"] == "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
    assert target["current"] == 0 and target["changed"] is True
    assert plan["kernel_args"] == ["default_hugepagesz=2M"]
    assert plan["mounts"] == [{"path": "/dev/hugepages", "size_kb": 2048, "size": "2M", "opts": "pagesize=2M"}]


def test_big_512_every_node(hosts):
    pages = [{"size": "1G", "count": 16, "node": node} for node in range(8)]
    plan = hugepage_plan(hosts["big_512"], pages)
    assert plan["changed"] is False
    assert plan["kernel_args"] == ["hugepagesz=1G", "hugepages=0:16,1:16,2:16,3:16,4:16,5:16,6:16,7:16"]


def test_zero_count_not_in_use(hosts):
    plan = hugepage_plan(hosts["test_host"], [{"size": "1G", "count": 0, "node": 0}])
    assert plan["kernel_args"] == [] and plan["mounts"] == [] and plan["changed"] is False


def test_empty_request(hosts):
    plan = hugepage_plan(hosts["test_host"], [])
    assert plan["targets"] == [] and plan["changed"] is False


@pytest.mark.parametrize("shape, pages, default, where, words", [
    # larger than the node's memory (8 GiB on test_host, 64 GiB per node on two_socket_smt)
    ("test_host", [{"size": "2M", "count": 4097, "node": 0}], None, "hugepages_pages",
     ["node 0 is asked for 8194 MiB", "only 8192 MiB", "nothing was changed"]),
    ("two_socket_smt", [{"size": "1G", "count": 40, "node": 1}, {"size": "2M", "count": 20000, "node": 1}], None,
     "hugepages_pages", ["node 1 is asked for 80960 MiB", "65536 MiB"]),
    ("test_host", [{"size": "2M", "count": 5000}], None, "hugepages_pages", ["host is asked for 10000 MiB"]),
    # a size the host lacks
    ("no_1g", [{"size": "1G", "count": 1}], None, "hugepages_pages[0].size", ["no 1G hugepages", "supports 2M"]),
    ("test_host", [{"size": "3X", "count": 1}], None, "hugepages_pages[0].size", ["not a hugepage size"]),
    # counts
    ("test_host", [{"size": "2M", "count": -1}], None, "hugepages_pages[0].count", ["integer >= 0"]),
    ("test_host", [{"size": "2M", "count": "many"}], None, "hugepages_pages[0].count", ["integer >= 0"]),
    ("test_host", [{"size": "2M", "count": True}], None, "hugepages_pages[0].count", ["integer >= 0"]),
    # nodes
    ("test_host", [{"size": "2M", "count": 1, "node": 3}], None, "hugepages_pages[0].node", ["no NUMA node 3", "nodes: 0"]),
    ("big_512", [{"size": "2M", "count": 1, "node": 8}], None, "hugepages_pages[0].node", ["nodes: 0, 1, 2, 3, 4, 5, 6, 7"]),
    # shape of the request
    ("test_host", [{"size": "2M", "count": 1}, {"size": "2M", "count": 2, "node": 0}], None, "hugepages_pages[1]",
     ["both per NUMA node and without a node"]),
    ("test_host", [{"size": "2M", "count": 1, "node": 0}, {"size": "2M", "count": 2, "node": 0}], None,
     "hugepages_pages[1]", ["already requested by hugepages_pages[0]"]),
    ("test_host", [{"size": "2M", "count": 1, "nodes": 0}], None, "hugepages_pages[0]", ["unknown key(s) nodes"]),
    ("test_host", "2M", None, "hugepages_pages", ["not a list"]),
    ("no_1g", [], "1G", "hugepages_default_size", ["no 1G hugepages"]),
])
def test_refusals(hosts, shape, pages, default, where, words):
    with pytest.raises(OptionError) as info:
        hugepage_plan(hosts[shape], pages, default_size=default)
    assert info.value.option == where
    message = str(info.value)
    assert "Fix:" in message
    for word in words:
        assert word in message


def test_one_node_host_gets_the_total_form(hosts):
    # Same reservation on one node, and the form x86 KASLR reads (it takes "0:1" for 0 and may put the kernel
    # image in the block the page needs)
    facts = dict(hosts["two_socket_smt"], numa={"nodes": [hosts["two_socket_smt"]["numa"]["nodes"][0]]})
    plan = hugepage_plan(facts, [{"size": "1G", "count": 1, "node": 0}])
    assert plan["kernel_args"] == ["hugepagesz=1G", "hugepages=1"]
    assert plan["warnings"] == []


def test_no_sizes():
    with pytest.raises(OptionError) as info:
        hugepage_plan({"hugepages": {"sizes": {}}}, [{"size": "2M", "count": 1}])
    assert "no hugepage size" in str(info.value)


@pytest.mark.parametrize("release, pages, args, warned", [
    # per-node form where the kernel takes it: only node 0 gets pages
    ("6.1.0-28-amd64", [{"size": "1G", "count": 8, "node": 0}], ["hugepagesz=1G", "hugepages=0:8"], False),
    ("5.16.0", [{"size": "1G", "count": 2, "node": 1}, {"size": "1G", "count": 1, "node": 0}],
     ["hugepagesz=1G", "hugepages=0:1,1:2"], False),
    # older kernels take a total and spread it: said in a warning
    ("5.15.0-91-generic", [{"size": "1G", "count": 8, "node": 0}], ["hugepagesz=1G", "hugepages=8"], True),
    ("4.18.0-513.el8.x86_64", [{"size": "1G", "count": 8, "node": 0}], ["hugepagesz=1G", "hugepages=8"], True),
    # pages without a node are a total on every kernel, nothing to warn about
    ("6.1.0-28-amd64", [{"size": "1G", "count": 4}], ["hugepagesz=1G", "hugepages=4"], False),
    ("", [{"size": "1G", "count": 4, "node": 0}], ["hugepagesz=1G", "hugepages=4"], True),
])
def test_boot_pages_per_node(hosts, release, pages, args, warned):
    facts = dict(hosts["two_socket_smt"], kernel=dict(hosts["two_socket_smt"]["kernel"], release=release))
    plan = hugepage_plan(facts, pages)
    assert plan["kernel_args"] == args
    assert bool(plan["warnings"]) is warned
    if warned:
        assert "spread over every NUMA node" in plan["warnings"][0]
