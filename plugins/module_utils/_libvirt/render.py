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

What the module owns of a domain is declared in owned.py, and which of
the base's children an option replaces in the rules its rows name
(conflicts.py): every merge here takes its ``conflicts()`` from
``conflicts_for()``.  <devices> is drawn in devices.py, XML parsed and
written in xmltree.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import format_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.conflicts import (
    MODELLESS_MODES, conflicts_for, emulator_iothreads)
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.merge import merge_children, sort_children
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.devices import devices, has_usb
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import element

try:
    from lxml import etree
except ImportError:  # pragma: no cover - reported by the module through missing_required_lib
    etree = None


def render(plan, base_root=None):
    """Return the wanted ``<domain>`` element for ``plan``."""
    if base_root is None:
        root = etree.Element("domain", type=plan["domain_type"])
        element(root, "name", plan["name"])
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
    _merge(root, "memoryBacking", _memory_backing(plan), plan)
    _merge(root, "cputune", _cputune(plan), plan)
    _merge(root, "numatune", _numatune(plan), plan)
    _os(root, plan, base_mode)
    _features(root, plan, base_mode)
    _cpu(root, plan)
    _clock(root, plan, base_mode)
    _merge(root, "pm", _pm(plan), plan)
    _merge(root, "devices", devices(plan, has_usb(root, plan)), plan, keep_empty=True)
    sort_children(root)
    return root


def _merge(root, tag, ours, plan, keep_empty=False):
    """Merge ``ours`` into the ``tag`` child of root (created when missing and needed)."""
    node = root.find(tag)
    if node is None:
        if not ours and not keep_empty:
            return None
        node = element(root, tag)
    replaced = merge_children(node, ours, conflicts_for("domain/" + tag, plan, node))
    if replaced and not keep_empty and not len(node) and not node.attrib:
        root.remove(node)
        return None
    return node


def _top(root, plan):
    """<memory>, <currentMemory>, <vcpu> (and <vcpus>) when the options give them."""
    conflicts = conflicts_for("domain", plan, root)
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
    for child in list(root):  # a <currentMemory>, <iothreads> or <vcpus> the options no longer allow
        if isinstance(child.tag, str) and conflicts(child) is False:
            root.remove(child)
    if plan["iothreads"]:
        element(root, "iothreads", plan["iothreads"])
    if plan["set_vcpus"]:
        node = root.find("vcpu")
        if node is None:
            node = element(root, "vcpu")
        node.text = str(plan["vcpus"])
        current = node.get("current")
        if current is not None and (not current.isdigit() or int(current) > plan["vcpus"]):
            del node.attrib["current"]


def _memory_backing(plan):
    ours = []
    if plan["hugepages"]:
        pages = element(None, "hugepages")
        nodeset = plan["hugepages"]["nodeset"]
        element(pages, "page", size=plan["hugepages"]["size_kib"], unit="KiB",
                nodeset=format_cpuset(nodeset) if nodeset else None)
        ours.append(pages)
    if plan["nosharepages"]:
        ours.append(element(None, "nosharepages"))
    if plan["locked"]:
        ours.append(element(None, "locked"))
    if (plan.get("hardening") or {}).get("immediate_allocation"):
        ours.append(element(None, "allocation", mode="immediate"))
    return ours


def _cputune(plan):
    ours = []
    for vcpu in sorted(plan["pinning"]):
        ours.append(element(None, "vcpupin", vcpu=vcpu, cpuset=format_cpuset(plan["pinning"][vcpu])))
    if plan["emulator"]:
        ours.append(element(None, "emulatorpin", cpuset=format_cpuset(plan["emulator"])))
    # the IO threads the options ask for run with the emulator (KubeVirt's
    # isolateEmulatorThread does the same); base_xml's own IO threads keep its pins
    for iothread in sorted(emulator_iothreads(plan)):
        ours.append(element(None, "iothreadpin", iothread=iothread, cpuset=format_cpuset(plan["emulator"])))
    realtime = plan["realtime"]
    if realtime:
        ours.append(element(None, "vcpusched", vcpus=format_cpuset(realtime["vcpus"]), scheduler=realtime["scheduler"],
                            priority=realtime["priority"]))
    for group in plan.get("cachetune") or []:
        node = element(None, "cachetune", vcpus=format_cpuset(group["vcpus"]))
        for cache in group["caches"]:
            element(node, "cache", id=cache["id"], level=cache["level"], type=cache["type"], size=cache["size_kib"],
                    unit="KiB")
        ours.append(node)
    for group in plan.get("memorytune") or []:
        node = element(None, "memorytune", vcpus=format_cpuset(group["vcpus"]))
        for entry in group["nodes"]:
            element(node, "node", id=entry["id"], bandwidth=entry["bandwidth"])
        ours.append(node)
    return ours


def _numatune(plan):
    ours = []
    if plan["numatune"]:
        ours.append(element(None, "memory", mode=plan["numatune"]["mode"], nodeset=format_cpuset(plan["numatune"]["nodeset"])))
    for memnode in plan["memnodes"]:
        ours.append(element(None, "memnode", cellid=memnode["cellid"], mode=memnode["mode"],
                            nodeset=format_cpuset(memnode["nodeset"])))
    return ours


def _os(root, plan, base_mode):
    os_node = root.find("os")
    if os_node is None:
        os_node = element(root, "os")
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
        ours.append(element(None, "kernel", boot["kernel"]))
        if boot.get("initrd"):
            ours.append(element(None, "initrd", boot["initrd"]))
        if boot.get("cmdline"):
            ours.append(element(None, "cmdline", boot["cmdline"]))
    elif not base_mode and os_node.find("boot") is None:
        ours.append(element(None, "boot", dev="hd"))
    merge_children(os_node, ours, conflicts_for("domain/os", plan, os_node))


def _features(root, plan, base_mode):
    ours = []
    if not base_mode and root.find("features") is None:
        ours.extend([element(None, "acpi"), element(None, "apic")])
    if plan["realtime"]:
        ours.append(element(None, "pmu", state="off"))
    if (plan.get("hardening") or {}).get("hint_dedicated"):
        hint = element(None, "hint-dedicated", state="on")
        kvm = root.find("features/kvm")
        if kvm is None:
            kvm = element(None, "kvm")
            ours.append(kvm)
        merge_children(kvm, [hint], conflicts_for("domain/features/kvm", plan, kvm))
    _merge(root, "features", ours, plan)


def _clock(root, plan, base_mode):
    """<clock>: libvirt's default UTC clock, with the hardening's timers."""
    timers = (plan.get("hardening") or {}).get("timers") or []
    node = root.find("clock")
    if node is None:
        if base_mode and not timers:
            return
        node = element(root, "clock", offset="utc")
    ours = []
    for timer in timers:
        present = None if timer["present"] is None else ("yes" if timer["present"] else "no")
        ours.append(element(None, "timer", name=timer["name"], tickpolicy=timer["tickpolicy"], present=present))
    merge_children(node, ours, conflicts_for("domain/clock", plan, node))


def _pm(plan):
    """<pm> with guest suspend off, unless the hardening lets the guest suspend."""
    hardening = plan.get("hardening")
    if not hardening or hardening["guest_suspend"]:
        return []
    return [element(None, "suspend-to-mem", enabled="no"), element(None, "suspend-to-disk", enabled="no")]


def _cpu(root, plan):
    cpu = plan["cpu"]
    node = root.find("cpu")
    if node is None:
        node = element(root, "cpu", mode=cpu["mode"])
    elif cpu["mode_given"]:
        node.set("mode", cpu["mode"])
    elif node.get("mode") is None and node.find("model") is None and cpu["features"]:
        # the user's <cpu> names no CPU at all, and libvirt refuses features without one
        node.set("mode", cpu["mode"])
    if node.get("mode") in MODELLESS_MODES and "match" in node.attrib:
        del node.attrib["match"]  # libvirt drops it for these modes
    ours = []
    if cpu["model"]:
        ours.append(element(None, "model", cpu["model"]))
    if cpu["topology"]:
        topo = cpu["topology"]
        ours.append(element(None, "topology", sockets=topo["sockets"], cores=topo["cores"], threads=topo["threads"]))
    for name, policy in cpu["features"]:
        ours.append(element(None, "feature", policy=policy, name=name))
    if plan["numa_cells"]:
        numa = element(None, "numa")
        for cell in plan["numa_cells"]:
            element(numa, "cell", id=cell["id"], cpus=format_cpuset(cell["cpus"]), memory=cell["memory_kib"], unit="KiB")
        ours.append(numa)
    merge_children(node, ours, conflicts_for("domain/cpu", plan, node))


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
