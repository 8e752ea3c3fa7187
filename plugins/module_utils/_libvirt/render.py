# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Plan -> libvirt domain XML (lxml), pure.

Without ``base_xml`` the whole domain is drawn from the plan.  With it, a
copy of the base is taken and the module's elements are merged into it
child by child (merge.py): inside every parent the base shares with the
module (``<cputune>``, ``<memoryBacking>``, ``<numatune>``, ``<os>``,
``<features>``, ``<cpu>``, ``<devices>``, the ``<domain>`` itself) the
module's children replace only the user's children they conflict with
(the ``<vcpupin>`` of a vCPU the options pin, a ``<vcpusched>`` over a
real-time vCPU, a ``<feature>`` of the same name...); every other child
and attribute stays as the user wrote it.  docs/libvirt_rt_domain.md
lists what the module owns.

Values are written the way libvirt stores them (memory in KiB, cpusets in
their shortest form) so libvirt has little to normalise, but the
comparison in compare.py never relies on that.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import format_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._common.units import to_kib
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.merge import (
    ids, merge_children, sort_children, without_ids)

try:
    from lxml import etree
except ImportError:  # pragma: no cover - reported by the module through missing_required_lib
    etree = None

# Top-level elements the module owns: when the plan does not want one, it
# must not be in the domain.
OWNED_TOP = ("vcpu", "memory", "cputune", "memoryBacking", "numatune", "cpu", "iothreads", "pm")

# Children the module writes inside a container.  The wanted domain lists
# every child of these kinds (the module's and, with base_xml, the user's
# it keeps), so one in libvirt's XML that the wanted domain lacks is a
# difference and removing an option is seen.  Children not listed
# (addresses, aliases, libvirt's defaults, the user's <shares>) are
# never differences by their mere presence.
OWNED_CHILDREN = {
    "cputune": ("vcpupin", "emulatorpin", "vcpusched", "iothreadpin", "cachetune", "memorytune"),
    "cachetune": ("cache",),
    "memorytune": ("node",),
    "memoryBacking": ("hugepages", "nosharepages", "locked", "allocation"),
    "hugepages": ("page",),
    "numatune": ("memory", "memnode"),
    "cpu": ("feature", "numa", "topology"),
    "numa": ("cell",),
    "features": ("pmu", "kvm"),
    "kvm": ("hint-dedicated",),
    "clock": ("timer",),
    "rng": ("rate", "backend"),
}

# Devices a hardened domain has only when base_xml asks for them.
STRIPPED_KINDS = ("graphics", "sound")

# Device kinds whose whole set the wanted domain lists (see device_kinds()).
DEVICE_KINDS = ("disk", "interface", "serial", "rng", "hostdev")

# CPU modes for which libvirt ignores (and drops) <model>, <vendor> and match.
MODELLESS_MODES = ("host-passthrough", "maximum")


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
    node = etree.SubElement(parent, tag) if parent is not None else etree.Element(tag)
    for key, value in attrs.items():
        if value is not None:
            node.set(key.rstrip("_"), str(value))
    if text is not None:
        node.text = str(text)
    return node


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


def render(plan, base_root=None):
    """Return the wanted ``<domain>`` element for ``plan``."""
    if base_root is None:
        root = etree.Element("domain", type=plan["domain_type"])
        _el(root, "name", plan["name"])
        base_mode = False
    else:
        root = copy.deepcopy(base_root)
        root.set("type", plan["domain_type"])
        name = root.find("name")
        if name is None:
            name = etree.Element("name")
            root.insert(0, name)
        name.text = plan["name"]
        base_mode = True

    _top(root, plan)
    _merge(root, "memoryBacking", *_memory_backing(plan))
    _merge(root, "cputune", *_cputune(plan))
    _merge(root, "numatune", *_numatune(plan))
    _os(root, plan, base_mode)
    _features(root, plan, base_mode)
    _cpu(root, plan)
    _clock(root, plan, base_mode)
    _merge(root, "pm", *_pm(plan))
    _merge(root, "devices", *_devices(plan, _has_usb(root, plan)), keep_empty=True)
    sort_children(root)
    return root


def _merge(root, tag, ours, conflicts, keep_empty=False):
    """Merge ``ours`` into the ``tag`` child of root (created when missing and needed)."""
    node = root.find(tag)
    if node is None:
        if not ours and not keep_empty:
            return None
        node = _el(root, tag)
    replaced = merge_children(node, ours, conflicts)
    if replaced and not keep_empty and not len(node) and not node.attrib:
        root.remove(node)
        return None
    return node


def _top(root, plan):
    """<memory>, <currentMemory>, <vcpu> (and <vcpus>) when the options give them."""
    if plan["set_memory"]:
        old = root.find("memory")
        node = etree.Element("memory")
        if old is not None:
            for key, value in old.attrib.items():
                node.set(key, value)
            root.replace(old, node)
        else:
            root.append(node)
        node.set("unit", "KiB")
        node.text = str(plan["memory_kib"])
        for current in root.findall("currentMemory"):
            size = to_kib((current.text or "").strip(), current.get("unit"))
            if size is None or size > plan["memory_kib"]:
                root.remove(current)  # above the new size: libvirt would refuse it
    if plan["iothreads"] is not None:
        for node in root.findall("iothreads"):
            root.remove(node)
        if plan["iothreads"]:
            _el(root, "iothreads", plan["iothreads"])
    if plan["set_vcpus"]:
        node = root.find("vcpu")
        if node is None:
            node = _el(root, "vcpu")
        node.text = str(plan["vcpus"])
        current = node.get("current")
        if current is not None and (not current.isdigit() or int(current) > plan["vcpus"]):
            del node.attrib["current"]
        for listing in root.findall("vcpus"):
            numbers = [item.get("id") or "" for item in listing.findall("vcpu")]
            if any(not number.isdigit() or int(number) >= plan["vcpus"] for number in numbers):
                root.remove(listing)


def _beyond(plan, numbers):
    """Those of the vCPU ids ``numbers`` that the vCPU count of the options no longer has."""
    if not plan["set_vcpus"]:
        return set()
    return set(number for number in numbers if number >= plan["vcpus"])


def _memory_backing(plan):
    ours = []
    if plan["hugepages"]:
        pages = _el(None, "hugepages")
        nodeset = plan["hugepages"]["nodeset"]
        _el(pages, "page", size=plan["hugepages"]["size_kib"], unit="KiB",
            nodeset=format_cpuset(nodeset) if nodeset else None)
        ours.append(pages)
    if plan["nosharepages"]:
        ours.append(_el(None, "nosharepages"))
    if plan["locked"]:
        ours.append(_el(None, "locked"))
    immediate = bool((plan.get("hardening") or {}).get("immediate_allocation"))
    if immediate:
        ours.append(_el(None, "allocation", mode="immediate"))

    def conflicts(child):
        if child.tag == "allocation" and immediate:
            return False
        if child.tag == "hugepages" and plan["hugepages"]:
            return False
        if child.tag == "nosharepages" and plan["nosharepages"]:
            return False
        if child.tag == "locked" and (plan["locked"] or plan.get("locked_given")):
            return False
        return None
    return ours, conflicts


def _cputune(plan):
    ours = []
    for vcpu in sorted(plan["pinning"]):
        ours.append(_el(None, "vcpupin", vcpu=vcpu, cpuset=format_cpuset(plan["pinning"][vcpu])))
    if plan["emulator"]:
        ours.append(_el(None, "emulatorpin", cpuset=format_cpuset(plan["emulator"])))
    # the IO threads the options ask for run with the emulator (KubeVirt's
    # isolateEmulatorThread does the same); base_xml's own IO threads keep its pins
    managed = plan["emulator"] and plan["iothreads"] is not None
    iothread_ids = set(range(1, plan["iothreads"] + 1)) if managed else set()
    for iothread in sorted(iothread_ids):
        ours.append(_el(None, "iothreadpin", iothread=iothread, cpuset=format_cpuset(plan["emulator"])))
    realtime = plan["realtime"]
    if realtime:
        ours.append(_el(None, "vcpusched", vcpus=format_cpuset(realtime["vcpus"]), scheduler=realtime["scheduler"],
                        priority=realtime["priority"]))
    realtime_vcpus = set(realtime["vcpus"]) if realtime else set()
    for group in plan.get("cachetune") or []:
        node = _el(None, "cachetune", vcpus=format_cpuset(group["vcpus"]))
        for cache in group["caches"]:
            _el(node, "cache", id=cache["id"], level=cache["level"], type=cache["type"], size=cache["size_kib"],
                unit="KiB")
        ours.append(node)
    for group in plan.get("memorytune") or []:
        node = _el(None, "memorytune", vcpus=format_cpuset(group["vcpus"]))
        for entry in group["nodes"]:
            _el(node, "node", id=entry["id"], bandwidth=entry["bandwidth"])
        ours.append(node)
    tuned = dict((tag, set(v for group in plan.get(tag) or [] for v in group["vcpus"]))
                 for tag in ("cachetune", "memorytune"))

    def conflicts(child):
        if child.tag in tuned and (ids(child, "vcpus") & tuned[child.tag] or _beyond(plan, ids(child, "vcpus"))):
            return False
        if child.tag == "vcpupin":
            vcpu = ids(child, "vcpu")
            return False if vcpu & set(plan["pinning"]) or _beyond(plan, vcpu) else None
        if child.tag == "emulatorpin" and plan["emulator"]:
            return False
        if child.tag == "iothreadpin":
            iothread = ids(child, "iothread")
            beyond = plan["iothreads"] is not None and any(n > plan["iothreads"] for n in iothread)
            return False if iothread & iothread_ids or beyond else None
        if child.tag == "vcpusched":
            return without_ids(child, "vcpus", realtime_vcpus | _beyond(plan, ids(child, "vcpus")))
        return None
    return ours, conflicts


def _numatune(plan):
    ours = []
    if plan["numatune"]:
        ours.append(_el(None, "memory", mode=plan["numatune"]["mode"], nodeset=format_cpuset(plan["numatune"]["nodeset"])))
    for memnode in plan["memnodes"]:
        ours.append(_el(None, "memnode", cellid=memnode["cellid"], mode=memnode["mode"],
                        nodeset=format_cpuset(memnode["nodeset"])))
    cells = len(plan["numa_cells"])
    placed = set(memnode["cellid"] for memnode in plan["memnodes"])

    def conflicts(child):
        if child.tag == "memory" and plan["numatune"]:
            return False
        if child.tag == "memnode":
            cell = ids(child, "cellid")
            if cell & placed or (cells and not cell & set(range(cells))):
                return False
        return None
    return ours, conflicts


def _os(root, plan, base_mode):
    os_node = root.find("os")
    if os_node is None:
        os_node = _el(root, "os")
    kind = os_node.find("type")
    if kind is None:
        kind = etree.Element("type")
        kind.text = "hvm"
        os_node.insert(0, kind)
    if plan.get("machine"):
        kind.set("machine", plan["machine"])
    boot = plan.get("boot")
    ours = []
    if boot:
        ours.append(_el(None, "kernel", boot["kernel"]))
        if boot.get("initrd"):
            ours.append(_el(None, "initrd", boot["initrd"]))
        if boot.get("cmdline"):
            ours.append(_el(None, "cmdline", boot["cmdline"]))
    elif not base_mode and os_node.find("boot") is None:
        ours.append(_el(None, "boot", dev="hd"))

    def conflicts(child):
        if boot and child.tag in ("kernel", "initrd", "cmdline", "boot"):
            return False
        return None
    merge_children(os_node, ours, conflicts)


def _features(root, plan, base_mode):
    ours = []
    if not base_mode and root.find("features") is None:
        ours.extend([_el(None, "acpi"), _el(None, "apic")])
    if plan["realtime"]:
        ours.append(_el(None, "pmu", state="off"))
    if (plan.get("hardening") or {}).get("hint_dedicated"):
        hint = _el(None, "hint-dedicated", state="on")
        kvm = root.find("features/kvm")
        if kvm is None:
            kvm = _el(None, "kvm")
            ours.append(kvm)
        merge_children(kvm, [hint], lambda child: False if child.tag == "hint-dedicated" else None)

    def conflicts(child):
        return False if child.tag == "pmu" and plan["realtime"] else None
    _merge(root, "features", ours, conflicts)


def _clock(root, plan, base_mode):
    """<clock>: libvirt's default UTC clock, with the hardening's timers."""
    timers = (plan.get("hardening") or {}).get("timers") or []
    node = root.find("clock")
    if node is None:
        if base_mode and not timers:
            return
        node = _el(root, "clock", offset="utc")
    ours = []
    for timer in timers:
        present = None if timer["present"] is None else ("yes" if timer["present"] else "no")
        ours.append(_el(None, "timer", name=timer["name"], tickpolicy=timer["tickpolicy"], present=present))
    names = set(timer["name"] for timer in timers)
    merge_children(node, ours, lambda child: False if child.tag == "timer" and child.get("name") in names else None)


def _pm(plan):
    """<pm> with guest suspend off, unless the hardening lets the guest suspend."""
    hardening = plan.get("hardening")
    if not hardening or hardening["guest_suspend"]:
        return [], lambda child: None
    ours = [_el(None, "suspend-to-mem", enabled="no"), _el(None, "suspend-to-disk", enabled="no")]
    return ours, lambda child: False if child.tag in ("suspend-to-mem", "suspend-to-disk") else None


def _has_usb(root, plan):
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


def _cpu(root, plan):
    cpu = plan["cpu"]
    node = root.find("cpu")
    if node is None:
        node = _el(root, "cpu", mode=cpu["mode"])
    elif cpu["mode_given"]:
        node.set("mode", cpu["mode"])
    elif node.get("mode") is None and node.find("model") is None and cpu["features"]:
        # the user's <cpu> names no CPU at all, and libvirt refuses features without one
        node.set("mode", cpu["mode"])
    modelless = node.get("mode") in MODELLESS_MODES
    if modelless and "match" in node.attrib:
        del node.attrib["match"]  # libvirt drops it for these modes
    ours = []
    if cpu["model"]:
        ours.append(_el(None, "model", cpu["model"]))
    if cpu["topology"]:
        topo = cpu["topology"]
        ours.append(_el(None, "topology", sockets=topo["sockets"], cores=topo["cores"], threads=topo["threads"]))
    for name, policy in cpu["features"]:
        ours.append(_el(None, "feature", policy=policy, name=name))
    if plan["numa_cells"]:
        numa = _el(None, "numa")
        for cell in plan["numa_cells"]:
            _el(numa, "cell", id=cell["id"], cpus=format_cpuset(cell["cpus"]), memory=cell["memory_kib"], unit="KiB")
        ours.append(numa)
    names = set(name for name, _policy in cpu["features"])

    def conflicts(child):
        if child.tag == "model" and (cpu["model"] or modelless):
            return False
        if child.tag == "vendor" and modelless:
            return False
        if child.tag == "topology" and (cpu["topology"] or plan["set_vcpus"] and _threads(child) != plan["vcpus"]):
            return False
        if child.tag == "feature" and child.get("name") in names:
            return False
        if child.tag == "numa" and plan["numa_cells"]:
            return False
        return None
    merge_children(node, ours, conflicts)


def _threads(topology):
    total = 1
    for key in ("sockets", "dies", "clusters", "cores", "threads"):
        value = topology.get(key) or "1"
        total *= int(value) if value.isdigit() else 1
    return total


def _devices(plan, has_usb=True):
    ours = []
    targets = set()
    for disk in plan["disks"]:
        node = _el(None, "disk", type="file", device=disk["device"])
        _el(node, "driver", name="qemu", type=disk["format"], iothread=disk.get("iothread"))
        _el(node, "source", file=disk["path"])
        _el(node, "target", dev=disk["target"], bus=disk["bus"])
        targets.add(disk["target"])
        ours.append(node)
    for iface in plan["interfaces"]:
        node = _el(None, "interface", type=iface["type"])
        if iface["mac"]:
            _el(node, "mac", address=iface["mac"])
        if iface["type"] == "network":
            _el(node, "source", network=iface["source"])
        else:
            _el(node, "source", bridge=iface["source"])
        _el(node, "model", type=iface["model"])
        ours.append(node)
    if plan["serial_log"]:
        node = _el(None, "serial", type="file")
        _el(node, "source", path=plan["serial_log"])
        _el(node, "target", port="0")
        ours.append(node)
    for address in plan["hostdevs"]:
        node = _el(None, "hostdev", mode="subsystem", type="pci", managed="yes")
        source = _el(node, "source")
        _el(source, "address", domain="0x%04x" % address[0], bus="0x%02x" % address[1],
            slot="0x%02x" % address[2], function="0x%x" % address[3])
        ours.append(node)
    if plan["rng"]:
        rng = plan["rng"]
        node = _el(None, "rng", model=rng["model"])
        if rng["rate"]:
            _el(node, "rate", bytes=rng["rate"]["bytes"], period=rng["rate"]["period"])
        _el(node, "backend", rng["backend"], model="random")
        ours.append(node)
    if plan["memballoon_none"]:
        ours.append(_el(None, "memballoon", model="none"))
    if (plan.get("hardening") or {}).get("strip_devices") and not has_usb:
        # libvirt adds a USB controller to every x86 domain unless told it has none
        ours.append(_el(None, "controller", type="usb", model="none"))
    wanted_hostdevs = set(plan["hostdevs"])

    def conflicts(child):
        tag = child.tag
        if tag == "disk":
            target = child.find("target")
            return False if target is not None and target.get("dev") in targets else None
        if tag == "interface" and plan["interfaces"]:
            return False
        if tag in ("serial", "console") and plan["serial_log"] and _first_serial_port(child):
            return False
        if tag == "hostdev" and _hostdev_address(child) in wanted_hostdevs:
            return False
        if tag == "rng" and plan["rng"]:
            return False
        if tag == "memballoon" and plan["memballoon_none"]:
            return False
        return None
    return ours, conflicts


def _first_serial_port(node):
    """Whether a <serial>, or a <console> mirroring a serial port, is serial port 0."""
    target = node.find("target")
    if node.tag == "console" and target is not None and target.get("type") not in (None, "serial"):
        return False
    port = target.get("port") if target is not None else None
    return port in (None, "0")


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
        for old in wanted.findall("uuid"):
            wanted.remove(old)
        wanted.append(copy.deepcopy(uuid))
        sort_children(wanted)
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
