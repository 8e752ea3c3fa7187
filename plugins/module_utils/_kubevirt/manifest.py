# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""An rt_domain_domains entry as a KubeVirt VirtualMachine (pure): the way back of ``convert``.

:func:`to_vm` returns ``(manifest, unmapped)``. The manifest is a
``kubevirt.io/v1`` ``VirtualMachine`` that KubeVirt's admission would take;
``unmapped`` names, by option path in the entry, what has no KubeVirt form
(host CPU sets, interfaces on host bridges, cache allocation...), so nothing
is dropped without a word. An entry KubeVirt would refuse (its admission
rules, cited at each check) raises :class:`OptionError` naming the option.

The mapping is ``convert``'s read backwards (docs/kubevirt.md, "The way
back"): ``vcpus`` and ``cpu.topology`` -> ``cpu.sockets/cores/threads``;
``cpus`` or ``cpu.pinning`` -> ``dedicatedCpuPlacement``; ``emulator:
isolate`` -> ``isolateEmulatorThread``; ``realtime`` -> ``cpu.realtime``;
``cpu.numa.passthrough`` -> ``guestMappingPassthrough``; ``memory_mib`` or
``memory_kib`` -> ``memory.guest``; ``memory.hugepages.page_size`` ->
``memory.hugepages.pageSize``; ``qat_vfs`` -> that many ``hostDevices`` of
the QAT device plugin's resource; ``disks`` -> ``hostDisk`` volumes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.realtime.virt.plugins.module_utils._common.units import page_size_kib
from ansible_collections.realtime.virt.plugins.module_utils._kubevirt.fields import fail as _fail
from ansible_collections.realtime.virt.plugins.module_utils._kubevirt.fields import mapping, whole

STATES = {"running": "Always", "stopped": "Halted", "present": "Manual"}
PAGE_SIZES = {2048: "2Mi", 1048576: "1Gi"}
DISK_BUSES = ("virtio", "sata", "scsi", "usb")
# A Kubernetes object name that is also a DNS label: KubeVirt uses a VM's name as its guest's hostname
# (pkg/virt-api/webhooks/validating-webhook/admitters/vmi-create-admitter.go checks it as a DNS-1123 label)
NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
QAT_RESOURCE = "qat.intel.com/generic"

# What the entry may hold that has no KubeVirt form, and why (named, never dropped silently)
NO_FORM = {
    "uri": "KubeVirt picks the node; there is no libvirt URI",
    "domain_type": "KubeVirt chooses KVM or emulation cluster-wide (useEmulation)",
    "numa_node": "Kubernetes' topology manager places the pod; no node is named",
    "cachetune": "KubeVirt has no cache allocation (resctrl)",
    "memorytune": "KubeVirt has no memory bandwidth allocation (resctrl)",
    "hardening": "virt-launcher writes the domain's timers, devices and suspend settings itself",
    "rng_profiles": "KubeVirt's rng has no backend or rate settings",
    "hostdevs": "KubeVirt passes host devices by resource name: list the address in the KubeVirt CR's "
                "permittedHostDevices and name its resourceName",
    "boot": "KubeVirt boots a kernel from a container image (kernelBoot), not from a host path",
    "interfaces": "KubeVirt interfaces attach pod or Multus networks, not host bridges or libvirt networks",
    "base_xml": "KubeVirt writes the domain XML itself",
    "restart": "KubeVirt restarts a VM through its run strategy, not on a changed definition",
    "autostart": "KubeVirt's run strategy decides when the VM runs",
    "iothreads": "KubeVirt counts IO threads from its disks (dedicatedIOThread, ioThreadsPolicy)",
}
KNOWN = ("name", "state", "vcpus", "cpus", "emulator", "qat_vfs", "memory_mib", "memory_kib", "cpu", "realtime",
         "memory", "machine", "rng", "disks", "serial_log")


def _dict(path, value):
    return mapping(path, value, "write it as the rt_domain role takes it")


def to_vm(entry, where="entry", namespace=None, qat_resource=QAT_RESOURCE):
    """``(VirtualMachine manifest, [unmapped option: why])`` for one rt_domain_domains entry."""
    entry = _dict(where, entry)
    name = entry.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        _fail(where + ".name", name, "a KubeVirt VM's name must be a DNS label (KubeVirt makes it the guest's "
              "hostname): lowercase letters, digits and '-', at most 63, starting and ending with a letter or digit",
              "rename the domain, such as %s" % _label(name))
    unmapped = []
    state = entry.get("state", "running")
    if state not in STATES:
        _fail(where + ".state", state, "has no KubeVirt run strategy (an absent domain is a VM to delete)",
              "use running, stopped or present")
    domain = {"devices": {}}
    _cpu(where, entry, domain, unmapped)
    _memory(where, entry, domain, unmapped)
    _check_realtime(where, domain)
    if entry.get("machine") not in (None, ""):
        domain["machine"] = {"type": str(entry["machine"])}
    volumes = _devices(where, entry, domain, qat_resource, unmapped)
    for key in sorted(entry):
        if key == "iothreads" and any(disk.get("iothread") for disk in entry.get("disks") or []):
            continue  # the disks' IO threads say it
        if key in NO_FORM and entry[key] not in (None, [], {}, ""):
            unmapped.append("%s.%s: %s" % (where, key, NO_FORM[key]))
        elif key not in KNOWN and key not in NO_FORM:
            unmapped.append("%s.%s: not an option this filter knows" % (where, key))
    template = {"spec": {"domain": domain}}
    if volumes:
        template["spec"]["volumes"] = volumes
    metadata = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    manifest = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": metadata,
                "spec": {"runStrategy": STATES[state], "template": template}}
    return manifest, unmapped


def _label(name):
    text = re.sub(r"[^a-z0-9-]+", "-", str(name or "vm").lower()).strip("-")[:63].strip("-")
    return text or "vm"


def _cpu(where, entry, domain, unmapped):
    cpu_in = _dict(where + ".cpu", entry.get("cpu"))
    vcpus = whole(where + ".vcpus", entry.get("vcpus"))
    topology = _dict(where + ".cpu.topology", cpu_in.get("topology"))
    cpu = {}
    if topology:
        for key in ("sockets", "cores", "threads"):
            cpu[key] = whole("%s.cpu.topology.%s" % (where, key), topology.get(key)) or 1
        if vcpus is not None and cpu["sockets"] * cpu["cores"] * cpu["threads"] != vcpus:
            _fail(where + ".cpu.topology", topology, "sockets x cores x threads is not vcpus=%d" % vcpus,
                  "make the topology's product equal vcpus")
    elif vcpus is not None:
        # one socket of vcpus cores: KubeVirt gives it as many vCPUs, with no socket count to mislead the guest
        cpu["cores"] = vcpus
    mode = cpu_in.get("mode")
    if mode in ("host-passthrough", "host-model"):
        cpu["model"] = mode
    elif mode == "custom" and cpu_in.get("model"):
        cpu["model"] = str(cpu_in["model"])
    elif mode == "maximum":
        unmapped.append("%s.cpu.mode: KubeVirt has no 'maximum' CPU mode; its default is host-model" % where)
    features = []
    for index, feature in enumerate(cpu_in.get("features") or []):
        feature = _dict("%s.cpu.features[%d]" % (where, index), feature)
        features.append({"name": str(feature.get("name")), "policy": feature.get("policy") or "require"})
    if features:
        cpu["features"] = features
    dedicated = entry.get("cpus") not in (None, "") or bool(cpu_in.get("pinning"))
    if entry.get("cpus") not in (None, "", "auto"):
        unmapped.append("%s.cpus (%s): KubeVirt's CPU manager picks the dedicated CPUs; the set is not kept"
                        % (where, entry["cpus"]))
    if cpu_in.get("pinning"):
        unmapped.append("%s.cpu.pinning: KubeVirt's CPU manager picks the dedicated CPUs; the pins are not kept"
                        % where)
    if dedicated:
        cpu["dedicatedCpuPlacement"] = True
    emulator = entry.get("emulator")
    policy = cpu_in.get("emulator_policy")
    if emulator == "isolate" or policy == "isolate" or (cpu_in.get("emulator_cpuset") and policy in (None, "cpuset")):
        if not dedicated:
            _fail(where + ".emulator", emulator or cpu_in.get("emulator_cpuset"), "KubeVirt isolates the emulator "
                  "thread only beside dedicated vCPUs (its admission refuses isolateEmulatorThread alone)",
                  "give the domain cpus: auto, or leave the emulator on the housekeeping CPUs")
        cpu["isolateEmulatorThread"] = True
        if cpu_in.get("emulator_cpuset"):
            unmapped.append("%s.cpu.emulator_cpuset: KubeVirt picks the emulator's CPU; the set is not kept" % where)
    elif emulator == "share" or policy == "share":
        unmapped.append("%s.emulator: KubeVirt has no 'share' policy; the emulator runs on the pod's shared CPUs"
                        % where)
    elif cpu_in.get("emulator_cpuset"):
        unmapped.append("%s.cpu.emulator_cpuset: KubeVirt runs a housekeeping emulator on the pod's shared CPUs; the "
                        "set is not kept" % where)
    realtime = entry.get("realtime")
    if realtime is not None and _dict(where + ".realtime", realtime).get("enabled", True) is not False:
        cpu["realtime"] = {"mask": str(realtime["mask"])} if realtime.get("mask") not in (None, "") else {}
        if (realtime.get("scheduler") or "fifo") != "fifo" or (realtime.get("priority") or 1) != 1:
            unmapped.append("%s.realtime: KubeVirt runs real-time vCPUs at SCHED_FIFO priority 1 only" % where)
    numa = _dict(where + ".cpu.numa", cpu_in.get("numa"))
    if numa.get("passthrough"):
        cpu["numa"] = {"guestMappingPassthrough": {}}
    if numa.get("cells"):
        unmapped.append("%s.cpu.numa.cells: KubeVirt maps guest NUMA from the host (guestMappingPassthrough) only"
                        % where)
    if cpu:
        domain["cpu"] = cpu


def _memory(where, entry, domain, unmapped):
    mib, kib = entry.get("memory_mib"), entry.get("memory_kib")
    memory = {}
    if mib is not None:
        memory["guest"] = "%dMi" % whole(where + ".memory_mib", mib)
    elif kib is not None:
        kib = whole(where + ".memory_kib", kib)
        memory["guest"] = "%dMi" % (kib // 1024) if kib % 1024 == 0 else "%dKi" % kib
    else:
        _fail(where + ".memory_mib", None, "a KubeVirt VM needs a memory size", "give memory_mib or memory_kib")
    backing = _dict(where + ".memory", entry.get("memory"))
    hugepages = _dict(where + ".memory.hugepages", backing.get("hugepages"))
    if backing.get("hugepages") is not None:
        size = hugepages.get("page_size", "2M")
        page = page_size_kib(size)
        if page not in PAGE_SIZES:
            _fail(where + ".memory.hugepages.page_size", size, "KubeVirt's pages are 2Mi or 1Gi",
                  "use 2M or 1G")
        memory["hugepages"] = {"pageSize": PAGE_SIZES[page]}
        if hugepages.get("nodeset"):
            unmapped.append("%s.memory.hugepages.nodeset: KubeVirt backs all guest memory with one page size" % where)
    for key in ("locked", "numatune"):
        if backing.get(key) not in (None, {}):
            unmapped.append("%s.memory.%s: virt-launcher decides it (hugepages and dedicated CPUs)" % (where, key))
    domain["memory"] = memory


def _check_realtime(where, domain):
    """KubeVirt's admission rules for real-time VMs (vmi-create-admitter.go, validateRealtime and validateNUMA)."""
    cpu, memory = domain.get("cpu") or {}, domain["memory"]
    if "realtime" in cpu and not cpu.get("dedicatedCpuPlacement"):
        _fail(where + ".realtime", {}, "KubeVirt takes realtime only with dedicated CPUs (dedicatedCpuPlacement)",
              "give the domain cpus: auto")
    if "realtime" in cpu and "numa" not in cpu:
        _fail(where + ".realtime", {}, "KubeVirt takes realtime only with guestMappingPassthrough",
              "set cpu.numa.passthrough: true (and memory.hugepages)")
    if "numa" in cpu and "hugepages" not in memory:
        _fail(where + ".cpu.numa.passthrough", True, "KubeVirt maps guest NUMA only for hugepage-backed memory",
              "set memory.hugepages.page_size: 2M or 1G")


def _devices(where, entry, domain, qat_resource, unmapped):
    devices = domain["devices"]
    if entry.get("rng") is not None:
        devices["rng"] = {}
        rng = _dict(where + ".rng", entry["rng"])
        if any(rng.get(key) not in (None, "ovirt") for key in ("profile", "backend", "rate", "model")):
            unmapped.append("%s.rng: KubeVirt's rng has no profile, backend, rate or model" % where)
    if entry.get("serial_log"):
        devices["autoattachSerialConsole"] = True
        unmapped.append("%s.serial_log: KubeVirt keeps the serial console's log itself (virtctl console)" % where)
    vfs = whole(where + ".qat_vfs", entry.get("qat_vfs"), least=0) or 0
    if vfs:
        devices["hostDevices"] = [{"name": "qat%d" % index, "deviceName": qat_resource} for index in range(vfs)]
    volumes, disks = [], []
    # a thread serving one disk is KubeVirt's dedicatedIOThread; one thread shared by disks is its 'shared' policy
    threads = [_dict("%s.disks[%d]" % (where, index), disk).get("iothread")
               for index, disk in enumerate(entry.get("disks") or [])]
    shared = set(thread for thread in threads if thread is not None and threads.count(thread) > 1)
    if shared:
        domain["ioThreadsPolicy"] = "shared"
    if len(shared) > 1:
        unmapped.append("%s.disks[].iothread: KubeVirt shares one IO thread among disks, not %d" % (where, len(shared)))
    for index, disk in enumerate(entry.get("disks") or []):
        path = "%s.disks[%d]" % (where, index)
        disk = _dict(path, disk)
        name = "disk%d" % index
        bus = disk.get("bus") or "virtio"
        if bus not in DISK_BUSES:
            unmapped.append("%s.bus: KubeVirt has no %s bus; the disk is on virtio" % (path, bus))
            bus = "virtio"
        item = {"name": name, "cdrom" if disk.get("device") == "cdrom" else "disk": {"bus": bus}}
        if disk.get("iothread") is not None and threads.count(disk["iothread"]) == 1:
            item["dedicatedIOThread"] = True
        if (disk.get("format") or "raw") != "raw":
            unmapped.append("%s.format: KubeVirt's hostDisk is a raw image; convert it (qemu-img convert)" % path)
        if disk.get("target"):
            unmapped.append("%s.target: KubeVirt names the guest's disk devices itself" % path)
        disks.append(item)
        volumes.append({"name": name, "hostDisk": {"path": str(disk.get("path")), "type": "Disk"}})
    if disks:
        devices["disks"] = disks
    return volumes
