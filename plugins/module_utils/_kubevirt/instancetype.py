# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""KubeVirt instance types and preferences, applied to a VirtualMachine as KubeVirt applies them (pure).

:func:`expand` returns the VM with its ``spec.instancetype`` and
``spec.preference`` applied to ``spec.template.spec`` and both matchers
removed (what KubeVirt's expand-spec API gives), and the list of preference
settings it did not apply. ``convert`` then reads the expanded VM as any
other. The rules are KubeVirt's (pkg/instancetype at the commit of
tests/unit/fixtures/kubevirt_instancetypes/README.md):

* matchers: ``kind`` compared in lower case, singular or plural; no kind is
  the cluster kind; a namespaced kind is looked up in the VM's namespace
  (``default`` without one) - find/spec.go, find/instancetype.go;
* the instancetype: apply/cpu.go, apply/memory.go and their neighbours.
  ``cpu.guest`` and ``memory.guest`` always conflict with the VM's own
  topology, size and CPU or memory resources; ``model``,
  ``dedicatedCPUPlacement``, ``isolateEmulatorThread``, ``numa``,
  ``realtime``, ``hugepages`` and ``maxGuest`` conflict only where both set
  them. Every conflict is collected, and a VM with any is refused, as
  KubeVirt's admission refuses it ("VM field(s) ... conflicts with selected
  instance type");
* the topology: apply/cpu.go applyGuestCPUTopology with the preference's
  ``preferredCPUTopology`` (``sockets`` by default; ``spread`` with its
  ratio and ``across``);
* the preference fills only what the VM leaves unset (preference/apply),
  after its requirements are checked (preference/requirements).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.realtime.virt.plugins.module_utils._common.units import parse_quantity
from ansible_collections.realtime.virt.plugins.module_utils._kubevirt.fields import fail as _fail
from ansible_collections.realtime.virt.plugins.module_utils._kubevirt.fields import mapping as _dict

GROUP = "instancetype.kubevirt.io/"
# lower-case kind (singular or plural) -> (the kind, namespaced)
KINDS = {}
for _kind, _namespaced in (("VirtualMachineInstancetype", True), ("VirtualMachineClusterInstancetype", False),
                           ("VirtualMachinePreference", True), ("VirtualMachineClusterPreference", False)):
    KINDS[_kind.lower()] = KINDS[_kind.lower() + "s"] = (_kind, _namespaced)
DEFAULT_KIND = {"instancetype": "VirtualMachineClusterInstancetype", "preference": "VirtualMachineClusterPreference"}
TOPOLOGIES = {"sockets": "sockets", "preferSockets": "sockets", "any": "sockets", "preferAny": "sockets",
              "cores": "cores", "preferCores": "cores", "threads": "threads", "preferThreads": "threads",
              "spread": "spread", "preferSpread": "spread"}
ACROSS = ("SocketsCores", "CoresThreads", "SocketsCoresThreads")
# instancetype cpu field -> the VMI's spelling
CPU_FIELDS = (("model", "model"), ("dedicatedCPUPlacement", "dedicatedCpuPlacement"),
              ("isolateEmulatorThread", "isolateEmulatorThread"), ("numa", "numa"), ("realtime", "realtime"))
AUTOATTACH = ("GraphicsDevice", "MemBalloon", "PodInterface", "SerialConsole", "InputDevice")


def catalog(manifests):
    """``{(kind, namespace or None, name): spec}`` of instancetype and preference manifests."""
    found = {}
    items = [manifests] if isinstance(manifests, dict) else manifests
    if not isinstance(items, list):
        _fail("instancetypes", manifests, "must be a list of manifests",
              "pass the instancetype and preference manifests as a list (from_yaml_all)")
    listed = []
    for index, manifest in enumerate(items):
        if isinstance(manifest, dict) and manifest.get("kind") == "List":
            # what 'kubectl get ... -o yaml' prints: a v1 List of the objects
            listed += [("instancetypes[%d].items[%d]" % (index, number), item)
                       for number, item in enumerate(manifest.get("items") or [])]
        else:
            listed.append(("instancetypes[%d]" % index, manifest))
    for where, manifest in listed:
        if manifest is None:
            continue  # an empty YAML document
        manifest = _dict(where, manifest)
        kind = manifest.get("kind")
        if str(kind).lower() not in KINDS or not str(manifest.get("apiVersion", "")).startswith(GROUP):
            _fail(where + ".kind", kind, "not a KubeVirt instancetype or preference of %s" % GROUP.rstrip("/"),
                  "pass VirtualMachine(Cluster)Instancetype and VirtualMachine(Cluster)Preference manifests only")
        kind, namespaced = KINDS[kind.lower()]
        metadata = _dict(where + ".metadata", manifest.get("metadata"))
        if not isinstance(metadata.get("name"), str):
            _fail(where + ".metadata.name", metadata.get("name"), "every instancetype needs a name",
                  "give the manifest metadata.name")
        namespace = (metadata.get("namespace") or "default") if namespaced else None
        found[(kind, namespace, metadata["name"])] = _dict(where + ".spec", manifest.get("spec"))
    return found


def _find(which, vm_spec, namespace, found):
    """The spec a VM's matcher names, or None when it names none."""
    matcher = _dict("spec." + which, vm_spec.get(which))
    if not matcher:
        return None, None
    path = "spec.%s" % which
    if matcher.get("inferFromVolume"):
        _fail(path + ".inferFromVolume", matcher["inferFromVolume"], "infers the %s from a volume's labels on the "
              "cluster, which a manifest alone does not hold" % which, "name the %s in %s.name" % (which, path))
    kind = matcher.get("kind") or DEFAULT_KIND[which]
    if str(kind).lower() not in KINDS or KINDS[str(kind).lower()][0].lower().endswith(
            "preference" if which == "instancetype" else "instancetype"):
        _fail(path + ".kind", kind, "got unexpected kind in %sMatcher (KubeVirt's own words)" % which.capitalize(),
              "use %s or its namespaced kind" % DEFAULT_KIND[which])
    kind, namespaced = KINDS[str(kind).lower()]
    key = (kind, namespace if namespaced else None, matcher.get("name"))
    if key not in found:
        _fail(path + ".name", matcher.get("name"), "no %s of that name%s among the instancetypes given (KubeVirt "
              "leaves such a VM stopped: %s not found)" % (kind, " in namespace %s" % namespace if namespaced else "",
                                                           kind.lower() + "s.instancetype.kubevirt.io"),
              "pass its manifest in instancetypes (from_yaml_all of the bundle that defines it)")
    return kind + " " + matcher.get("name"), found[key]


def expand(manifest, found):
    """``(VM with its instancetype and preference applied, [preference setting not applied: why])``."""
    spec = _dict("spec", manifest.get("spec"))
    if manifest.get("kind") != "VirtualMachine" or not (spec.get("instancetype") or spec.get("preference")):
        return manifest, []
    namespace = _dict("metadata", manifest.get("metadata")).get("namespace") or "default"
    type_name, instancetype = _find("instancetype", spec, namespace, found)
    pref_name, preference = _find("preference", spec, namespace, found)
    manifest = copy.deepcopy(manifest)
    spec = manifest["spec"]
    spec.pop("instancetype", None)
    spec.pop("preference", None)
    vmi = _dict("spec.template.spec", _dict("spec.template", spec.setdefault("template", {})).setdefault("spec", {}))
    domain = _dict("spec.template.spec.domain", vmi.setdefault("domain", {}))
    preference = preference or {}
    if instancetype is not None:
        conflicts = _conflicts(instancetype, vmi, domain)
        if conflicts:
            _fail("spec.instancetype", type_name, "VM field(s) %s conflicts with selected instance type (KubeVirt "
                  "refuses such a VM too)" % ", ".join(conflicts),
                  "remove them from the VM; the instancetype sets them")
        _requirements(type_name, instancetype, preference)
        _apply_instancetype(instancetype, preference, vmi, domain)
    left = []
    if instancetype and instancetype.get("annotations"):
        left.append("%s: annotations (%s): pod annotations for CRI-O; on plain libvirt the rt_host role keeps IRQs and "
                    "load balancing off the isolated CPUs" % (type_name, ", ".join(sorted(instancetype["annotations"]))))
    return manifest, left + _apply_preference(pref_name, preference, vmi, domain)


def _set(mapping, key):
    """KubeVirt's 'set': present and not its zero value (false, 0, "" count as unset)."""
    return mapping.get(key) not in (None, False, 0, "")


def _conflicts(instancetype, vmi, domain):
    base = "spec.template.spec"
    cpu, memory = _dict(base + ".domain.cpu", domain.get("cpu")), _dict(base + ".domain.memory", domain.get("memory"))
    resources = _dict(base + ".domain.resources", domain.get("resources"))
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
    found = []
    if vmi.get("nodeSelector") is not None and instancetype.get("nodeSelector") is not None:
        found.append(base + ".nodeSelector")
    if vmi.get("schedulerName") and instancetype.get("schedulerName"):
        found.append(base + ".schedulerName")
    it_cpu, it_memory = instancetype.get("cpu") or {}, instancetype.get("memory") or {}
    for side, values in (("requests", requests), ("limits", limits)):
        if "cpu" in values:
            found.append("%s.domain.resources.%s.cpu" % (base, side))
    found += ["%s.domain.cpu.%s" % (base, key) for key in ("sockets", "cores", "threads") if _set(cpu, key)]
    found += ["%s.domain.cpu.%s" % (base, theirs) for theirs, ours in CPU_FIELDS
              if _set(cpu, ours) and it_cpu.get(theirs) is not None]
    # KubeVirt reports the first memory conflict only (apply/memory.go validateMemory)
    for clash, path in ((memory.get("guest") is not None, "domain.memory.guest"),
                        (memory.get("hugepages") is not None and it_memory.get("hugepages") is not None,
                         "domain.memory.hugepages"),
                        (memory.get("maxGuest") is not None and it_memory.get("maxGuest") is not None,
                         "domain.memory.maxGuest"),
                        ("memory" in requests, "domain.resources.requests.memory"),
                        ("memory" in limits, "domain.resources.limits.memory")):
        if clash:
            found.append("%s.%s" % (base, path))
            break
    if domain.get("ioThreadsPolicy") and instancetype.get("ioThreadsPolicy"):
        found.append(base + ".domain.ioThreadsPolicy")
    devices = domain.get("devices") or {}
    found += ["%s.domain.devices.%s" % (base, key) for key in ("gpus", "hostDevices")
              if devices.get(key) and instancetype.get(key)]
    return found


def _requirements(type_name, instancetype, preference):
    """The preference's requirements against the instancetype (preference/requirements/checker.go)."""
    needs = preference.get("requirements") or {}
    guest = int((instancetype.get("cpu") or {}).get("guest") or 0)
    if (needs.get("cpu") or {}).get("guest") and guest < int(needs["cpu"]["guest"]):
        _fail("spec.instancetype", type_name, "insufficient CPU resources of %d vCPU provided by instance type, "
              "preference requires %d vCPU (KubeVirt's words)" % (guest, int(needs["cpu"]["guest"])),
              "choose a larger instancetype or another preference")
    wanted = (needs.get("memory") or {}).get("guest")
    size = (instancetype.get("memory") or {}).get("guest")
    if wanted is not None and (parse_quantity(size) or 0) < (parse_quantity(wanted) or 0):
        _fail("spec.instancetype", type_name, "insufficient Memory resources of %s provided by instance type, "
              "preference requires %s (KubeVirt's words)" % (size, wanted),
              "choose a larger instancetype or another preference")


def _topology(guest, preference):
    """sockets, cores, threads for ``guest`` vCPUs (apply/cpu.go applyGuestCPUTopology)."""
    if guest <= 1:
        return 1, 1, 1
    cpu = preference.get("cpu") or {}
    chosen = cpu.get("preferredCPUTopology") or "sockets"
    if chosen not in TOPOLOGIES:
        _fail("preference.cpu.preferredCPUTopology", chosen, "unknown preferredCPUTopology (KubeVirt refuses it too)",
              "use sockets, cores, threads, spread or any")
    shape = TOPOLOGIES[chosen]
    if shape != "spread":
        return (guest, 1, 1) if shape == "sockets" else (1, guest, 1) if shape == "cores" else (1, 1, guest)
    options = cpu.get("spreadOptions") or {}
    ratio = int(options.get("ratio") or preference.get("preferSpreadSocketToCoreRatio") or 2)
    across = options.get("across") or "SocketsCores"
    if across not in ACROSS:
        _fail("preference.cpu.spreadOptions.across", across, "across %s is not supported (KubeVirt's words)" % across,
              "use %s" % ", ".join(ACROSS))
    per_socket = ratio * (2 if across == "SocketsCoresThreads" else 1)
    if guest % (ratio if across != "SocketsCoresThreads" else per_socket):
        _fail("spec.instancetype", guest, "%d vCPUs provided by the instance type are not divisible by the spread of "
              "the preference (%s, ratio %d); KubeVirt refuses such a VM too" % (guest, across, ratio),
              "choose an instancetype whose vCPUs the ratio divides")
    if across == "SocketsCores":
        return guest // ratio, ratio, 1
    if across == "CoresThreads":
        return 1, guest // ratio, ratio
    return guest // per_socket, ratio, 2


def _apply_instancetype(instancetype, preference, vmi, domain):
    it_cpu, it_memory = instancetype.get("cpu") or {}, instancetype.get("memory") or {}
    cpu = domain.setdefault("cpu", {})
    guest = it_cpu.get("guest")
    if isinstance(guest, bool) or not isinstance(guest, int) or guest < 1:
        _fail("instancetype.spec.cpu.guest", guest, "every instancetype needs a whole number of vCPUs",
              "write cpu.guest: 2")
    cpu["sockets"], cpu["cores"], cpu["threads"] = _topology(guest, preference)
    for theirs, ours in CPU_FIELDS:
        if it_cpu.get(theirs) is not None:
            cpu[ours] = copy.deepcopy(it_cpu[theirs])
    if it_cpu.get("maxSockets") is not None:
        cpu["maxSockets"] = it_cpu["maxSockets"]
    if it_memory.get("guest") is None:
        _fail("instancetype.spec.memory.guest", None, "every instancetype needs a memory size", "write memory.guest")
    memory = domain.setdefault("memory", {})
    memory["guest"] = it_memory["guest"]
    for key in ("hugepages", "maxGuest"):
        if it_memory.get(key) is not None:
            memory[key] = copy.deepcopy(it_memory[key])
    if it_memory.get("overcommitPercent"):
        # the request KubeVirt gives the pod; the guest's own size stays memory.guest
        request = int(parse_quantity(it_memory["guest"]) * (100 - int(it_memory["overcommitPercent"])) // 100)
        domain.setdefault("resources", {}).setdefault("requests", {})["memory"] = str(request)
    for key in ("ioThreadsPolicy", "ioThreads", "launchSecurity"):
        if instancetype.get(key) is not None:
            domain[key] = copy.deepcopy(instancetype[key])
    for key in ("gpus", "hostDevices"):
        if instancetype.get(key):
            domain.setdefault("devices", {})[key] = copy.deepcopy(instancetype[key])
    for key in ("nodeSelector", "schedulerName"):
        if instancetype.get(key) is not None:
            vmi[key] = copy.deepcopy(instancetype[key])


def _apply_preference(name, preference, vmi, domain):
    """Fill what the VM leaves unset; name the preference settings libvirt_rt_domain has no use for."""
    if not preference:
        return []
    devices = domain.setdefault("devices", {})
    wanted = _dict("preference.devices", preference.get("devices"))
    for index, disk in enumerate(devices.get("disks") or []):
        if not any(key in disk for key in ("disk", "cdrom", "lun")):
            disk["disk"] = {}
        for target, option in (("disk", "preferredDiskBus"), ("cdrom", "preferredCdromBus"), ("lun", "preferredLunBus")):
            if target in disk and wanted.get(option) and not (disk[target] or {}).get("bus"):
                disk[target] = dict(disk[target] or {}, bus=wanted[option])
        bus = (disk.get("disk") or {}).get("bus") or "virtio"
        if "disk" in disk and bus == "virtio" and disk.get("dedicatedIOThread") is None and \
                wanted.get("preferredDiskDedicatedIoThread") is not None:
            disk["dedicatedIOThread"] = wanted["preferredDiskDedicatedIoThread"]
    for interface in devices.get("interfaces") or []:
        if wanted.get("preferredInterfaceModel") and not interface.get("model"):
            interface["model"] = wanted["preferredInterfaceModel"]
    if wanted.get("preferredRng") is not None and devices.get("rng") is None:
        devices["rng"] = copy.deepcopy(wanted["preferredRng"])
    for what in AUTOATTACH:
        if wanted.get("preferredAutoattach" + what) is not None and devices.get("autoattach" + what) is None:
            devices["autoattach" + what] = wanted["preferredAutoattach" + what]
    cpu_pref = _dict("preference.cpu", preference.get("cpu"))
    features = domain.setdefault("cpu", {}).setdefault("features", [])
    for feature in cpu_pref.get("preferredCPUFeatures") or []:
        if feature.get("name") not in [item.get("name") for item in features]:
            features.append(copy.deepcopy(feature))
    if not features:
        domain["cpu"].pop("features")
    if not domain["cpu"]:
        domain.pop("cpu")
    machine = _dict("preference.machine", preference.get("machine")).get("preferredMachineType")
    if machine and not (domain.get("machine") or {}).get("type"):
        domain["machine"] = dict(domain.get("machine") or {}, type=machine)
    used = {"devices": ("preferredDiskBus", "preferredCdromBus", "preferredLunBus", "preferredDiskDedicatedIoThread",
                        "preferredInterfaceModel", "preferredRng") + tuple("preferredAutoattach" + w for w in AUTOATTACH),
            "cpu": ("preferredCPUTopology", "spreadOptions", "preferredCPUFeatures"), "machine": ("preferredMachineType",),
            "requirements": None, "preferSpreadSocketToCoreRatio": None, "annotations": None}
    left = []
    for key in sorted(preference):
        if key not in used:
            left.append("%s: %s: libvirt_rt_domain has no such setting; not applied" % (name, key))
        elif used[key]:
            left += ["%s: %s.%s: libvirt_rt_domain has no such setting; not applied" % (name, key, sub)
                     for sub in sorted(preference[key] or {}) if sub not in used[key]]
    return left
