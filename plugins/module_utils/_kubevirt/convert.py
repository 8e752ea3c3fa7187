# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A KubeVirt VirtualMachine or VirtualMachineInstance as an rt_domain_domains entry (pure).

:func:`convert` reads the manifest as a dict (``from_yaml``) and returns
``(entry, unmapped)``: the entry takes the options of the rt_domain role
(``cpus``, ``emulator``, ``qat_vfs``) and of libvirt_rt_domain; ``unmapped``
lists, by field path, what plain libvirt cannot be given from the manifest
(pod networks, container disks, PVCs, scheduling hints...), so nothing is
dropped without a word.  A field whose value has the wrong type raises
:class:`OptionError` naming the path and the value.

The mapping (docs/libvirt_rt_domain.md, "KubeVirt mapping"):

* ``cpu.cores/sockets/threads`` -> ``vcpus`` and ``cpu.topology``; without
  them, the CPU limit (or request), as KubeVirt does;
* ``cpu.dedicatedCpuPlacement`` -> ``cpus: auto``;
  ``cpu.isolateEmulatorThread`` -> ``emulator: isolate``;
  ``cpu.realtime`` -> ``realtime`` (``mask``); ``cpu.model`` -> ``cpu.mode``
  (``host-passthrough``, ``host-model``) or ``cpu.model`` (custom);
  ``cpu.features`` -> ``cpu.features``; ``cpu.numa.guestMappingPassthrough``
  -> ``cpu.numa.passthrough``;
* ``memory.guest`` (else the memory request, else the limit, as KubeVirt
  reads them) -> ``memory_mib``, or ``memory_kib`` when the size is not
  whole MiB (``1024M`` is 1,000,000 KiB); ``memory.hugepages.pageSize`` ->
  ``memory.hugepages.page_size``, memory that is not whole pages refused as
  KubeVirt refuses it.  Quantities are read by ``_common.units``'
  :func:`parse_quantity`, as Kubernetes reads them;
* ``devices.rng`` -> ``rng``; ``devices.disks`` backed by a ``hostDisk``
  volume -> ``disks`` (``dedicatedIOThread`` and ``ioThreadsPolicy`` ->
  ``iothreads`` and ``disks[].iothread``); ``hostDevices``/``gpus`` whose
  ``deviceName`` is a PCI address -> ``hostdevs``, and Intel QAT device
  plugin resources (``qat.intel.com/...``) -> ``qat_vfs``;
  ``autoattachSerialConsole: true`` -> ``serial_log``;
* ``machine.type`` -> ``machine``; ``running``/``runStrategy`` -> ``state``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.units import ceil_div, parse_quantity
from ansible_collections.realtime.virt.plugins.module_utils._kernel import pci
from ansible_collections.realtime.virt.plugins.module_utils._kubevirt.fields import fail as _fail
from ansible_collections.realtime.virt.plugins.module_utils._kubevirt.fields import mapping as _dict
from ansible_collections.realtime.virt.plugins.module_utils._kubevirt.fields import whole

KINDS = ("VirtualMachine", "VirtualMachineInstance")
# KubeVirt's hugepage sizes on x86 (the node resources hugepages-2Mi and hugepages-1Gi), in bytes
PAGE_SIZES = {2 ** 21: "2M", 2 ** 30: "1G"}
RUN_STRATEGIES = {"Always": "running", "RerunOnFailure": "running", "Once": "running", "Halted": "stopped",
                  "Manual": "present"}
DISK_KINDS = ("disk", "cdrom", "lun")
QAT_RESOURCE = "qat.intel.com/"


def _list(path, value):
    if value is None:
        return []
    if not isinstance(value, list):
        _fail(path, value, "must be a list", "write it as the KubeVirt API does (see 'kubectl explain')")
    return value


def _bool(path, value):
    if value is None or isinstance(value, bool):
        return bool(value)
    _fail(path, value, "must be true or false", "write true or false without quotes")


def quantity(path, value):
    """A Kubernetes quantity (``4Gi``, ``1024M``, ``1e9``, ``1500m``, ``3``) as an exact number, 0 or more."""
    amount = parse_quantity(value)
    if amount is None:
        _fail(path, value, "not a Kubernetes quantity", "write a number with an optional suffix: 4Gi, 1024M, 1e9, 2")
    if amount < 0:
        _fail(path, value, "is negative (KubeVirt refuses it too)", "write a size or count of 0 or more")
    return amount


def _memory_size(entry, kib):
    """The guest's size: ``memory_mib`` when it is whole MiB, else ``memory_kib`` (libvirt's own unit)."""
    entry.pop("memory_mib", None)
    entry.pop("memory_kib", None)
    if kib % 1024:
        entry["memory_kib"] = kib
    else:
        entry["memory_mib"] = kib // 1024


def _unknown(prefix, mapping, known, unmapped, why="plain libvirt has no such setting here"):
    for key in sorted(mapping):
        if key not in known:
            unmapped.append("%s.%s: %s" % (prefix, key, why))


def convert(manifest):
    """``(rt_domain_domains entry, [unmapped field: why])`` for one VirtualMachine(Instance)."""
    manifest = _dict("manifest", manifest)
    kind = manifest.get("kind")
    if kind not in KINDS:
        _fail("kind", kind, "not a KubeVirt VirtualMachine or VirtualMachineInstance",
              "pass one manifest of kind VirtualMachine or VirtualMachineInstance (from_yaml)")
    api = manifest.get("apiVersion") or ""
    if not isinstance(api, str) or not api.startswith("kubevirt.io/"):
        _fail("apiVersion", api, "not a KubeVirt API version", "use a manifest of apiVersion kubevirt.io/v1")
    metadata = _dict("metadata", manifest.get("metadata"))
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        _fail("metadata.name", name, "every domain needs a name", "give the manifest metadata.name")
    unmapped = []
    spec = _dict("spec", manifest.get("spec"))
    entry = {"name": name}
    if kind == "VirtualMachine":
        entry["state"] = _vm_state(spec)
        _unknown("spec", spec, ("running", "runStrategy", "template"), unmapped,
                 "a KubeVirt controller setting (instance types, data volume templates...) plain libvirt has not")
        prefix = "spec.template.spec"
        vmi = _dict(prefix, _dict("spec.template", spec.get("template")).get("spec"))
    else:
        entry["state"] = "running"
        prefix = "spec"
        vmi = spec
    _unknown(prefix, vmi, ("domain", "volumes", "networks"), unmapped,
             "a Kubernetes scheduling or pod setting; plain libvirt has none")
    domain = _dict(prefix + ".domain", vmi.get("domain"))
    _unknown(prefix + ".domain", domain, ("cpu", "memory", "resources", "devices", "machine", "features",
                                          "ioThreadsPolicy"), unmapped)
    resources = _resources(prefix + ".domain.resources", domain.get("resources"), unmapped)
    _cpu(prefix + ".domain.cpu", domain.get("cpu"), resources, entry, unmapped)
    _memory(prefix + ".domain.memory", domain.get("memory"), resources, entry, unmapped)
    _admitted(prefix + ".domain", entry)
    _machine(prefix + ".domain.machine", domain.get("machine"), entry)
    _features(prefix + ".domain.features", domain.get("features"), unmapped)
    volumes = _volumes(prefix + ".volumes", vmi.get("volumes"))
    _devices(prefix, domain, volumes, entry, unmapped)
    for index, network in enumerate(_list(prefix + ".networks", vmi.get("networks"))):
        unmapped.append("%s.networks[%d]: %s network; give the domain interfaces (bridge or libvirt network) instead"
                        % (prefix, index, "a pod" if "pod" in _dict(prefix + ".networks", network) else "a Multus"))
    return entry, unmapped


def _vm_state(spec):
    running, strategy = spec.get("running"), spec.get("runStrategy")
    if strategy is not None:
        if strategy not in RUN_STRATEGIES:
            _fail("spec.runStrategy", strategy, "not a KubeVirt run strategy",
                  "use one of %s" % ", ".join(sorted(RUN_STRATEGIES)))
        return RUN_STRATEGIES[strategy]
    return "running" if _bool("spec.running", running) else "stopped"


def _resources(path, resources, unmapped):
    """``{"cpu": {"limits": (path, value), "requests": ...}, "memory": {...}}`` and the other resources named."""
    resources = _dict(path, resources)
    found = {"cpu": {}, "memory": {}}
    for side in ("limits", "requests"):
        values = _dict("%s.%s" % (path, side), resources.get(side))
        for key in sorted(values):
            if key in found:
                found[key][side] = ("%s.%s.%s" % (path, side, key), values[key])
            else:
                unmapped.append("%s.%s.%s: a Kubernetes resource; plain libvirt assigns no such resource"
                                % (path, side, key))
    _unknown(path, resources, ("limits", "requests"), unmapped)
    return found


def _cpu(path, cpu, resources, entry, unmapped):
    cpu = _dict(path, cpu)
    topology = dict((key, whole("%s.%s" % (path, key), cpu.get(key))) for key in ("sockets", "cores", "threads"))
    options = {}
    if any(topology.values()):
        topo = dict((key, value or 1) for key, value in topology.items())
        entry["vcpus"] = topo["sockets"] * topo["cores"] * topo["threads"]
        options["topology"] = topo
    elif resources["cpu"]:
        # KubeVirt's GetCPUTopology (pkg/virt-launcher/virtwrap/converter/vcpu/vcpu.go): the CPU limit, else
        # the request, as sockets; Quantity.Value() rounds a fraction up (1500m is 2)
        where, value = resources["cpu"].get("limits") or resources["cpu"]["requests"]
        entry["vcpus"] = max(1, int(ceil_div(quantity(where, value), 1)))
    else:
        entry["vcpus"] = 1
    model = cpu.get("model")
    if model not in (None, ""):
        if not isinstance(model, str):
            _fail(path + ".model", model, "must be a CPU model name", "write host-passthrough, host-model or a model")
        if model in ("host-passthrough", "host-model"):
            options["mode"] = model
        else:
            options["mode"], options["model"] = "custom", model
    features = []
    for index, feature in enumerate(_list(path + ".features", cpu.get("features"))):
        feature = _dict("%s.features[%d]" % (path, index), feature)
        if not isinstance(feature.get("name"), str):
            _fail("%s.features[%d].name" % (path, index), feature.get("name"), "every feature needs a name",
                  "write {name: tsc-deadline, policy: require}")
        features.append({"name": feature["name"], "policy": feature.get("policy") or "require"})
    if features:
        options["features"] = features
    dedicated = _bool(path + ".dedicatedCpuPlacement", cpu.get("dedicatedCpuPlacement"))
    for needs in ("isolateEmulatorThread", "realtime"):
        if cpu.get(needs) not in (None, False) and not dedicated:
            _fail("%s.%s" % (path, needs), cpu.get(needs), "needs dedicatedCpuPlacement: true (KubeVirt refuses "
                  "it too)", "set %s.dedicatedCpuPlacement: true" % path)
    if dedicated:
        entry["cpus"] = "auto"
    if _bool(path + ".isolateEmulatorThread", cpu.get("isolateEmulatorThread")):
        entry["emulator"] = "isolate"
    if cpu.get("realtime") is not None:
        realtime = _dict(path + ".realtime", cpu["realtime"])
        entry["realtime"] = {"mask": str(realtime["mask"])} if realtime.get("mask") not in (None, "") else {}
        _unknown(path + ".realtime", realtime, ("mask",), unmapped)
    numa = _dict(path + ".numa", cpu.get("numa"))
    if "guestMappingPassthrough" in numa and not dedicated:
        _fail(path + ".numa.guestMappingPassthrough", numa["guestMappingPassthrough"], "needs "
              "dedicatedCpuPlacement: true (KubeVirt refuses it too)", "set %s.dedicatedCpuPlacement: true" % path)
    if "guestMappingPassthrough" in numa:
        options["numa"] = {"passthrough": True}
    _unknown(path + ".numa", numa, ("guestMappingPassthrough",), unmapped)
    if options:
        entry["cpu"] = options
    _unknown(path, cpu, ("sockets", "cores", "threads", "model", "features", "dedicatedCpuPlacement",
                         "isolateEmulatorThread", "realtime", "numa"), unmapped)


def _memory(path, memory, resources, entry, unmapped):
    """The guest's memory as KubeVirt sizes it, and its hugepages as KubeVirt admits them."""
    memory = _dict(path, memory)
    limit, request = resources["memory"].get("limits"), resources["memory"].get("requests")
    # KubeVirt's GetVirtualMemory (pkg/virt-launcher/virtwrap/converter/vcpu/vcpu.go): memory.guest, else the
    # limit when no request is set, else the request
    if memory.get("guest") is not None:
        where, value = path + ".guest", memory["guest"]
    else:
        where, value = (limit if limit and not request else request) or (path + ".guest", None)
    if value is None:
        _fail(path + ".guest", None, "the manifest gives no memory size",
              "set %s.guest or a memory request in resources" % path)
    size = quantity(where, value)
    if not size:
        _fail(where, value, "the guest needs some memory", "write a size such as 1Gi")
    # KubeVirt writes the bytes (<memory unit='b'>), and libvirt rounds them up to a whole KiB (formatdomain,
    # "Memory Allocation"): the same KiB here, never fewer bytes than the manifest asks for
    _memory_size(entry, int(ceil_div(size, 1024)))
    hugepages = _dict(path + ".hugepages", memory.get("hugepages"))
    if hugepages:
        _hugepages(path, hugepages, (where, value, size), request, memory, entry)
    _unknown(path, memory, ("guest", "hugepages"), unmapped)


def _admitted(path, entry):
    """KubeVirt's admission (vmi-create-admitter.go, validateRealtime and validateNUMA) for real-time guests."""
    numa = "numa" in entry.get("cpu", {})
    if "realtime" in entry and not numa:
        _fail(path + ".cpu.realtime", {}, "needs numa.guestMappingPassthrough (KubeVirt refuses it too)",
              "set %s.cpu.numa.guestMappingPassthrough: {} and memory.hugepages" % path)
    if numa and "hugepages" not in entry.get("memory", {}):
        _fail(path + ".cpu.numa.guestMappingPassthrough", {}, "needs memory.hugepages (KubeVirt refuses it too)",
              "set %s.memory.hugepages.pageSize: 2Mi or 1Gi" % path)


def _hugepages(path, hugepages, guest, request, memory, entry):
    """Refuse what KubeVirt refuses: memory not a whole number of pages (never rounded to fit)."""
    where = path + ".hugepages.pageSize"
    page = parse_quantity(hugepages.get("pageSize"))
    if page not in PAGE_SIZES:
        _fail(where, hugepages.get("pageSize"), "KubeVirt pages are 2Mi or 1Gi", "write pageSize: 2Mi or 1Gi")
    entry["memory"] = {"hugepages": {"page_size": PAGE_SIZES[page]}}
    # KubeVirt's admitter (pkg/virt-api/webhooks/validating-webhook/admitters/vmi-create-admitter.go,
    # validateHugepagesMemoryRequests) checks the memory request, else memory.guest, else the limit: at least
    # one page and a whole number of pages. The guest's own size must be whole pages too (QEMU backs it with
    # them; libvirt_rt_domain refuses it otherwise), so it is checked the same way.
    checked = [request] if request else []
    checked.append(guest[:2])
    for spot, value in checked:
        size = quantity(spot, value)
        if size < page or size % page:
            _fail(spot, value, "is not a whole number of %s pages (%s); KubeVirt refuses such a VMI too"
                  % (hugepages.get("pageSize"), "fewer than one page" if size < page else
                     "%s pages" % _pages(size, page)),
                  "write a multiple of %s, such as %s" % (hugepages.get("pageSize"), _multiple(size, page)))


def _pages(size, page):
    return ("%.3f" % (size / page)).rstrip("0")


def _multiple(size, page):
    pages = max(1, int(ceil_div(size, page)))
    return "%dMi" % (pages * page // 2 ** 20) if page < 2 ** 30 else "%dGi" % (pages * page // 2 ** 30)


def _machine(path, machine, entry):
    machine = _dict(path, machine)
    kind = machine.get("type")
    if kind not in (None, ""):
        if not isinstance(kind, str):
            _fail(path + ".type", kind, "must be a machine type name", "write q35 or pc")
        entry["machine"] = kind


def _features(path, features, unmapped):
    features = _dict(path, features)
    for key in sorted(features):
        value = _dict("%s.%s" % (path, key), features[key])
        if key in ("acpi", "apic") and value.get("enabled", True) is not False:
            continue  # libvirt_rt_domain writes <acpi/> and <apic/> itself
        unmapped.append("%s.%s: libvirt_rt_domain writes no such feature; add it in base_xml" % (path, key))


def _volumes(path, volumes):
    found = {}
    for index, volume in enumerate(_list(path, volumes)):
        volume = _dict("%s[%d]" % (path, index), volume)
        if not isinstance(volume.get("name"), str):
            _fail("%s[%d].name" % (path, index), volume.get("name"), "every volume needs a name",
                  "give the volume the name its disk uses")
        found[volume["name"]] = (index, volume)
    return found


def _devices(prefix, domain, volumes, entry, unmapped):
    path = prefix + ".domain.devices"
    devices = _dict(path, domain.get("devices"))
    if devices.get("rng") is not None:
        _dict(path + ".rng", devices["rng"])
        entry["rng"] = {}
    if _bool(path + ".autoattachSerialConsole", devices.get("autoattachSerialConsole")):
        entry["serial_log"] = "/var/log/libvirt/qemu/%s-serial.log" % entry["name"]
    if devices.get("autoattachMemBalloon") is False and "realtime" not in entry:
        unmapped.append("%s.autoattachMemBalloon: libvirt_rt_domain removes the balloon of real-time domains only"
                        % path)
    for key in ("autoattachGraphicsDevice", "autoattachInputDevice", "autoattachVSOCK", "autoattachPodInterface"):
        if _bool("%s.%s" % (path, key), devices.get(key)):
            unmapped.append("%s.%s: libvirt_rt_domain attaches no such device" % (path, key))
    # a volume with no disk or filesystem of its name gets a default disk, as KubeVirt's SetDefaultVolumeDisk
    # (pkg/util/util.go) gives it one
    disks = list(_list(path + ".disks", devices.get("disks")))
    filesystems = _list(path + ".filesystems", devices.get("filesystems"))
    taken = set(_dict(path, item).get("name") for item in disks + filesystems)
    disks += [{"name": name} for name, (_index, _vol) in sorted(volumes.items(), key=lambda item: item[1][0])
              if name not in taken]
    _disks(path, disks, volumes, prefix, domain.get("ioThreadsPolicy"), entry, unmapped)
    _host_devices(path, devices, entry, unmapped)
    for index, _iface in enumerate(_list(path + ".interfaces", devices.get("interfaces"))):
        unmapped.append("%s.interfaces[%d]: a pod or Multus interface; give the domain interfaces (bridge or "
                        "libvirt network) instead" % (path, index))
    _unknown(path, devices, ("rng", "autoattachSerialConsole", "autoattachMemBalloon", "autoattachGraphicsDevice",
                             "autoattachInputDevice", "autoattachVSOCK", "autoattachPodInterface", "disks",
                             "hostDevices", "gpus", "interfaces"), unmapped)


def _disks(path, disks, volumes, prefix, policy, entry, unmapped):
    if policy not in (None, "shared", "auto"):
        _fail(prefix + ".domain.ioThreadsPolicy", policy, "not a KubeVirt IO thread policy",
              "use shared or auto (supplementalPool needs KubeVirt)")
    shared, dedicated, result = [], [], []
    for index, disk in enumerate(_list(path + ".disks", disks)):
        where = "%s.disks[%d]" % (path, index)
        disk = _dict(where, disk)
        volume = volumes.get(disk.get("name"))
        if volume is None:
            _fail(where + ".name", disk.get("name"), "no volume of that name", "add the volume to %s.volumes" % prefix)
        vindex, vol = volume
        host_disk = vol.get("hostDisk")
        if host_disk is None:
            kinds = [key for key in vol if key != "name"]
            unmapped.append("%s.volumes[%d] (%s): a %s volume; libvirt_rt_domain takes host files only (hostDisk)"
                            % (prefix, vindex, disk.get("name"), kinds[0] if kinds else "volume without source"))
            continue
        host_disk = _dict("%s.volumes[%d].hostDisk" % (prefix, vindex), host_disk)
        kind = [key for key in DISK_KINDS if key in disk] or ["disk"]
        target = _dict("%s.%s" % (where, kind[0]), disk.get(kind[0]))
        if kind[0] == "lun":
            unmapped.append("%s.lun: a SCSI LUN passthrough; libvirt_rt_domain attaches file disks" % where)
            continue
        item = {"path": host_disk.get("path"), "bus": target.get("bus") or "virtio",
                "device": "cdrom" if kind[0] == "cdrom" else "disk"}
        if not isinstance(item["path"], str) or not item["path"]:
            _fail("%s.volumes[%d].hostDisk.path" % (prefix, vindex), item["path"], "is required",
                  "give the host file's path")
        result.append(item)
        if item["bus"] == "virtio" and item["device"] == "disk":
            (dedicated if _bool(where + ".dedicatedIOThread", disk.get("dedicatedIOThread")) else shared).append(item)
        _unknown(where, disk, ("name", "disk", "cdrom", "lun", "dedicatedIOThread"), unmapped)
    if not result:
        return
    entry["disks"] = result
    if policy is None and not dedicated:
        return
    count = 0
    if shared and policy is not None:
        # shared: one IO thread for every disk; auto: a thread per disk, at most twice the vCPUs (KubeVirt's pool)
        count = 1 if policy == "shared" else min(len(shared), 2 * entry.get("vcpus", 1))
        for number, item in enumerate(shared):
            item["iothread"] = number % count + 1
    for item in dedicated:
        count += 1
        item["iothread"] = count
    if count:
        entry["iothreads"] = count


def _host_devices(path, devices, entry, unmapped):
    for key in ("hostDevices", "gpus"):
        for index, device in enumerate(_list("%s.%s" % (path, key), devices.get(key))):
            where = "%s.%s[%d]" % (path, key, index)
            name = _dict(where, device).get("deviceName")
            if name is None and device.get("claimName") is not None:
                unmapped.append("%s.claimName (%s): a Dynamic Resource Allocation claim; give the device's PCI "
                                "address instead" % (where, device["claimName"]))
                continue
            if not isinstance(name, str) or not name:
                _fail(where + ".deviceName", name, "every host device needs a deviceName (or a DRA claimName)",
                      "give the PCI address (0000:6b:00.1) or the device plugin's resource name")
            if name.startswith(QAT_RESOURCE):
                entry["qat_vfs"] = entry.get("qat_vfs", 0) + 1
                continue
            try:
                pci.parse_address(name)
            except ValueError:
                unmapped.append("%s.deviceName (%s): a device plugin resource; give the device's PCI address "
                                "instead" % (where, name))
                continue
            entry.setdefault("hostdevs", []).append(name)
