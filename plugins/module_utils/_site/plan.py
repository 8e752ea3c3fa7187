# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What site.yml's stages hand each other, computed once before any change (pure).

rt_host writes the kernel command line once, but three stages want boot
arguments in it: the hugepages role (1G pages and a default size can only
be given at boot), the qat role (IOMMU and, for older generations, the
vfio-pci denylist) and the sriov role (VFs on vfio-pci need the IOMMU).
rt_host runs first, so the plan computes their contributions here, with
the same planning code the roles use.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._hugepages.plan import hugepage_plan

VFIO = "vfio-pci"


def sriov_needs_iommu(sriov_pfs, vf_driver=VFIO):
    """Whether any PF of ``sriov_pfs`` puts its VFs on vfio-pci (its driver, else ``vf_driver``)."""
    if not isinstance(sriov_pfs, list):
        raise OptionError("sriov_pfs", sriov_pfs, "not a list", "give a list such as [{pf: '0000:3b:00.0', count: 4}]")
    default = vf_driver or VFIO
    return any(isinstance(pf, dict) and (pf.get("driver") or default) == VFIO for pf in sriov_pfs)


def site_plan(rt_node, qat=None, hugepages_pages=None, hugepages_default_size=None, kernel_args_extra=None,
              iommu=False, sriov_pfs=None, sriov_vf_driver=VFIO):
    """``{hugepages_kernel_args, kernel_args_extra, iommu}`` for the roles of site.yml.

    ``qat`` is what qat_vf_info returned (its ``kernel_args``);
    the other arguments are the inventory's variables of the same names.
    """
    hugepages = hugepage_plan(rt_node, hugepages_pages or [], default_size=hugepages_default_size or None)
    extra = list(kernel_args_extra or [])
    for word in (qat or {}).get("kernel_args") or []:
        if word not in extra:
            extra.append(word)
    return {
        "hugepages_kernel_args": hugepages["kernel_args"],
        "kernel_args_extra": extra,
        "iommu": bool(iommu) or sriov_needs_iommu(sriov_pfs or [], sriov_vf_driver),
    }
