# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which of a base_xml's elements an option replaces: the rules owned.py's rows name (lxml, pure).

Every row of ``owned.ELEMENTS`` that an option may replace names one of
the ``RULES`` below in its last column.  A rule is called as
``rule(plan, child, parent)`` for one of the base's children (``parent``
is the element holding it, as the renderer left it) and answers as
merge.merge_children expects: None keeps the child, False drops it (the
module's child of that tag takes its place), an element keeps that
trimmed copy instead.  render.py and devices.py never write a rule of
their own: they merge with ``conflicts_for(parent path, plan, parent)``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.units import to_kib
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.merge import ids, without_ids
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.owned import ELEMENTS

# CPU modes for which libvirt ignores (and drops) <model>, <vendor> and match.
MODELLESS_MODES = ("host-passthrough", "maximum")


def _verdict(replace):
    return False if replace else None


def _hardening(plan):
    return plan.get("hardening") or {}


def _beyond(plan, numbers):
    """Those of the vCPU ids ``numbers`` that the vCPU count of the options no longer has."""
    if not plan["set_vcpus"]:
        return set()
    return set(number for number in numbers if number >= plan["vcpus"])


def _threads(topology):
    total = 1
    for key in ("sockets", "dies", "clusters", "cores", "threads"):
        value = topology.get(key) or "1"
        total *= int(value) if value.isdigit() else 1
    return total


def emulator_iothreads(plan):
    """The IO threads the options pin with the emulator: all of them, when both are given."""
    if not plan["emulator"] or plan["iothreads"] is None:
        return set()
    return set(range(1, plan["iothreads"] + 1))


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


def rewritten(_plan, _child, _parent):
    """Kept: the renderer rewrites the option's part of it in place (memory size, vCPU count, machine)."""
    return None


def above_new_memory(plan, child, _parent):
    """A <currentMemory> above the new memory size (libvirt would refuse it)."""
    size = to_kib((child.text or "").strip(), child.get("unit"))
    return _verdict(plan["set_memory"] and (size is None or size > plan["memory_kib"]))


def vcpus_beyond(plan, child, _parent):
    """A <vcpus> listing naming a vCPU beyond vcpus."""
    numbers = [item.get("id") or "" for item in child.findall("vcpu")]
    return _verdict(plan["set_vcpus"] and any(not number.isdigit() or int(number) >= plan["vcpus"]
                                              for number in numbers))


def iothreads_given(plan, _child, _parent):
    """Any, when iothreads is given."""
    return _verdict(plan["iothreads"] is not None)


def vcpu_pinned_or_beyond(plan, child, _parent):
    """The pin of a vCPU cpu.pinning pins, or of one beyond vcpus."""
    vcpu = ids(child, "vcpu")
    return _verdict(vcpu & set(plan["pinning"]) or _beyond(plan, vcpu))


def emulator_given(plan, _child, _parent):
    """Any, when the emulator CPUs are given."""
    return _verdict(plan["emulator"])


def iothread_pinned_or_beyond(plan, child, _parent):
    """The pin of an IO thread the options pin with the emulator, or of one beyond iothreads."""
    iothread = ids(child, "iothread")
    beyond = plan["iothreads"] is not None and any(n > plan["iothreads"] for n in iothread)
    return _verdict(iothread & emulator_iothreads(plan) or beyond)


def realtime_vcpus_or_beyond(plan, child, _parent):
    """Its real-time vCPUs and those beyond vcpus, trimmed off (the element goes when none is left)."""
    realtime_vcpus = set(plan["realtime"]["vcpus"]) if plan["realtime"] else set()
    return without_ids(child, "vcpus", realtime_vcpus | _beyond(plan, ids(child, "vcpus")))


def tuned_vcpus_or_beyond(plan, child, _parent):
    """A group over a vCPU that the option of its tag (cachetune, memorytune) names, or beyond vcpus."""
    tuned = set(v for group in plan.get(child.tag) or [] for v in group["vcpus"])
    return _verdict(ids(child, "vcpus") & tuned or _beyond(plan, ids(child, "vcpus")))


def hugepages_given(plan, _child, _parent):
    """Any, when memory.hugepages is given."""
    return _verdict(plan["hugepages"])


def nosharepages_wanted(plan, _child, _parent):
    """Any, on a real-time domain on hugepages."""
    return _verdict(plan["nosharepages"])


def locked_given(plan, _child, _parent):
    """Any, when memory.locked is given or the domain is real-time."""
    return _verdict(plan["locked"] or plan.get("locked_given"))


def immediate_allocation(plan, _child, _parent):
    """Any, when hardening.immediate_allocation is on."""
    return _verdict(_hardening(plan).get("immediate_allocation"))


def numatune_given(plan, _child, _parent):
    """Any, when memory.numatune is given."""
    return _verdict(plan["numatune"])


def memnode_placed_or_dropped(plan, child, _parent):
    """The <memnode> of a guest NUMA cell the options place, or of a cell the options' cells lack."""
    cell = ids(child, "cellid")
    cells = len(plan["numa_cells"])
    placed = set(memnode["cellid"] for memnode in plan["memnodes"])
    return _verdict(cell & placed or (cells and not cell & set(range(cells))))


def boot_given(plan, _child, _parent):
    """Any, when boot is given (a direct kernel boot has no boot device)."""
    return _verdict(plan.get("boot"))


def realtime(plan, _child, _parent):
    """Any, on a real-time domain."""
    return _verdict(plan["realtime"])


def hint_dedicated(plan, _child, _parent):
    """Any, when hardening.hint_dedicated is on."""
    return _verdict(_hardening(plan).get("hint_dedicated"))


def model_given_or_modelless(plan, _child, parent):
    """Any, when cpu.model is given or the <cpu> has a mode without a model."""
    return _verdict(plan["cpu"]["model"] or parent.get("mode") in MODELLESS_MODES)


def modelless(_plan, _child, parent):
    """Any, when the <cpu> has a mode without a model."""
    return _verdict(parent.get("mode") in MODELLESS_MODES)


def topology_given_or_mismatch(plan, child, _parent):
    """Any, when cpu.topology is given, or one whose threads no longer match vcpus."""
    return _verdict(plan["cpu"]["topology"] or plan["set_vcpus"] and _threads(child) != plan["vcpus"])


def feature_named(plan, child, _parent):
    """A <feature> of a name cpu.features lists."""
    return _verdict(child.get("name") in set(name for name, _policy in plan["cpu"]["features"]))


def numa_given(plan, _child, _parent):
    """Any, when the options give guest NUMA cells."""
    return _verdict(plan["numa_cells"])


def timer_named(plan, child, _parent):
    """A <timer> of a name hardening.timers lists."""
    return _verdict(child.get("name") in set(timer["name"] for timer in _hardening(plan).get("timers") or []))


def guest_suspend_off(plan, _child, _parent):
    """Any, when the hardening is on without guest_suspend."""
    hardening = plan.get("hardening")
    return _verdict(hardening and not hardening["guest_suspend"])


def disk_same_target(plan, child, _parent):
    """A disk of a target the options' disks use."""
    target = child.find("target")
    return _verdict(target is not None and target.get("dev") in set(disk["target"] for disk in plan["disks"]))


def interfaces_given(plan, _child, _parent):
    """Any, when interfaces are given."""
    return _verdict(plan["interfaces"])


def serial_port_0(plan, child, _parent):
    """Serial port 0 (or the <console> mirroring it), when serial_log is given."""
    return _verdict(plan["serial_log"] and _first_serial_port(child))


def hostdev_same_address(plan, child, _parent):
    """A PCI hostdev of an address hostdevs lists."""
    return _verdict(_hostdev_address(child) in set(plan["hostdevs"]))


def rng_given(plan, _child, _parent):
    """Any, when rng is given."""
    return _verdict(plan["rng"])


def memballoon_none(plan, _child, _parent):
    """Any, on a real-time domain (its balloon is model none)."""
    return _verdict(plan["memballoon_none"])


RULES = dict((rule.__name__, rule) for rule in (
    rewritten, above_new_memory, vcpus_beyond, iothreads_given, vcpu_pinned_or_beyond, emulator_given,
    iothread_pinned_or_beyond, realtime_vcpus_or_beyond, tuned_vcpus_or_beyond, hugepages_given, nosharepages_wanted,
    locked_given, immediate_allocation, numatune_given, memnode_placed_or_dropped, boot_given, realtime,
    hint_dedicated, model_given_or_modelless, modelless, topology_given_or_mismatch, feature_named, numa_given,
    timer_named, guest_suspend_off, disk_same_target, interfaces_given, serial_port_0, hostdev_same_address,
    rng_given, memballoon_none))


def _by_path():
    """{parent path: {tag: rule}} of the rows an option may replace."""
    table = {}
    for path, tag, _id, _owns, replaces, rule in ELEMENTS:
        if replaces and rule in RULES:
            table.setdefault(path, {})[tag] = RULES[rule]
    return table


_BY_PATH = _by_path()


def conflicts_for(path, plan, parent=None):
    """The ``conflicts(child)`` of merge.merge_children for the children of ``parent`` (at ``path``)."""
    rules = _BY_PATH.get(path, {})

    def conflicts(child):
        rule = rules.get(child.tag)
        return None if rule is None else rule(plan, child, parent)
    return conflicts
