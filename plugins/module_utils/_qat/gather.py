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

import os
import re

from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._qat import devices

PCI_DEVICES = "/sys/bus/pci/devices"
PCI_ADDRESS = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
_VIRTFN = re.compile(r"^virtfn(\d+)$")


class QatInfoError(Exception):
    """The tree to read is not usable at all."""


def _dev(address, name=""):
    return "%s/%s/%s" % (PCI_DEVICES, address, name) if name else "%s/%s" % (PCI_DEVICES, address)


def _group(reader, address):
    name = reader.link_name(_dev(address, "iommu_group"))
    try:
        return int(name) if name is not None else None
    except ValueError:
        return None


def _override(reader, address):
    value = reader.read(_dev(address, "driver_override"), optional=True)
    if value in (None, "", "(null)"):
        return None
    return value


def _read_vf(reader, address, generation, pf_address, index):
    driver = reader.link_name(_dev(address, "driver"))
    group = _group(reader, address)
    return {
        "pci_address": address,
        "device_id": generation["vf_device_id"],
        "generation": generation["generation"],
        "pf": pf_address,
        "index": index,
        "driver": driver,
        "driver_override": _override(reader, address),
        "iommu_group": group,
        "vfio_device": "/dev/vfio/%d" % group if group is not None and driver == devices.VFIO_DRIVER else None,
        "numa_node": reader.read_int(_dev(address, "numa_node"), optional=True),
        "assignable": driver == devices.VFIO_DRIVER,
    }


def _virtfns(reader, pf_address):
    """``[(index, vf address)]`` of a PF, by VF index."""
    found = []
    for name in reader.listdir(_dev(pf_address), optional=True):
        match = _VIRTFN.match(name)
        if match:
            target = reader.link_name(_dev(pf_address, name))
            if target:
                found.append((int(match.group(1)), target))
    return sorted(found)


def _read_pf(reader, address, generation):
    services = generation["services_supported"]
    vfs = [_read_vf(reader, vf, generation, address, index) for index, vf in _virtfns(reader, address)]
    return {
        "pci_address": address,
        "device_id": generation["pf_device_id"],
        "generation": generation["generation"],
        "family": generation["family"],
        "driver": reader.link_name(_dev(address, "driver")),
        "expected_driver": generation["pf_driver"],
        "kernel_module": generation["kernel_module"],
        "firmware": list(generation["firmware"]),
        "vf_device_id": generation["vf_device_id"],
        "vf_driver": generation["vf_driver"],
        "vfio_denylist": generation["vfio_denylist"],
        "services_supported": services,
        "numa_node": reader.read_int(_dev(address, "numa_node"), optional=True),
        "iommu_group": _group(reader, address),
        "sriov_totalvfs": reader.read_int(_dev(address, "sriov_totalvfs"), optional=True),
        "sriov_numvfs": reader.read_int(_dev(address, "sriov_numvfs"), optional=True),
        "state": reader.read(_dev(address, "qat/state"), optional=True) if services else None,
        "cfg_services": reader.read(_dev(address, "qat/cfg_services"), optional=True) if services else None,
        "vfs": vfs,
    }


def gather_qat(root="/"):
    """Return ``(info, warnings)`` for the host tree at ``root``."""
    if not os.path.isdir(root or "/"):
        raise QatInfoError("root=%r is not a directory: give the directory that stands for / of the host" % root)
    reader = HostReader(root)
    pfs, lone_vfs = [], []
    for address in reader.listdir(PCI_DEVICES, optional=True):
        kind, generation = devices.classify(reader.read(_dev(address, "vendor"), optional=True),
                                            reader.read(_dev(address, "device"), optional=True))
        if kind == "pf":
            pfs.append(_read_pf(reader, address, generation))
        elif kind == "vf":
            lone_vfs.append((address, generation))

    known = set(vf["pci_address"] for pf in pfs for vf in pf["vfs"])
    vfs = [vf for pf in pfs for vf in pf["vfs"]]
    for address, generation in lone_vfs:
        if address in known:
            continue
        pf_address = reader.link_name(_dev(address, "physfn"))
        vfs.append(_read_vf(reader, address, generation, pf_address, None))
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
