# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""PCI functions as the kernel shows them under /sys/bus/pci (read only).

Addresses are what ``lspci -D`` prints and sysfs names its directories
(``0000:6b:00.1``).  Everything is read through :class:`HostReader`, so
the live host and a fake tree are read the same way:

* ``vendor``/``device`` ids, ``numa_node``;
* the ``driver`` and ``iommu_group`` links (their last component is the
  driver name and the group number), ``driver_override``;
* SR-IOV: ``sriov_totalvfs``/``sriov_numvfs`` of a physical function, its
  ``virtfnN`` links, and the ``physfn`` link of a virtual function.

IOMMU group numbers may change across reboots; addresses do not, so
callers identify functions by address.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

PCI_DEVICES = "/sys/bus/pci/devices"
PCI_DRIVERS = "/sys/bus/pci/drivers"
DRIVERS_PROBE = "/sys/bus/pci/drivers_probe"
# The form sysfs uses: four, two, two hex digits and the function.
ADDRESS = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
# What a person may write: the domain is optional, any case.
_LOOSE = re.compile(r"^(?:([0-9a-fA-F]{1,4}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\.([0-7])$")
_VIRTFN = re.compile(r"^virtfn(\d+)$")
MAX_SLOT = 0x1F


def parse_address(text):
    """``0000:6b:00.1`` or ``6b:00.1`` -> ``(domain, bus, slot, function)``.

    Raises ValueError saying what is wrong.
    """
    match = _LOOSE.match(str(text).strip())
    if not match:
        raise ValueError("not a PCI address; write it as DDDD:BB:SS.F, for example 0000:6b:00.1")
    domain = int(match.group(1) or "0", 16)
    bus, slot, function = int(match.group(2), 16), int(match.group(3), 16), int(match.group(4))
    if slot > MAX_SLOT:
        raise ValueError("PCI slot %#x is above %#x" % (slot, MAX_SLOT))
    return (domain, bus, slot, function)


def format_address(parts):
    """``(0, 0x6b, 0, 1)`` -> ``0000:6b:00.1``."""
    return "%04x:%02x:%02x.%x" % tuple(parts)


def device_path(address, name=""):
    """The sysfs path of a function, or of one of its attributes."""
    base = "%s/%s" % (PCI_DEVICES, address)
    return "%s/%s" % (base, name) if name else base


def exists(reader, address):
    return reader.exists(device_path(address))


def driver(reader, address):
    """Name of the driver bound to ``address``, or None."""
    return reader.link_name(device_path(address, "driver"))


def driver_loaded(reader, name):
    """Whether the PCI driver ``name`` is registered (/sys/bus/pci/drivers/<name>)."""
    return reader.exists("%s/%s" % (PCI_DRIVERS, name))


def driver_override(reader, address):
    """The driver a function is reserved for, or None (the kernel writes ``(null)``)."""
    value = reader.read(device_path(address, "driver_override"), optional=True)
    return None if value in (None, "", "(null)") else value


def iommu_group(reader, address):
    name = reader.link_name(device_path(address, "iommu_group"))
    return int(name) if name is not None and name.isdigit() else None


def numa_node(reader, address):
    """The function's NUMA node; -1 when the kernel does not know it."""
    return reader.read_int(device_path(address, "numa_node"), optional=True)


def ids(reader, address):
    """``(vendor, device)`` as the kernel writes them (``0x8086``, ``0x4940``)."""
    return (reader.read(device_path(address, "vendor"), optional=True),
            reader.read(device_path(address, "device"), optional=True))


def virtfns(reader, pf):
    """``[(index, vf address)]`` of a physical function, by VF index."""
    found = []
    for name in reader.listdir(device_path(pf), optional=True):
        match = _VIRTFN.match(name)
        if match:
            target = reader.link_name(device_path(pf, name))
            if target:
                found.append((int(match.group(1)), target))
    return sorted(found)


def physfn(reader, vf):
    """Address of a virtual function's physical function, or None."""
    return reader.link_name(device_path(vf, "physfn"))


def function(reader, address):
    """What a function's binding looks like: driver, override, IOMMU group, node."""
    return {
        "pci_address": address,
        "driver": driver(reader, address),
        "driver_override": driver_override(reader, address),
        "iommu_group": iommu_group(reader, address),
        "numa_node": numa_node(reader, address),
    }


def addresses(reader):
    """Every PCI function the host shows."""
    return reader.listdir(PCI_DEVICES, optional=True)
