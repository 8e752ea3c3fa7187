# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan stage of site.yml: what the roles hand each other."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._site.plan import site_plan


def rt_site_plan(rt_node, qat=None, hugepages_pages=None, hugepages_default_size=None, kernel_args_extra=None,
                 iommu=False, sriov_pfs=None, sriov_vf_driver="vfio-pci"):
    """``ansible_facts.rt_node`` + the inventory's stage variables -> boot arguments and IOMMU for rt_host."""
    try:
        return site_plan(rt_node, qat=qat, hugepages_pages=hugepages_pages, hugepages_default_size=hugepages_default_size,
                         kernel_args_extra=kernel_args_extra, iommu=iommu, sriov_pfs=sriov_pfs,
                         sriov_vf_driver=sriov_vf_driver)
    except OptionError as error:
        raise AnsibleFilterError("rt_site_plan: %s" % error)


class FilterModule(object):
    """site.yml plan filter."""

    def filters(self):
        return {"rt_site_plan": rt_site_plan}
