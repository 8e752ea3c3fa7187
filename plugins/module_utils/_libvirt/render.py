# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Plan -> libvirt domain XML (lxml), pure.

Without ``base_xml`` the whole domain is drawn from the plan.  With it, a
copy of the base is taken and only the managed elements (``<vcpu>``,
``<memory>``, ``<cputune>``, ``<memoryBacking>``, ``<numatune>``,
``<cpu>``, ``<pmu>``, ``<rng>``, the module's ``<hostdev>``, the real-time
``<memballoon>`` and, when given, boot/disks/interfaces/serial) are
replaced; everything else in the base is kept as it is.

Values are written the way libvirt stores them (memory in KiB, cpusets in
their shortest form) so libvirt has little to normalise, but the
comparison in _compare never relies on that.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import format_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError

try:
    from lxml import etree
except ImportError:  # pragma: no cover - reported by the module through missing_required_lib
    etree = None

# Top-level elements the module owns: when the plan does not want one, it
# must not be in the domain.
OWNED_TOP = ("vcpu", "memory", "cputune", "memoryBacking", "numatune", "cpu")

# Children that the module owns inside a container: any of these in
# libvirt's XML that the plan does not want is a difference.  Children not
# listed (addresses, aliases, libvirt's defaults) are never differences.
OWNED_CHILDREN = {
    "cputune": ("vcpupin", "emulatorpin", "vcpusched", "iothreadpin", "emulatorsched"),
    "memoryBacking": ("hugepages", "nosharepages", "locked"),
    "hugepages": ("page",),
    "numatune": ("memory", "memnode"),
    "cpu": ("feature", "numa", "topology"),
    "numa": ("cell",),
    "features": ("pmu",),
    "rng": ("rate", "backend"),
}

# Device kinds owned in <devices> (in base_xml mode only those the options
# set; see device_kinds()).
DEVICE_KINDS = ("disk", "interface", "serial", "rng", "hostdev")


def parse_xml(text, option="base_xml"):
    """Parse domain XML text; raise InputError when it is not a <domain>."""
    if isinstance(text, str):
        text = text.encode("utf-8")
    try:
        parser = etree.XMLParser(remove_blank_text=True, resolve_entities=False, no_network=True)
        root = etree.fromstring(text, parser)
    except etree.XMLSyntaxError as error:
        raise OptionError(option, "<xml>", "not well-formed XML: %s" % error)
    if root.tag != "domain":
        raise OptionError(option, "<%s>" % root.tag, "the root element must be <domain>")
    return root


def to_text(root):
    return etree.tostring(root, pretty_print=True, encoding="unicode")


def _el(parent, tag, text=None, **attrs):
    node = etree.SubElement(parent, tag)
    for key, value in attrs.items():
        if value is not None:
            node.set(key.rstrip("_"), str(value))
    if text is not None:
        node.text = str(text)
    return node


def device_kinds(plan, base_mode):
    """Device tags in <devices> whose set is fully decided by the module."""
    if not base_mode:
        return DEVICE_KINDS
    kinds = ["rng", "hostdev"]
    if plan.get("disks"):
        kinds.append("disk")
    if plan.get("interfaces"):
        kinds.append("interface")
    if plan.get("serial_log"):
        kinds.append("serial")
    return tuple(kinds)


def render(plan, base_root=None):
    """Return the wanted ``<domain>`` element for ``plan``."""
    if base_root is None:
        root = etree.Element("domain", type=plan["domain_type"])
        _el(root, "name", plan["name"])
        base_mode = False
    else:
        root = etree.fromstring(etree.tostring(base_root))
        root.set("type", plan["domain_type"])
        name = root.find("name")
        if name is None:
            name = etree.Element("name")
            root.insert(0, name)
        name.text = plan["name"]
        base_mode = True

    if plan["set_memory"]:
        _replace(root, "memory", _memory(plan))
        for stale in root.findall("currentMemory"):
            root.remove(stale)
    if plan["set_vcpus"]:
        node = etree.Element("vcpu")
        node.text = str(plan["vcpus"])
        _replace(root, "vcpu", node)
    _replace(root, "memoryBacking", _memory_backing(plan))
    _replace(root, "cputune", _cputune(plan))
    _replace(root, "numatune", _numatune(plan))
    _os(root, plan, base_mode)
    _features(root, plan, base_mode)
    _replace(root, "cpu", _cpu(plan))
    _devices(root, plan, base_mode)
    return root


_ORDER = ("name", "uuid", "metadata", "memory", "currentMemory", "vcpu", "iothreads", "cputune", "memoryBacking",
          "numatune", "os", "features", "cpu", "clock", "on_poweroff", "on_reboot", "on_crash", "pm", "devices")


def _replace(root, tag, node):
    """Put ``node`` (or nothing) where the ``tag`` children of root were."""
    old = root.findall(tag)
    if old:
        index = root.index(old[0])
        for item in old:
            root.remove(item)
        if node is not None:
            root.insert(index, node)
        return
    if node is None:
        return
    rank = _ORDER.index(tag) if tag in _ORDER else len(_ORDER)
    for index, child in enumerate(root):
        if child.tag in _ORDER and _ORDER.index(child.tag) > rank:
            root.insert(index, node)
            return
    root.append(node)


def _memory(plan):
    node = etree.Element("memory", unit="KiB")
    node.text = str(plan["memory_kib"])
    return node


def _memory_backing(plan):
    if not (plan["hugepages"] or plan["nosharepages"] or plan["locked"]):
        return None
    node = etree.Element("memoryBacking")
    if plan["hugepages"]:
        pages = _el(node, "hugepages")
        nodeset = plan["hugepages"]["nodeset"]
        _el(pages, "page", size=plan["hugepages"]["size_kib"], unit="KiB",
            nodeset=format_cpuset(nodeset) if nodeset else None)
    if plan["nosharepages"]:
        _el(node, "nosharepages")
    if plan["locked"]:
        _el(node, "locked")
    return node


def _cputune(plan):
    if not (plan["pinning"] or plan["emulator"] or plan["realtime"]):
        return None
    node = etree.Element("cputune")
    for vcpu in sorted(plan["pinning"]):
        _el(node, "vcpupin", vcpu=vcpu, cpuset=format_cpuset(plan["pinning"][vcpu]))
    if plan["emulator"]:
        _el(node, "emulatorpin", cpuset=format_cpuset(plan["emulator"]))
    if plan["realtime"]:
        rt = plan["realtime"]
        _el(node, "vcpusched", vcpus=format_cpuset(rt["vcpus"]), scheduler=rt["scheduler"], priority=rt["priority"])
    return node


def _numatune(plan):
    if not (plan["numatune"] or plan["memnodes"]):
        return None
    node = etree.Element("numatune")
    if plan["numatune"]:
        _el(node, "memory", mode=plan["numatune"]["mode"], nodeset=format_cpuset(plan["numatune"]["nodeset"]))
    for memnode in plan["memnodes"]:
        _el(node, "memnode", cellid=memnode["cellid"], mode=memnode["mode"], nodeset=format_cpuset(memnode["nodeset"]))
    return node


def _os(root, plan, base_mode):
    os_node = root.find("os")
    if os_node is None:
        os_node = etree.Element("os")
        _replace(root, "os", os_node)
    kind = os_node.find("type")
    if kind is None:
        kind = etree.Element("type")
        kind.text = "hvm"
        os_node.insert(0, kind)
    if plan.get("machine"):
        kind.set("machine", plan["machine"])
    boot = plan.get("boot")
    if boot or not base_mode:
        for tag in ("kernel", "initrd", "cmdline"):
            for old in os_node.findall(tag):
                os_node.remove(old)
    if boot:
        for old in os_node.findall("boot"):
            os_node.remove(old)
        _el(os_node, "kernel", boot["kernel"])
        if boot.get("initrd"):
            _el(os_node, "initrd", boot["initrd"])
        if boot.get("cmdline"):
            _el(os_node, "cmdline", boot["cmdline"])
    elif not base_mode and os_node.find("boot") is None:
        _el(os_node, "boot", dev="hd")


def _features(root, plan, base_mode):
    features = root.find("features")
    if features is None:
        if base_mode and not plan["realtime"]:
            return
        features = etree.Element("features")
        _replace(root, "features", features)
        if not base_mode:
            _el(features, "acpi")
            _el(features, "apic")
    for old in features.findall("pmu"):
        features.remove(old)
    if plan["realtime"]:
        _el(features, "pmu", state="off")


def _cpu(plan):
    cpu = plan["cpu"]
    node = etree.Element("cpu", mode=cpu["mode"])
    if cpu["model"]:
        _el(node, "model", cpu["model"])
    if cpu["topology"]:
        topo = cpu["topology"]
        _el(node, "topology", sockets=topo["sockets"], cores=topo["cores"], threads=topo["threads"])
    for name, policy in cpu["features"]:
        _el(node, "feature", policy=policy, name=name)
    if plan["numa_cells"]:
        numa = _el(node, "numa")
        for cell in plan["numa_cells"]:
            _el(numa, "cell", id=cell["id"], cpus=format_cpuset(cell["cpus"]), memory=cell["memory_kib"], unit="KiB")
    return node


def _devices(root, plan, base_mode):
    devices = root.find("devices")
    if devices is None:
        devices = etree.Element("devices")
        _replace(root, "devices", devices)
    kinds = device_kinds(plan, base_mode)
    wanted_hostdevs = set(plan["hostdevs"])
    for child in list(devices):
        if child.tag in kinds and child.tag != "hostdev":
            devices.remove(child)
        elif child.tag == "hostdev" and _hostdev_address(child) in wanted_hostdevs:
            devices.remove(child)
        elif child.tag == "hostdev" and not base_mode:
            devices.remove(child)
        elif child.tag == "console" and "serial" in kinds:
            devices.remove(child)
        elif child.tag == "memballoon" and plan["memballoon_none"]:
            devices.remove(child)
    for disk in plan["disks"]:
        node = _el(devices, "disk", type="file", device=disk["device"])
        _el(node, "driver", name="qemu", type=disk["format"])
        _el(node, "source", file=disk["path"])
        _el(node, "target", dev=disk["target"], bus=disk["bus"])
    for iface in plan["interfaces"]:
        node = _el(devices, "interface", type=iface["type"])
        if iface["mac"]:
            _el(node, "mac", address=iface["mac"])
        if iface["type"] == "network":
            _el(node, "source", network=iface["source"])
        else:
            _el(node, "source", bridge=iface["source"])
        _el(node, "model", type=iface["model"])
    if plan["serial_log"]:
        node = _el(devices, "serial", type="file")
        _el(node, "source", path=plan["serial_log"])
        _el(node, "target", port="0")
    for address in plan["hostdevs"]:
        node = _el(devices, "hostdev", mode="subsystem", type="pci", managed="yes")
        source = _el(node, "source")
        _el(source, "address", domain="0x%04x" % address[0], bus="0x%02x" % address[1],
            slot="0x%02x" % address[2], function="0x%x" % address[3])
    if plan["rng"]:
        rng = plan["rng"]
        node = _el(devices, "rng", model=rng["model"])
        if rng["rate"]:
            _el(node, "rate", bytes=rng["rate"]["bytes"], period=rng["rate"]["period"])
        _el(node, "backend", rng["backend"], model="random")
    if plan["memballoon_none"]:
        _el(devices, "memballoon", model="none")


def _hostdev_address(node):
    """(domain, bus, slot, function) of a PCI hostdev element, or None."""
    if node.get("type") != "pci":
        return None
    address = node.find("source/address")
    if address is None:
        return None
    try:
        return tuple(int(address.get(k) or "0", 0) for k in ("domain", "bus", "slot", "function"))
    except ValueError:
        return None


def fill_identity(wanted, current):
    """Copy the UUID and interface MACs of ``current`` into ``wanted``.

    The UUID always comes from the existing domain.  An interface the user
    gave no MAC keeps the MAC of the existing interface in the same
    position with the same kind and source, so redefining never changes a
    guest's addresses.
    """
    if current is None:
        return wanted
    uuid = current.find("uuid")
    if uuid is not None:
        _replace(wanted, "uuid", etree.fromstring(etree.tostring(uuid)))
    have = current.findall("devices/interface")
    for index, iface in enumerate(wanted.findall("devices/interface")):
        if iface.find("mac") is not None or index >= len(have):
            continue
        old = have[index]
        mac = old.find("mac")
        if mac is None or old.get("type") != iface.get("type"):
            continue
        new = etree.Element("mac", address=mac.get("address"))
        iface.insert(0, new)
    return wanted
