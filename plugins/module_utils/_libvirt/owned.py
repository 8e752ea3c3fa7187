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
``rule``     for a row an option may replace, the name of the rule in
             conflicts.py that says which of the base's elements of
             this tag the options replace (its docstring says when, in
             words; docs/libvirt_rt_domain.md for users); else None.

Read by render (``OWNED_TOP``, ``OWNED_CHILDREN``, ``DEVICE_KINDS``,
``STRIPPED_KINDS``), conflicts (``rule``: every merge of render's
takes its ``conflicts()`` from ``conflicts.conflicts_for()``, which looks
a child up here by its parent path and tag), merge (``ORDER``, ``ID_ATTR``, and ``REPLACES``: no
child outside it is replaced, whatever a rule says), compare (what is
owned) and diff (``REPLACEABLE``, ``REPLACEABLE_ATTRS``: what the diff's
``after_header`` names).  A new element goes here first.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# (parent path, tag, id attribute, owns, replaces, rule)
ELEMENTS = (
    ("domain", "name", None, None, False, None),
    ("domain", "memory", None, "top", True, "rewritten"),
    ("domain", "currentMemory", None, None, True, "above_new_memory"),
    ("domain", "vcpu", None, "top", True, "rewritten"),
    ("domain", "vcpus", None, None, True, "vcpus_beyond"),
    ("domain", "iothreads", None, "top", True, "iothreads_given"),
    ("domain", "cputune", None, "top", False, None),
    ("domain", "memoryBacking", None, "top", False, None),
    ("domain", "numatune", None, "top", False, None),
    ("domain", "os", None, None, False, None),
    ("domain", "features", None, None, False, None),
    ("domain", "cpu", None, "top", False, None),
    ("domain", "clock", None, None, False, None),
    ("domain", "pm", None, "top", False, None),
    ("domain", "devices", None, None, False, None),
    ("domain/cputune", "vcpupin", "vcpu", "listed", True, "vcpu_pinned_or_beyond"),
    ("domain/cputune", "emulatorpin", None, "listed", True, "emulator_given"),
    ("domain/cputune", "iothreadpin", "iothread", "listed", True, "iothread_pinned_or_beyond"),
    ("domain/cputune", "vcpusched", "vcpus", "listed", True, "realtime_vcpus_or_beyond"),
    ("domain/cputune", "cachetune", "vcpus", "listed", True, "tuned_vcpus_or_beyond"),
    ("domain/cputune", "memorytune", "vcpus", "listed", True, "tuned_vcpus_or_beyond"),
    ("domain/cputune/cachetune", "cache", None, "listed", False, None),
    ("domain/cputune/memorytune", "node", None, "listed", False, None),
    ("domain/memoryBacking", "hugepages", None, "listed", True, "hugepages_given"),
    ("domain/memoryBacking", "nosharepages", None, "listed", True, "nosharepages_wanted"),
    ("domain/memoryBacking", "locked", None, "listed", True, "locked_given"),
    ("domain/memoryBacking", "allocation", None, "listed", True, "immediate_allocation"),
    ("domain/memoryBacking/hugepages", "page", None, "listed", False, None),
    ("domain/numatune", "memory", None, "listed", True, "numatune_given"),
    ("domain/numatune", "memnode", "cellid", "listed", True, "memnode_placed_or_dropped"),
    ("domain/os", "type", None, None, True, "rewritten"),
    ("domain/os", "kernel", None, None, True, "boot_given"),
    ("domain/os", "initrd", None, None, True, "boot_given"),
    ("domain/os", "cmdline", None, None, True, "boot_given"),
    ("domain/os", "boot", None, None, True, "boot_given"),
    ("domain/features", "acpi", None, None, False, None),
    ("domain/features", "apic", None, None, False, None),
    ("domain/features", "pmu", None, "listed", True, "realtime"),
    ("domain/features", "kvm", None, "listed", False, None),
    ("domain/features/kvm", "hint-dedicated", None, "listed", True, "hint_dedicated"),
    ("domain/cpu", "model", None, None, True, "model_given_or_modelless"),
    ("domain/cpu", "vendor", None, None, True, "modelless"),
    ("domain/cpu", "topology", None, "listed", True, "topology_given_or_mismatch"),
    ("domain/cpu", "feature", None, "listed", True, "feature_named"),
    ("domain/cpu", "numa", None, "listed", True, "numa_given"),
    ("domain/cpu/numa", "cell", "id", "listed", False, None),
    ("domain/clock", "timer", None, "listed", True, "timer_named"),
    ("domain/pm", "suspend-to-mem", None, None, True, "guest_suspend_off"),
    ("domain/pm", "suspend-to-disk", None, None, True, "guest_suspend_off"),
    ("domain/devices", "disk", None, "device", True, "disk_same_target"),
    ("domain/devices", "interface", None, "device", True, "interfaces_given"),
    ("domain/devices", "serial", None, "device", True, "serial_port_0"),
    ("domain/devices", "console", None, None, "mirror", "serial_port_0"),
    ("domain/devices", "hostdev", None, "device", True, "hostdev_same_address"),
    ("domain/devices", "rng", None, "device", True, "rng_given"),
    ("domain/devices", "memballoon", None, None, True, "memballoon_none"),
    ("domain/devices", "controller", None, None, False, None),
    ("domain/devices", "graphics", None, "stripped", False, None),
    ("domain/devices", "sound", None, "stripped", False, None),
    ("domain/devices/disk", "driver", None, None, False, None),
    ("domain/devices/disk", "source", None, None, False, None),
    ("domain/devices/disk", "target", None, None, False, None),
    ("domain/devices/interface", "mac", None, None, False, None),
    ("domain/devices/interface", "source", None, None, False, None),
    ("domain/devices/interface", "model", None, None, False, None),
    ("domain/devices/serial", "source", None, None, False, None),
    ("domain/devices/serial", "target", None, None, False, None),
    ("domain/devices/hostdev", "source", None, None, False, None),
    ("domain/devices/hostdev/source", "address", None, None, False, None),
    ("domain/devices/rng", "rate", None, "listed", False, None),
    ("domain/devices/rng", "backend", None, "listed", False, None),
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
    for path, tag, _id, row_owns, row_replaces, _rule in ELEMENTS:
        if owns is not None and row_owns not in owns:
            continue
        if replaces is not None and row_replaces not in replaces:
            continue
        table.setdefault(path, ())
        table[path] += (tag,)
    return table


# Top-level elements the module owns: when the plan does not want one, it
# must not be in the domain.
OWNED_TOP = tuple(tag for path, tag, _id, owns, _r, _rule in ELEMENTS if path == "domain" and owns == "top")
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
ID_ATTR = dict([(tag, attr) for _p, tag, attr, _o, _r, _rule in ELEMENTS if attr] + list(_LIBVIRT_IDS.items()))
