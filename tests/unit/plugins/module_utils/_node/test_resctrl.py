# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Intel RDT facts (resctrl) and the cache allocation readiness line, on fixture trees."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import rt_node_trees

from ansible_collections.realtime.virt.plugins.module_utils._node.gather import NodeFacts, gather_node_facts


def facts(tmp_path, name, **overrides):
    return gather_node_facts(rt_node_trees.build_shape(str(tmp_path), name, **overrides))[0]


def readiness(found):
    return [item for item in found["realtime_checks"] if item["id"] == "cache_allocation"][0]


def test_a_skylake_sp_style_host_reports_its_resctrl(tmp_path):
    rdt = facts(tmp_path, "two_socket_smt")["resctrl"]
    assert rdt["mounted"] is True and rdt["path"] == "/sys/fs/resctrl"
    assert rdt["cpu_flags"] == {"rdt_a": True, "cat_l3": True, "cat_l2": False, "cdp_l3": True, "mba": True}
    assert rdt["resources"] == {
        "L3": {"cbm_mask": 0x7ff, "min_cbm_bits": 1, "num_closids": 16, "shareable_bits": 0, "ways": 11},
        "MB": {"min_bandwidth": 10, "bandwidth_gran": 10, "num_closids": 8}}
    # CPUs 0-7 and their threads 16-23 are socket 0 (the fixture numbers threads as Linux does)
    assert rdt["caches"] == [
        {"level": 3, "type": "both", "id": 0, "size_kb": 22528, "cpus": list(range(0, 8)) + list(range(16, 24)),
         "cpuset": "0-7,16-23"},
        {"level": 3, "type": "both", "id": 1, "size_kb": 22528, "cpus": list(range(8, 16)) + list(range(24, 32)),
         "cpuset": "8-15,24-31"}]
    line = readiness(facts(tmp_path / "again", "two_socket_smt"))
    assert line["ready"] is True and line["observed"] == "resctrl on /sys/fs/resctrl: L3"


def test_not_mounted_says_how_to_mount_and_boot(tmp_path):
    line = readiness(facts(tmp_path, "two_socket_smt", resctrl=None))
    assert line["ready"] is False and line["blocker"] is False
    assert line["observed"] == "CPU offers cat_l3; resctrl not mounted"
    assert "mount -t resctrl resctrl /sys/fs/resctrl" in line["fix"] and "rdt=cat_l3" in line["fix"]


def test_a_cpu_without_cache_allocation_has_no_software_fix(tmp_path):
    found = facts(tmp_path, "test_host")
    assert found["resctrl"]["mounted"] is False and found["resctrl"]["resources"] == {}
    line = readiness(found)
    assert line["ready"] is False and line["observed"] == "CPU flags: no cat_l3, no cat_l2"
    assert line["fix"].startswith("no software fix")


def test_the_module_reads_the_same_resctrl_for_its_checks_only_when_asked(tmp_path):
    root = rt_node_trees.build_shape(str(tmp_path), "two_socket_smt")
    assert NodeFacts(root).domain_host(rdt=True)["resctrl"] == gather_node_facts(root)[0]["resctrl"]
    assert NodeFacts(root).domain_host()["resctrl"] is None
