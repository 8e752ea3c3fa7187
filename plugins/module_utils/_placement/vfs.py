# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""QAT VFs in placement: free VFs per NUMA node, what each placed domain takes (pure)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._placement.inputs import VARIABLE


def vf_counts(vf_free):
    """``{node id: free VFs}`` from the ``vf_free`` argument, or None."""
    if vf_free is None:
        return None
    if not isinstance(vf_free, dict):
        raise OptionError("vf_free", vf_free, "must map NUMA node ids to free VF counts",
                          "pass the output of realtime.virt.rt_domain_vf_free, e.g. {0: 4, 1: 0}")
    counts = {}
    for key, value in vf_free.items():
        try:
            node_id, free = int(key), int(value)
        except (TypeError, ValueError):
            raise OptionError("vf_free", vf_free, "%r: %r is not a node id with a whole VF count" % (key, value),
                              "pass the output of realtime.virt.rt_domain_vf_free, e.g. {0: 4, 1: 0}")
        counts[node_id] = counts.get(node_id, 0) + max(free, 0)
    return counts


def free_vfs_per_node(vfs, defined=None, keep=None, nodes=None):
    """Free assignable VFs per NUMA node, for ``plan_domains(vf_free=...)``.

    ``vfs``: qat_vf_info's ``assignable_vfs``.  ``defined``: the domains of
    libvirt_rt_domain_info; the ``hostdevs`` of every defined domain are not
    free, except those of the domains named in ``keep`` (the ones being
    planned now, which the QAT selection gives their own VFs back).  A VF
    whose NUMA node the kernel does not know (-1) counts on every node, as
    the selection lets it go anywhere.  ``nodes``: node ids to report even
    with no VF (0 then).
    """
    if not isinstance(vfs, list):
        raise OptionError("vfs", vfs, "must be a list of VFs", "pass qat_vf_info's assignable_vfs")
    keep = set(keep or [])
    held = set()
    for dom in defined or []:
        if isinstance(dom, dict) and dom.get("name") not in keep:
            held.update(str(address).lower() for address in dom.get("hostdevs") or [])
    free, anywhere = dict((int(n), 0) for n in nodes or []), 0
    for vf in vfs:
        if not isinstance(vf, dict) or not isinstance(vf.get("pci_address"), str):
            raise OptionError("vfs", vf, "a VF without pci_address", "pass qat_vf_info's assignable_vfs")
        if vf.get("assignable") is False or vf["pci_address"].lower() in held:
            continue
        node = vf.get("numa_node")
        if isinstance(node, bool) or not isinstance(node, int) or node < 0:
            anywhere += 1
        else:
            free[node] = free.get(node, 0) + 1
    return dict((node, count + anywhere) for node, count in free.items())


def vfs_fit(vf_free, node_id, count):
    if not count or vf_free is None:
        return True
    return vf_free.get(node_id, 0) >= count


def take_vfs(vf_left, node_id, count):
    """Count the VFs a placed domain will take off its node's free ones."""
    if vf_left is not None and count and node_id is not None:
        vf_left[node_id] = vf_left.get(node_id, 0) - count


def attach_vfs(plan, selection):
    """Add the VFs chosen per domain (``{domain: [pci addresses]}``) to its hostdevs."""
    selection = selection or {}
    result = copy.deepcopy(plan)
    for dom in result["domains"]:
        addresses = selection.get(dom["name"]) or []
        if dom["qat_vfs"] and len(addresses) != dom["qat_vfs"]:
            raise OptionError("%s (%s).qat_vfs" % (VARIABLE, dom["name"]), dom["qat_vfs"],
                              "the QAT selection gave %d VFs" % len(addresses),
                              "create more VFs with the realtime.virt.qat role or lower qat_vfs")
        if addresses:
            hostdevs = list(dom["options"].get("hostdevs") or [])
            for address in addresses:
                if address not in hostdevs:
                    hostdevs.append(address)
            dom["options"]["hostdevs"] = hostdevs
    return result
