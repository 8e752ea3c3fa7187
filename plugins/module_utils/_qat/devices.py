# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The QAT generations this collection knows, by PCI device id.

Driver names are those the kernel shows under ``/sys/bus/pci/drivers``
(the ``name`` of each ``pci_driver``), which carry no ``qat_`` prefix;
module names are what ``modprobe`` loads.  From the 4xxx family on there is
no in-kernel VF driver: VFs are meant for ``vfio-pci``.  Linux 5.9 put the
DH895xCC, C62x and C3xxx functions on vfio-pci's denylist, so passing
their VFs through needs ``vfio-pci.disable_denylist=1``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

INTEL_VENDOR = "8086"
VFIO_DRIVER = "vfio-pci"
IOMMU_KERNEL_ARGS = ("intel_iommu=on", "iommu=pt")
DENYLIST_KERNEL_ARG = "vfio-pci.disable_denylist=1"


def _gen(name, family, pf_id, vf_id, pf_driver, vf_driver, module, firmware, services, denylist):
    return {
        "generation": name,
        "family": family,
        "pf_device_id": pf_id,
        "vf_device_id": vf_id,
        "pf_driver": pf_driver,
        "vf_driver": vf_driver,
        "kernel_module": module,
        "firmware": list(firmware),
        "services_supported": services,
        "vfio_denylist": denylist,
    }


# One entry per generation, oldest first.
GENERATIONS = (
    _gen("dh895xcc", "gen1", "0435", "0443", "dh895xcc", "dh895xccvf", "qat_dh895xcc",
         ("qat_895xcc.bin", "qat_895xcc_mmp.bin"), False, True),
    _gen("c62x", "gen2", "37c8", "37c9", "c6xx", "c6xxvf", "qat_c62x",
         ("qat_c62x.bin", "qat_c62x_mmp.bin"), False, True),
    _gen("c3xxx", "gen2", "19e2", "19e3", "c3xxx", "c3xxxvf", "qat_c3xxx",
         ("qat_c3xxx.bin", "qat_c3xxx_mmp.bin"), False, True),
    _gen("4xxx", "gen4", "4940", "4941", "4xxx", None, "qat_4xxx",
         ("qat_4xxx.bin", "qat_4xxx_mmp.bin"), True, False),
    _gen("401xx", "gen4", "4942", "4943", "4xxx", None, "qat_4xxx",
         ("qat_4xxx.bin", "qat_4xxx_mmp.bin"), True, False),
    _gen("402xx", "gen4", "4944", "4945", "4xxx", None, "qat_4xxx",
         ("qat_402xx.bin", "qat_402xx_mmp.bin"), True, False),
    _gen("420xx", "gen4", "4946", "4947", "420xx", None, "qat_420xx",
         ("qat_420xx.bin", "qat_420xx_mmp.bin"), True, False),
)

BY_PF_ID = dict((g["pf_device_id"], g) for g in GENERATIONS)
BY_VF_ID = dict((g["vf_device_id"], g) for g in GENERATIONS)

FIRMWARE_PACKAGES = {
    "Debian": "firmware-misc-nonfree (from the non-free-firmware component)",
    "RedHat": "linux-firmware",
}


def normalise_id(text):
    """``'0x4940'`` (as sysfs writes it) -> ``'4940'``; None stays None."""
    if text is None:
        return None
    value = text.strip().lower()
    if value.startswith("0x"):
        value = value[2:]
    return value.zfill(4)


def classify(vendor, device):
    """Return ``('pf'|'vf', generation entry)`` or ``(None, None)``."""
    if normalise_id(vendor) != INTEL_VENDOR:
        return None, None
    device = normalise_id(device)
    if device in BY_PF_ID:
        return "pf", BY_PF_ID[device]
    if device in BY_VF_ID:
        return "vf", BY_VF_ID[device]
    return None, None


def kernel_modules(generations):
    """PF modules of the given generation names, then vfio-pci, no repeats."""
    modules = []
    for entry in GENERATIONS:
        if entry["generation"] in generations and entry["kernel_module"] not in modules:
            modules.append(entry["kernel_module"])
    if modules:
        modules.append(VFIO_DRIVER)
    return modules


def kernel_args(generations):
    """Boot arguments QAT VF passthrough needs for these generation names."""
    if not generations:
        return []
    args = list(IOMMU_KERNEL_ARGS)
    if any(entry["vfio_denylist"] for entry in GENERATIONS if entry["generation"] in generations):
        args.append(DENYLIST_KERNEL_ARG)
    return args
