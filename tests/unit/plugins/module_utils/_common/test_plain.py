# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""plain_copy, and the planning code that copies playbook data through it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.plain import plain_copy
from ansible_collections.realtime.virt.plugins.module_utils._placement.inputs import deep_merge


class Lazy(dict):
    """Stands for ansible-core's lazy containers: deep-copying one copies its templar."""

    def __deepcopy__(self, memo):
        raise AssertionError("copy.deepcopy reached a container of the playbook")


def test_plain_copy_rebuilds_containers_and_shares_scalars():
    text = "0-3"
    source = Lazy(cpus=text, pins=[Lazy(vcpu=0)], pair=(1, [2]))
    copied = plain_copy(source)
    assert copied == {"cpus": "0-3", "pins": [{"vcpu": 0}], "pair": (1, [2])}
    assert not isinstance(copied, Lazy) and not isinstance(copied["pins"][0], Lazy)
    assert isinstance(copied, dict) and isinstance(copied["pins"][0], dict)
    assert copied["pins"] is not source["pins"] and copied["pair"][1] is not source["pair"][1]
    assert copied["cpus"] is text
    copied["pins"][0]["vcpu"] = 5
    assert source["pins"][0]["vcpu"] == 0


def test_deep_merge_copies_playbook_containers_without_deepcopy():
    base = Lazy(memory=Lazy(hugepages=Lazy(page_size="2M")), disks=[Lazy(path="/a")])
    merged = deep_merge(base, Lazy(memory=Lazy(locked=False), vcpus=2, cpu=Lazy(mode="maximum")))
    assert merged == {"memory": {"hugepages": {"page_size": "2M"}, "locked": False},
                      "disks": [{"path": "/a"}], "vcpus": 2, "cpu": {"mode": "maximum"}}
    merged["disks"][0]["path"] = "/b"
    assert base["disks"][0]["path"] == "/a"
