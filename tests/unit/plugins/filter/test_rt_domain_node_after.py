# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The host the domains will find in check mode: pools resized and, after rt_host's reboot, CPUs isolated."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.rt_domain import FilterModule as DomainFilters

FILTERS = DomainFilters().filters()
AFTER = FILTERS["rt_domain_node_after"]
PLACE = FILTERS["rt_domain_placement"]

DOMAIN = {"name": "rtv-a", "vcpus": 1, "memory_mib": 16, "cpus": "auto", "realtime": {},
          "memory": {"hugepages": {"page_size": "2M"}}}


def _fresh_host():
    """A one-node host of 2 CPUs as a stock kernel shows it: nothing isolated, 8 free 2M pages."""
    pool = {"size_kb": 2048, "total": 8, "free": 8}
    return {"cpus": {"online": [0, 1], "isolated": [], "housekeeping": [0, 1]},
            "hugepages": {"sizes": {"2048kB": dict(pool)}},
            "numa": {"nodes": [{"id": 0, "cpus": [0, 1], "hugepages": {"2048kB": dict(pool)}}]}}


def test_a_fresh_host_refuses_the_domain_until_the_cpus_are_isolated():
    # the placement's own refusal, which a check run met before rt_host's reboot
    with pytest.raises(AnsibleFilterError, match="no isolated CPUs"):
        PLACE(_fresh_host(), [DOMAIN])


def test_after_the_reboot_the_domain_is_placed_on_the_isolated_cpu():
    facts = _fresh_host()
    after = AFTER(facts, isolated="1", housekeeping="0")
    assert after["cpus"]["isolated"] == [1]
    assert after["cpus"]["housekeeping"] == [0]
    placed = PLACE(after, [DOMAIN])["domains"][0]
    assert placed["cpuset"] == "1"
    assert placed["emulator_cpuset"] == "0"
    # the facts handed in are not touched
    assert facts["cpus"]["isolated"] == []


def test_no_isolated_set_leaves_the_cpus_as_they_are():
    after = AFTER(_fresh_host(), pools=[], isolated="", housekeeping="0")
    assert after["cpus"] == {"online": [0, 1], "isolated": [], "housekeeping": [0, 1]}


def test_the_pools_are_resized_too():
    row = {"node": 0, "size": "2M", "size_kb": 2048, "requested": 64, "before": 8, "obtained": 64,
           "attempts": 0, "ok": True}
    after = AFTER(_fresh_host(), pools=[row], isolated="1", housekeeping="0")
    assert after["numa"]["nodes"][0]["hugepages"]["2048kB"]["total"] == 64
    assert after["numa"]["nodes"][0]["hugepages"]["2048kB"]["free"] == 64


def test_planned_mounts_are_added_where_their_path_is_not_mounted():
    facts = _fresh_host()
    facts["hugepages"]["mounts"] = [{"path": "/dev/hugepages", "pagesize_kb": 2048}]
    planned = [{"path": "/dev/hugepages", "size_kb": 2048, "size": "2M", "opts": "pagesize=2M"},
               {"path": "/dev/hugepages1G", "size_kb": 1048576, "size": "1G", "opts": "pagesize=1G"}]
    after = AFTER(facts, mounts=planned)
    assert after["hugepages"]["mounts"] == [{"path": "/dev/hugepages", "pagesize_kb": 2048},
                                            {"path": "/dev/hugepages1G", "pagesize_kb": 1048576}]
    # the facts handed in are not touched
    assert facts["hugepages"]["mounts"] == [{"path": "/dev/hugepages", "pagesize_kb": 2048}]


def test_no_planned_mounts_leave_the_mounts_as_they_are():
    facts = _fresh_host()
    facts["hugepages"]["mounts"] = [{"path": "/dev/hugepages", "pagesize_kb": 2048}]
    assert AFTER(facts)["hugepages"]["mounts"] == [{"path": "/dev/hugepages", "pagesize_kb": 2048}]


def test_a_bad_cpuset_is_a_filter_error_naming_the_filter():
    with pytest.raises(AnsibleFilterError, match="rt_domain_node_after: isolated=.x."):
        AFTER(_fresh_host(), isolated="x", housekeeping="0")
