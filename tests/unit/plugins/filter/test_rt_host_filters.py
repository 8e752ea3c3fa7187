# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""The rt_host and hugepages filters: values through, errors as AnsibleFilterError."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type


import pytest

from ansible.errors import AnsibleFilterError


from ansible_collections.realtime.virt.plugins.filter.hugepages import FilterModule as HugepageFilters  # noqa: E402
from ansible_collections.realtime.virt.plugins.filter.rt_host import FilterModule as HostFilters  # noqa: E402

F = HostFilters().filters()
F.update(HugepageFilters().filters())


@pytest.mark.parametrize("shape, first", [
    ("test_host", "isolcpus=managed_irq,domain,1"),
    ("two_socket_smt", "isolcpus=managed_irq,domain,1-7,9-15,17-23,25-31"),
    ("big_512", "isolcpus=managed_irq,domain,1-31,33-63,65-95,97-127,129-159,161-191,193-223,225-255,"
                "257-287,289-319,321-351,353-383,385-415,417-447,449-479,481-511"),
])
def test_filters_chain(hosts, shape, first):
    plan = F["rt_cpu_plan"](hosts[shape])
    args = F["rt_kernel_args"](plan, iommu=False, hugepage_args=[], extra=[])
    assert args[0] == first
    assert len(args) == 8
    compared = F["rt_kernel_args_compare"](args, " ".join(args))
    assert compared["applied"] is True


@pytest.mark.parametrize("name, args, words", [
    ("rt_cpu_plan", ("3-1",), ["rt_cpu_plan: rt_host_isolated_cpus='3-1'", "Fix:"]),
    ("rt_kernel_args", ({"isolated": [1], "housekeeping": [0]},), None),
])
def test_filter_errors(hosts, name, args, words):
    if words is None:
        assert F[name](*args)[0] == "isolcpus=managed_irq,domain,1"
        return
    with pytest.raises(AnsibleFilterError) as info:
        F[name](hosts["test_host"], *args)
    for word in words:
        assert word in str(info.value)


def test_extra_error():
    with pytest.raises(AnsibleFilterError) as info:
        F["rt_kernel_args"]({"isolated": [1], "housekeeping": [0]}, extra=["two words"])
    assert "rt_host_kernel_args_extra='two words'" in str(info.value)


def test_hugepages_filter(hosts):
    plan = F["hugepages_plan"](hosts["test_host"], [{"size": "2M", "count": 16, "node": 0}])
    assert plan["targets"][0]["count"] == 16
    with pytest.raises(AnsibleFilterError) as info:
        F["hugepages_plan"](hosts["test_host"], [{"size": "2M", "count": 999999, "node": 0}])
    assert "hugepages_plan: hugepages_pages=" in str(info.value)
    assert "only 8192 MiB" in str(info.value)


def test_grubby_filter():
    assert F["rt_grubby_entries"]('args="ro quiet"\n') == [["ro", "quiet"]]
