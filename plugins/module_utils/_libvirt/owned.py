# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What libvirt_rt_domain owns of a domain: one declaration, read everywhere (pure, no lxml).

``ELEMENTS`` has one row per element the renderer writes (or an option
replaces), under the path of its parent:

``id``       the attribute holding the number libvirt sorts it by
             (``<vcpupin vcpu=...>``), else None;
``owns``     how the module owns it: ``top`` (a top-level element the
             plan either wants or must not be in the domain), ``listed``
             (every child of this kind is in the wanted domain, so one
             libvirt holds and the wanted domain lacks is a difference),
             ``device`` (a device kind whose whole set the wanted domain
             lists), ``stripped`` (a device kind the hardening removes),
             or None (written, but libvirt may hold others: never a
             difference by its mere presence);
``replaces`` whether an option may replace a ``base_xml``'s element of
             this tag (the merge keeps every other child of the base);
             ``mirror``: it may, but libvirt writes the element back
             from another one (a serial <console>), so the diff does
             not name it;
``when``     which of the base's elements an option replaces (the rule
             render's ``conflicts()`` applies; docs/libvirt_rt_domain.md).

Read by render (``OWNED_TOP``, ``OWNED_CHILDREN``, ``DEVICE_KINDS``,
``STRIPPED_KINDS``), merge (``ORDER``, ``ID_ATTR``, and ``REPLACES``: a
``conflicts()`` can only replace a child declared here), compare (what
is owned) and diff (``REPLACEABLE``, ``REPLACEABLE_ATTRS``: what the
diff's ``after_header`` names).  A new element goes here first.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# (parent path, tag, id attribute, owns, replaces, when)
ELEMENTS = (
    ("domain", "name", None, None, False, ""),
    ("domain", "memory", None, "top", True, "memory_mib or memory_kib"),
    ("domain", "currentMemory", None, None, True, "a <currentMemory> above the new memory size"),
    ("domain", "vcpu", None, "top", True, "vcpus"),
    ("domain", "vcpus", None, None, True, "a <vcpus> listing naming a vCPU beyond vcpus"),
    ("domain", "iothreads", None, "top", True, "iothreads"),
    ("domain", "cputune", None, "top", False, ""),
    ("domain", "memoryBacking", None, "top", False, ""),
    ("domain", "numatune", None, "top", False, ""),
    ("domain", "os", None, None, False, ""),
    ("domain", "features", None, None, False, ""),
    ("domain", "cpu", None, "top", False, ""),
    ("domain", "clock", None, None, False, ""),
    ("domain", "pm", None, "top", False, ""),
    ("domain", "devices", None, None, False, ""),
    ("domain/cputune", "vcpupin", "vcpu", "listed", True, "the pin of a vCPU cpu.pinning pins, or beyond vcpus"),
    ("domain/cputune", "emulatorpin", None, "listed", True, "any, when the emulator CPUs are given"),
    ("domain/cputune", "iothreadpin", "iothread", "listed", True,
     "the pin of an IO thread the options pin with the emulator, or beyond iothreads"),
    ("domain/cputune", "vcpusched", "vcpus", "listed", True, "its real-time vCPUs (trimmed), or beyond vcpus"),
    ("domain/cputune", "cachetune", "vcpus", "listed", True, "one over a vCPU cachetune names, or beyond vcpus"),
    ("domain/cputune", "memorytune", "vcpus", "listed", True, "one over a vCPU memorytune names, or beyond vcpus"),
    ("domain/cputune/cachetune", "cache", None, "listed", False, ""),
    ("domain/cputune/memorytune", "node", None, "listed", False, ""),
    ("domain/memoryBacking", "hugepages", None, "listed", True, "memory.hugepages"),
    ("domain/memoryBacking", "nosharepages", None, "listed", True, "a real-time domain on hugepages"),
    ("domain/memoryBacking", "locked", None, "listed", True, "memory.locked, or a real-time domain"),
    ("domain/memoryBacking", "allocation", None, "listed", True, "hardening.immediate_allocation"),
    ("domain/memoryBacking/hugepages", "page", None, "listed", False, ""),
    ("domain/numatune", "memory", None, "listed", True, "memory.numatune"),
    ("domain/numatune", "memnode", "cellid", "listed", True, "one of a guest NUMA cell the options place or drop"),
    ("domain/os", "type", None, None, True, "machine"),
    ("domain/os", "kernel", None, None, True, "boot"),
    ("domain/os", "initrd", None, None, True, "boot"),
    ("domain/os", "cmdline", None, None, True, "boot"),
    ("domain/os", "boot", None, None, True, "boot (a direct kernel boot has no boot device)"),
    ("domain/features", "acpi", None, None, False, ""),
    ("domain/features", "apic", None, None, False, ""),
    ("domain/features", "pmu", None, "listed", True, "a real-time domain"),
    ("domain/features", "kvm", None, "listed", False, ""),
    ("domain/features/kvm", "hint-dedicated", None, "listed", True, "hardening.hint_dedicated"),
    ("domain/cpu", "model", None, None, True, "cpu.model, or a mode without a model"),
    ("domain/cpu", "vendor", None, None, True, "a mode without a model"),
    ("domain/cpu", "topology", None, "listed", True, "cpu.topology, or one vcpus no longer matches"),
    ("domain/cpu", "feature", None, "listed", True, "a feature of the same name in cpu.features"),
    ("domain/cpu", "numa", None, "listed", True, "cpu.numa"),
    ("domain/cpu/numa", "cell", "id", "listed", False, ""),
    ("domain/clock", "timer", None, "listed", True, "a timer of the same name in hardening.timers"),
    ("domain/pm", "suspend-to-mem", None, None, True, "hardening without guest_suspend"),
    ("domain/pm", "suspend-to-disk", None, None, True, "hardening without guest_suspend"),
    ("domain/devices", "disk", None, "device", True, "a disk of the same target"),
    ("domain/devices", "interface", None, "device", True, "any, when interfaces are given"),
    ("domain/devices", "serial", None, "device", True, "serial port 0, when serial_log is given"),
    ("domain/devices", "console", None, None, "mirror", "a console of serial port 0, when serial_log is given"),
    ("domain/devices", "hostdev", None, "device", True, "a PCI hostdev of the same address"),
    ("domain/devices", "rng", None, "device", True, "any, when rng is given"),
    ("domain/devices", "memballoon", None, None, True, "any, on a real-time domain"),
    ("domain/devices", "controller", None, None, False, ""),
    ("domain/devices", "graphics", None, "stripped", False, ""),
    ("domain/devices", "sound", None, "stripped", False, ""),
    ("domain/devices/disk", "driver", None, None, False, ""),
    ("domain/devices/disk", "source", None, None, False, ""),
    ("domain/devices/disk", "target", None, None, False, ""),
    ("domain/devices/interface", "mac", None, None, False, ""),
    ("domain/devices/interface", "source", None, None, False, ""),
    ("domain/devices/interface", "model", None, None, False, ""),
    ("domain/devices/serial", "source", None, None, False, ""),
    ("domain/devices/serial", "target", None, None, False, ""),
    ("domain/devices/hostdev", "source", None, None, False, ""),
    ("domain/devices/hostdev/source", "address", None, None, False, ""),
    ("domain/devices/rng", "rate", None, "listed", False, ""),
    ("domain/devices/rng", "backend", None, "listed", False, ""),
)

# Attributes of the base an option can replace, by path.
REPLACEABLE_ATTRS = {"domain": ("type",), "domain/cpu": ("mode", "match")}

# The order in which libvirt writes the children of each parent.  A tag
# not listed keeps its place after the sibling it followed.
ORDER = {
    "domain": ("name", "uuid", "genid", "title", "description", "metadata", "maxMemory", "memory", "currentMemory",
               "blkiotune", "memtune", "memoryBacking", "vcpu", "vcpus", "iothreads", "iothreadids", "defaultiothread",
               "cputune", "numatune", "resource", "sysinfo", "bootloader", "bootloader_args", "os", "idmap",
               "features", "cpu", "clock", "on_poweroff", "on_reboot", "on_crash", "on_lockfailure", "pm", "perf",
               "devices", "seclabel", "keywrap", "launchSecurity"),
    "cputune": ("shares", "period", "quota", "global_period", "global_quota", "emulator_period", "emulator_quota",
                "iothread_period", "iothread_quota", "vcpupin", "emulatorpin", "iothreadpin", "emulatorsched",
                "vcpusched", "iothreadsched", "cachetune", "memorytune"),
    "memoryBacking": ("hugepages", "nosharepages", "locked", "source", "access", "allocation", "discard"),
    "numatune": ("memory", "memnode"),
    "os": ("type", "firmware", "loader", "nvram", "init", "initarg", "initenv", "initdir", "inituser", "initgroup",
           "kernel", "initrd", "cmdline", "shim", "dtb", "acpi", "boot", "bootmenu", "bios", "smbios"),
    "features": ("acpi", "apic", "pae", "hap", "viridian", "privnet", "hyperv", "kvm", "xen", "pvspinlock", "pmu",
                 "vmport", "gic", "smm", "ioapic", "hpt", "htm", "nested-hv", "msrs", "ccf-assist", "cfpc", "sbbc",
                 "ibs", "tcg", "async-teardown"),
    "cpu": ("model", "vendor", "topology", "cache", "maxphysaddr", "feature", "numa"),
    "devices": ("emulator", "disk", "controller", "lease", "filesystem", "interface", "smartcard", "serial",
                "parallel", "console", "channel", "input", "tpm", "graphics", "sound", "audio", "video", "hostdev",
                "redirdev", "redirfilter", "hub", "watchdog", "memballoon", "rng", "nvram", "panic", "shmem",
                "memory", "iommu", "vsock", "crypto", "pstore"),
}

# libvirt sorts these by a number although the module writes none of them.
_LIBVIRT_IDS = {"iothreadsched": "iothreads"}


def _parent_tag(path):
    return path.rsplit("/", 1)[-1]


def _tags(owns=None, replaces=None):
    """{parent path: (tags...)} of the rows that own as ``owns`` / may replace."""
    table = {}
    for path, tag, _id, row_owns, row_replaces, _when in ELEMENTS:
        if owns is not None and row_owns not in owns:
            continue
        if replaces is not None and row_replaces not in replaces:
            continue
        table.setdefault(path, ())
        table[path] += (tag,)
    return table


# Top-level elements the module owns: when the plan does not want one, it
# must not be in the domain.
OWNED_TOP = tuple(tag for path, tag, _id, owns, _r, _w in ELEMENTS if path == "domain" and owns == "top")
# Children the module writes inside a container, by the container's tag:
# the wanted domain lists every child of these kinds (the module's and,
# with base_xml, the user's it keeps).
OWNED_CHILDREN = dict((_parent_tag(path), tags) for path, tags in _tags(owns=("listed",)).items())
# Device kinds whose whole set the wanted domain lists (devices.device_kinds()).
DEVICE_KINDS = _tags(owns=("device",))["domain/devices"]
# Devices a hardened domain has only when base_xml asks for them.
STRIPPED_KINDS = _tags(owns=("stripped",))["domain/devices"]
# Where a base's children can be replaced by an option, by parent path (diff.py).
REPLACEABLE = _tags(replaces=(True,))
# The same, mirrors too, by the parent's tag (merge.merge_children keeps every other child).
REPLACES = dict((_parent_tag(path), tags) for path, tags in _tags(replaces=(True, "mirror")).items())
# Children libvirt sorts by a number: the attribute holding it.
ID_ATTR = dict([(tag, attr) for _p, tag, attr, _o, _r, _w in ELEMENTS if attr] + list(_LIBVIRT_IDS.items()))
