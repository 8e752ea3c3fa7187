# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The <devices> of the wanted domain (lxml, pure): what the options draw there and which
device kinds the wanted domain fully lists.

render.render merges what ``devices()`` draws into the domain's <devices>;
owned.py declares the kinds, and conflicts.py which of a base_xml's
devices an option replaces.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._libvirt.owned import DEVICE_KINDS, STRIPPED_KINDS
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import element


def device_kinds(plan, base_mode):
    """Device tags in <devices> whose set the wanted domain fully lists.

    With base_xml the user's own devices of these kinds are part of the
    wanted domain, so the sets are complete in both modes; only the
    serial port is left out when the module does not write it, because
    libvirt adds a <serial> of its own for a user's serial <console>.
    """
    kinds = DEVICE_KINDS
    if base_mode and not plan.get("serial_log"):
        kinds = tuple(kind for kind in kinds if kind != "serial")
    if (plan.get("hardening") or {}).get("strip_devices"):
        kinds += STRIPPED_KINDS
    return kinds


def has_usb(root, plan):
    """Whether the domain has (or the module gives it) a USB controller or a USB device."""
    if any(disk["bus"] == "usb" for disk in plan["disks"]):
        return True
    for node in root.iterfind("devices/*"):
        if node.tag == "controller" and node.get("type") == "usb":
            return True
        if node.get("bus") == "usb" or (node.tag == "hostdev" and node.get("type") == "usb") or node.tag == "redirdev":
            return True
        target = node.find("target")
        if target is not None and target.get("bus") == "usb":
            return True
    return False


def devices(plan, usb=True):
    """The devices the options draw.

    ``usb``: whether the domain has a USB controller or device (has_usb()).
    """
    ours = []
    for disk in plan["disks"]:
        node = element(None, "disk", type="file", device=disk["device"])
        element(node, "driver", name="qemu", type=disk["format"], iothread=disk.get("iothread"))
        element(node, "source", file=disk["path"])
        element(node, "target", dev=disk["target"], bus=disk["bus"])
        ours.append(node)
    for iface in plan["interfaces"]:
        node = element(None, "interface", type=iface["type"])
        if iface["mac"]:
            element(node, "mac", address=iface["mac"])
        if iface["type"] == "network":
            element(node, "source", network=iface["source"])
        else:
            element(node, "source", bridge=iface["source"])
        element(node, "model", type=iface["model"])
        ours.append(node)
    if plan["serial_log"]:
        node = element(None, "serial", type="file")
        element(node, "source", path=plan["serial_log"])
        element(node, "target", port="0")
        ours.append(node)
    for address in plan["hostdevs"]:
        node = element(None, "hostdev", mode="subsystem", type="pci", managed="yes")
        source = element(node, "source")
        element(source, "address", domain="0x%04x" % address[0], bus="0x%02x" % address[1],
                slot="0x%02x" % address[2], function="0x%x" % address[3])
        ours.append(node)
    if plan["rng"]:
        rng = plan["rng"]
        node = element(None, "rng", model=rng["model"])
        if rng["rate"]:
            element(node, "rate", bytes=rng["rate"]["bytes"], period=rng["rate"]["period"])
        element(node, "backend", rng["backend"], model="random")
        ours.append(node)
    if plan["memballoon_none"]:
        ours.append(element(None, "memballoon", model="none"))
    if (plan.get("hardening") or {}).get("strip_devices") and not usb:
        # libvirt adds a USB controller to every x86 domain unless told it has none
        ours.append(element(None, "controller", type="usb", model="none"))
    return ours
