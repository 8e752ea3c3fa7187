# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Items of libvirt_rt_domains validated one by one against libvirt_rt_domain's spec."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.options import ItemValidator, argument_spec, item_label

URI = "qemu:///system"


def test_an_item_gets_the_single_modules_defaults_and_the_tasks_uri():
    params, errors = ItemValidator(URI).validate({"name": "vm", "vcpus": "2", "cpu": {"pinning": [{"vcpu": 0, "cpuset": "1"}]}})
    assert errors == []
    assert params["uri"] == URI and params["state"] == "present" and params["restart"] is False
    assert params["vcpus"] == 2 and params["cpu"]["pinning"][0]["vcpu"] == 0 and params["cpu"]["features"] == []
    assert set(params) == set(argument_spec())


def test_errors_stay_with_the_item():
    validator = ItemValidator(URI)
    assert validator.validate({"vcpus": 1})[1] == ["missing required arguments: name"]
    assert validator.validate({"name": "vm", "cpu": {"pinning": [{"vcpu": 0}]}})[1] == [
        "missing required arguments: cpuset found in cpu -> pinning"]
    assert validator.validate({"name": "vm", "vpcus": 1})[1][0].startswith("Unsupported parameters: vpcus. ")
    assert validator.validate("vm")[1] == ["each item must be a mapping of libvirt_rt_domain options, not str"]
    assert validator.validate({"name": "vm", "uri": "qemu+ssh://h/system"})[1][0].startswith(
        "uri='qemu+ssh://h/system': every domain of the task goes through its one connection")
    # the validator does not change the item it was given, nor share a default between items
    item = {"name": "a"}
    first = validator.validate(item)[0]
    first["hostdevs"].append("x")
    assert item == {"name": "a"} and validator.validate({"name": "b"})[0]["hostdevs"] == []


def test_defaults_fill_only_what_an_item_leaves_out():
    validator = ItemValidator(URI, {"domain_type": "qemu", "restart": "yes", "memory": {"locked": False}})
    params, errors = validator.validate({"name": "a", "memory": {"hugepages": {}}})
    assert errors == [] and params["domain_type"] == "qemu" and params["restart"] is True
    assert params["memory"]["locked"] is None   # an item's own mapping replaces the default whole
    assert validator.validate({"name": "b", "domain_type": "kvm"})[0]["domain_type"] == "kvm"


@pytest.mark.parametrize("defaults, option", [
    ({"name": "x"}, "defaults.name"), ({"uri": URI}, "defaults.uri"), ({"vpcus": 1}, "defaults"),
    ({"state": "gone"}, "defaults"), ({"cpu": {"pinning": [{"vcpu": 0}]}}, "defaults"),
])
def test_bad_defaults_fail_once_before_any_item(defaults, option):
    with pytest.raises(OptionError) as info:
        ItemValidator(URI, defaults)
    assert info.value.option == option and "Fix:" in str(info.value)


def test_item_label():
    assert item_label(2, {"name": "vm3"}) == "domains[2] (vm3)"
    assert item_label(0, {"name": "rt\tvm"}) == "domains[0] ('rt\\tvm')"
    assert item_label(1, {"name": ""}) == item_label(1, "vm") == item_label(1, {"name": 5}) == "domains[1]"
