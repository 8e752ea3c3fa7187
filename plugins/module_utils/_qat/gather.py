# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read every QAT physical function (PF) and virtual function (VF).

Only plain reads of ``/sys/bus/pci/devices/<address>/...`` through
HostReader: ``vendor``, ``device``, ``numa_node``, the ``driver`` and
``iommu_group`` links, ``sriov_totalvfs``/``sriov_numvfs``, the ``virtfnN``
links of a PF and the ``physfn`` link of a VF, ``driver_override`` and,
on 4xxx/420xx, ``qat/state`` and ``qat/cfg_services``.  A host with no QAT
gives empty lists; a guest sees VFs with no PF.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._kernel import pci
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader, checked_root
from ansible_collections.realtime.virt.plugins.module_utils._qat import devices


def _read_vf(reader, address, generation, pf_address, index):
    vf = pci.function(reader, address)
    group = vf["iommu_group"]
    assignable = vf["driver"] == devices.VFIO_DRIVER
    return {
        "pci_address": address,
        "device_id": generation["vf_device_id"],
        "generation": generation["generation"],
        "pf": pf_address,
        "index": index,
        "driver": vf["driver"],
        "driver_override": vf["driver_override"],
        "iommu_group": group,
        "vfio_device": "/dev/vfio/%d" % group if group is not None and assignable else None,
        "numa_node": vf["numa_node"],
        "assignable": assignable,
    }


def _read_pf(reader, address, generation):
    services = generation["services_supported"]
    vfs = [_read_vf(reader, vf, generation, address, index) for index, vf in pci.virtfns(reader, address)]

    def attribute(name):
        return reader.read(pci.device_path(address, name), optional=True) if services else None

    return {
        "pci_address": address,
        "device_id": generation["pf_device_id"],
        "generation": generation["generation"],
        "family": generation["family"],
        "driver": pci.driver(reader, address),
        "expected_driver": generation["pf_driver"],
        "kernel_module": generation["kernel_module"],
        "firmware": list(generation["firmware"]),
        "vf_device_id": generation["vf_device_id"],
        "vf_driver": generation["vf_driver"],
        "vfio_denylist": generation["vfio_denylist"],
        "services_supported": services,
        "numa_node": pci.numa_node(reader, address),
        "iommu_group": pci.iommu_group(reader, address),
        "sriov_totalvfs": reader.read_int(pci.device_path(address, "sriov_totalvfs"), optional=True),
        "sriov_numvfs": reader.read_int(pci.device_path(address, "sriov_numvfs"), optional=True),
        "state": attribute("qat/state"),
        "cfg_services": attribute("qat/cfg_services"),
        "vfs": vfs,
    }


def gather_qat(root="/"):
    """Return ``(info, warnings)`` for the host tree at ``root``."""
    reader = HostReader(checked_root(root or "/"))
    pfs, lone_vfs = [], []
    for address in pci.addresses(reader):
        vendor, device = pci.ids(reader, address)
        kind, generation = devices.classify(vendor, device)
        if kind == "pf":
            pfs.append(_read_pf(reader, address, generation))
        elif kind == "vf":
            lone_vfs.append((address, generation))

    known = set(vf["pci_address"] for pf in pfs for vf in pf["vfs"])
    vfs = [vf for pf in pfs for vf in pf["vfs"]]
    for address, generation in lone_vfs:
        if address in known:
            continue
        vfs.append(_read_vf(reader, address, generation, pci.physfn(reader, address), None))
    vfs.sort(key=lambda vf: vf["pci_address"])

    generations = []
    for entry in devices.GENERATIONS:
        if any(pf["generation"] == entry["generation"] for pf in pfs):
            generations.append(entry["generation"])
    info = {
        "root": reader.root,
        "present": bool(pfs or vfs),
        "pfs": pfs,
        "vfs": vfs,
        "assignable_vfs": [vf for vf in vfs if vf["assignable"]],
        "generations": generations,
        "kernel_modules": devices.kernel_modules(generations),
        "kernel_args": devices.kernel_args(generations),
    }
    return info, reader.warnings
