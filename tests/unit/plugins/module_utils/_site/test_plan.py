# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""The site plan: boot arguments and IOMMU every stage hands rt_host."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._site.plan import site_plan, sriov_needs_iommu

QAT_C62X = {"kernel_args": ["intel_iommu=on", "iommu=pt", "vfio-pci.disable_denylist=1"]}


@pytest.mark.parametrize("pfs, driver, expected", [
    ([], "vfio-pci", False),
    ([{"pf": "0000:3b:00.0", "count": 2}], "vfio-pci", True),
    ([{"pf": "0000:3b:00.0", "count": 2, "driver": ""}], "vfio-pci", True),
    ([{"pf": "0000:3b:00.0", "count": 2, "driver": "iavf"}], "vfio-pci", False),
    ([{"pf": "0000:3b:00.0", "count": 2}], "iavf", False),
    ([{"pf": "0000:3b:00.0", "count": 2}, {"pf": "0000:3b:00.1", "count": 1, "driver": "vfio-pci"}], "iavf", True),
    ([{"pf": "0000:3b:00.0", "count": 2}], None, True),
])
def test_vfio_vfs_need_the_iommu(pfs, driver, expected):
    assert sriov_needs_iommu(pfs, driver) is expected


def test_the_plan_gathers_every_stage(hosts):
    plan = site_plan(hosts["two_socket_smt"], qat=QAT_C62X,
                     hugepages_pages=[{"size": "1G", "count": 4, "node": 0}, {"size": "2M", "count": 64, "node": 1}],
                     kernel_args_extra=["nmi_watchdog=0", "iommu=pt"], sriov_pfs=[])
    assert plan == {
        "hugepages_kernel_args": ["hugepagesz=1G", "hugepages=4"],
        "kernel_args_extra": ["nmi_watchdog=0", "iommu=pt", "intel_iommu=on", "vfio-pci.disable_denylist=1"],
        "iommu": False,
    }


def test_the_inventory_iommu_is_only_ever_turned_on(hosts):
    assert site_plan(hosts["test_host"], iommu=True)["iommu"] is True
    assert site_plan(hosts["test_host"], sriov_pfs=[{"pf": "0000:3b:00.0", "count": 1}])["iommu"] is True
    assert site_plan(hosts["test_host"])["iommu"] is False


def test_a_bad_stage_input_fails_the_plan(hosts):
    with pytest.raises(OptionError, match=r"hugepages_pages\[0\]\.size='3M'"):
        site_plan(hosts["test_host"], hugepages_pages=[{"size": "3M", "count": 1}])
    with pytest.raises(OptionError, match="sriov_pfs='0000:3b:00.0': not a list"):
        site_plan(hosts["test_host"], sriov_pfs="0000:3b:00.0")
