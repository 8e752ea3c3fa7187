# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""KubeVirt manifests as rt_domain_domains entries.

SEED is the VirtualMachine of KubeVirt's real-time pull request
(../shared/seeds/000_35285269aa2959e4.txt), as a dict; the expected entry
is written from the KubeVirt API's meaning of each field.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.kubevirt import kubevirt_vm_to_rt_domain
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._kubevirt.convert import convert

SEED = {
    "apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine",
    "metadata": {"labels": {"kubevirt.io/vm": "vm-realtime"}, "name": "vm-realtime", "namespace": "poc"},
    "spec": {"running": True, "template": {
        "metadata": {"labels": {"kubevirt.io/vm": "vm-realtime"}},
        "spec": {
            "domain": {
                "devices": {"autoattachSerialConsole": True, "autoattachMemBalloon": False,
                            "autoattachGraphicsDevice": False,
                            "disks": [{"disk": {"bus": "virtio"}, "name": "containerdisk"}]},
                "machine": {"type": ""},
                "resources": {"requests": {"memory": "4Gi", "cpu": 2}, "limits": {"memory": "4Gi", "cpu": 2}},
                "cpu": {"model": "host-passthrough", "cores": 2, "sockets": 1, "threads": 1,
                        "dedicatedCpuPlacement": True, "isolateEmulatorThread": True, "ioThreadsPolicy": "auto",
                        "features": [{"name": "tsc-deadline", "policy": "require"}],
                        "numa": {"guestMappingPassthrough": {}}, "realtime": {}},
                "memory": {"hugepages": {"pageSize": "1Gi"}, "guest": "3Gi"},
            },
            "terminationGracePeriodSeconds": 0,
            "volumes": [{"containerDisk": {"image": "quay.io/jordigilh/centos8-realtime:latest"},
                         "name": "containerdisk"}],
        }}},
}


def vmi(domain, **spec):
    """A VirtualMachineInstance with ``domain`` (memory.guest 1Gi unless given) and other spec keys."""
    domain = copy.deepcopy(domain)
    domain.setdefault("memory", {"guest": "1Gi"})
    body = {"domain": domain}
    body.update(spec)
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachineInstance", "metadata": {"name": "vmi"},
            "spec": body}


def test_the_seed_converts_to_a_real_time_domain():
    entry, unmapped = convert(SEED)
    assert entry == {
        "name": "vm-realtime", "state": "running", "vcpus": 2, "cpus": "auto", "emulator": "isolate",
        "cpu": {"mode": "host-passthrough", "topology": {"sockets": 1, "cores": 2, "threads": 1},
                "features": [{"name": "tsc-deadline", "policy": "require"}], "numa": {"passthrough": True}},
        "realtime": {}, "memory_mib": 3072, "memory": {"hugepages": {"page_size": "1G"}},
        "serial_log": "/var/log/libvirt/qemu/vm-realtime-serial.log",
    }
    # what plain libvirt cannot take is named, by path: the container disk, a pod setting, and
    # ioThreadsPolicy, which the seed writes under cpu (KubeVirt has it at domain level)
    assert unmapped == [
        "spec.template.spec.terminationGracePeriodSeconds: a Kubernetes scheduling or pod setting; plain libvirt "
        "has none",
        "spec.template.spec.domain.cpu.ioThreadsPolicy: plain libvirt has no such setting here",
        "spec.template.spec.volumes[0] (containerdisk): a containerDisk volume; libvirt_rt_domain takes host files "
        "only (hostDisk)",
    ]


def test_the_filter_warns_fails_or_ignores_the_unmapped_fields(monkeypatch):
    warned = []
    monkeypatch.setattr("ansible.utils.display.Display.warning", lambda self, msg, *a, **k: warned.append(msg))
    assert kubevirt_vm_to_rt_domain(SEED)[0]["name"] == "vm-realtime"
    assert len(warned) == 1 and "vm-realtime: spec.template.spec.volumes[0] (containerdisk)" in warned[0]
    assert kubevirt_vm_to_rt_domain([SEED, SEED], unmapped="ignore")[1]["vcpus"] == 2
    assert len(warned) == 1
    with pytest.raises(AnsibleFilterError) as error:
        kubevirt_vm_to_rt_domain(SEED, unmapped="fail")
    assert "plain libvirt cannot take these fields" in str(error.value) and "containerDisk" in str(error.value)


@pytest.mark.parametrize("strategy, state", [("Always", "running"), ("Halted", "stopped"), ("Manual", "present")])
def test_run_strategy_gives_the_state(strategy, state):
    manifest = copy.deepcopy(SEED)
    del manifest["spec"]["running"]
    manifest["spec"]["runStrategy"] = strategy
    assert convert(manifest)[0]["state"] == state


def test_a_vmi_without_topology_takes_its_vcpus_from_the_cpu_limit():
    entry, unmapped = convert(vmi({"resources": {"limits": {"cpu": "3", "memory": "2Gi"}}}))
    assert (entry["vcpus"], entry["memory_mib"], entry["state"]) == (3, 1024, "running")
    assert "cpu" not in entry and unmapped == []
    assert convert(vmi({"resources": {"requests": {"cpu": "1500m"}}}))[0]["vcpus"] == 2
    assert convert(vmi({"memory": None, "resources": {"requests": {"memory": "512Mi"}}}))[0]["memory_mib"] == 512


def test_host_disks_io_threads_and_devices():
    domain = {"ioThreadsPolicy": "shared", "cpu": {"cores": 2},
              "devices": {"rng": {}, "disks": [{"name": "a", "disk": {"bus": "virtio"}},
                                               {"name": "b", "disk": {}, "dedicatedIOThread": True},
                                               {"name": "c", "cdrom": {"bus": "sata"}}],
                          "hostDevices": [{"name": "vf", "deviceName": "0000:6b:00.1"},
                                          {"name": "q1", "deviceName": "qat.intel.com/generic"},
                                          {"name": "q2", "deviceName": "qat.intel.com/cy"}],
                          "gpus": [{"name": "g", "deviceName": "nvidia.com/GV100GL"}]}}
    volumes = [{"name": "a", "hostDisk": {"path": "/var/lib/a.img", "type": "Disk"}},
               {"name": "b", "hostDisk": {"path": "/var/lib/b.img"}},
               {"name": "c", "hostDisk": {"path": "/var/lib/c.iso"}}]
    entry, unmapped = convert(vmi(domain, volumes=volumes))
    assert entry["disks"] == [{"path": "/var/lib/a.img", "bus": "virtio", "device": "disk", "iothread": 1},
                              {"path": "/var/lib/b.img", "bus": "virtio", "device": "disk", "iothread": 2},
                              {"path": "/var/lib/c.iso", "bus": "sata", "device": "cdrom"}]
    assert entry["iothreads"] == 2 and entry["rng"] == {}
    assert entry["hostdevs"] == ["0000:6b:00.1"] and entry["qat_vfs"] == 2
    assert unmapped == ["spec.domain.devices.gpus[0].deviceName (nvidia.com/GV100GL): a device plugin resource; "
                        "give the device's PCI address instead"]


def test_auto_io_threads_spread_the_disks_over_up_to_twice_the_vcpus():
    disks = [{"name": "d%d" % i, "disk": {}} for i in range(3)]
    volumes = [{"name": "d%d" % i, "hostDisk": {"path": "/d%d" % i}} for i in range(3)]
    entry = convert(vmi({"ioThreadsPolicy": "auto", "cpu": {"cores": 1}, "devices": {"disks": disks}},
                        volumes=volumes))[0]
    assert entry["iothreads"] == 2 and [d["iothread"] for d in entry["disks"]] == [1, 2, 1]


def test_pod_networks_features_and_unknown_fields_are_named():
    domain = {"features": {"acpi": {}, "smm": {"enabled": True}}, "firmware": {"bootloader": {"efi": {}}},
              "devices": {"interfaces": [{"name": "default", "masquerade": {}}], "autoattachGraphicsDevice": True}}
    unmapped = convert(vmi(domain, networks=[{"name": "default", "pod": {}}], nodeSelector={"a": "b"}))[1]
    assert unmapped == [
        "spec.nodeSelector: a Kubernetes scheduling or pod setting; plain libvirt has none",
        "spec.domain.firmware: plain libvirt has no such setting here",
        "spec.domain.features.smm: libvirt_rt_domain writes no such feature; add it in base_xml",
        "spec.domain.devices.autoattachGraphicsDevice: libvirt_rt_domain attaches no such device",
        "spec.domain.devices.interfaces[0]: a pod or Multus interface; give the domain interfaces (bridge or libvirt "
        "network) instead",
        "spec.networks[0]: a pod network; give the domain interfaces (bridge or libvirt network) instead",
    ]


def test_a_custom_model_and_a_realtime_mask():
    entry = convert(vmi({"cpu": {"model": "Skylake-Server", "cores": 4, "dedicatedCpuPlacement": True,
                                 "realtime": {"mask": "1-3"}, "numa": {"guestMappingPassthrough": {}}},
                         "memory": {"guest": "4Gi", "hugepages": {"pageSize": "1Gi"}}}))[0]
    assert entry["cpu"]["mode"] == "custom" and entry["cpu"]["model"] == "Skylake-Server"
    assert entry["realtime"] == {"mask": "1-3"} and entry["cpus"] == "auto"


@pytest.mark.parametrize("manifest, message", [
    ({"kind": "Pod", "apiVersion": "v1"}, "kind='Pod': not a KubeVirt VirtualMachine"),
    (dict(vmi({}), apiVersion="v1"), "apiVersion='v1': not a KubeVirt API version"),
    (vmi({"cpu": {"cores": "two"}}), "spec.domain.cpu.cores='two': must be a whole number, 1 or more"),
    (vmi({"cpu": {"dedicatedCpuPlacement": True, "realtime": {}}}),
     "spec.domain.cpu.realtime={}: needs numa.guestMappingPassthrough (KubeVirt refuses it too)"),
    (vmi({"cpu": {"dedicatedCpuPlacement": True, "numa": {"guestMappingPassthrough": {}}}}),
     "spec.domain.cpu.numa.guestMappingPassthrough={}: needs memory.hugepages (KubeVirt refuses it too)"),
    (vmi({"cpu": {"cores": True}}), "spec.domain.cpu.cores=True: must be a whole number"),
    (vmi({"memory": {"guest": "lots"}}), "spec.domain.memory.guest='lots': not a Kubernetes quantity"),
    (vmi({"memory": {"guest": "4GB"}}), "spec.domain.memory.guest='4GB': not a Kubernetes quantity"),
    (vmi({"memory": {"guest": "-1Gi"}}), "spec.domain.memory.guest='-1Gi': is negative"),
    (vmi({"memory": {"guest": "0"}}), "spec.domain.memory.guest='0': the guest needs some memory"),
    (vmi({"memory": None, "resources": {"requests": {"cpu": "lots", "memory": "1Gi"}}}),
     "spec.domain.resources.requests.cpu='lots': not a Kubernetes quantity"),
    (vmi({"memory": {"guest": "1024M", "hugepages": {"pageSize": "2Mi"}}}),
     "spec.domain.memory.guest='1024M': is not a whole number of 2Mi pages (488.281 pages); KubeVirt refuses"),
    (vmi({"memory": {"guest": "1Mi", "hugepages": {"pageSize": "2Mi"}}}),
     "spec.domain.memory.guest='1Mi': is not a whole number of 2Mi pages (fewer than one page)"),
    (vmi({"memory": {"guest": "2Gi", "hugepages": {"pageSize": "1Gi"}},
          "resources": {"requests": {"memory": "2500Mi"}}}),
     "spec.domain.resources.requests.memory='2500Mi': is not a whole number of 1Gi pages (2.441 pages)"),
    (vmi({"memory": {"guest": "1536Mi", "hugepages": {"pageSize": "1Gi"}},
          "resources": {"requests": {"memory": "2Gi"}}}),
     "spec.domain.memory.guest='1536Mi': is not a whole number of 1Gi pages (1.5 pages)"),
    (vmi({"memory": {"guest": "1Gi", "hugepages": {"pageSize": "4Ki"}}}),
     "spec.domain.memory.hugepages.pageSize='4Ki': KubeVirt pages are 2Mi or 1Gi"),
    (vmi({"memory": {}}), "spec.domain.memory.guest=None: the manifest gives no memory size"),
    (vmi({"cpu": {"realtime": {}}}), "spec.domain.cpu.realtime={}: needs dedicatedCpuPlacement: true"),
    (vmi({"cpu": {"isolateEmulatorThread": True}}), "spec.domain.cpu.isolateEmulatorThread=True: needs"),
    (vmi({"cpu": {"numa": {"guestMappingPassthrough": {}}}}), "spec.domain.cpu.numa.guestMappingPassthrough={}: needs dedicatedCpu"),
    (vmi({"cpu": {"dedicatedCpuPlacement": "yes"}}), "spec.domain.cpu.dedicatedCpuPlacement='yes': must be true"),
    (vmi({"devices": {"disks": [{"name": "x", "disk": {}}]}}), "spec.domain.devices.disks[0].name='x': no volume"),
    (vmi({"devices": {"disks": "vda"}}), "spec.domain.devices.disks='vda': must be a list"),
    (vmi({"ioThreadsPolicy": "supplementalPool"}), "spec.domain.ioThreadsPolicy='supplementalPool'"),
    (vmi({"devices": {"hostDevices": [{"name": "x"}]}}), "spec.domain.devices.hostDevices[0].deviceName=None: every host device"),
    (dict(SEED, spec={"runStrategy": "Sometimes", "template": SEED["spec"]["template"]}),
     "spec.runStrategy='Sometimes': not a KubeVirt run strategy"),
])
def test_bad_manifests_are_refused_naming_the_field(manifest, message):
    with pytest.raises(OptionError) as error:
        convert(manifest)
    assert str(error.value).startswith(message)
    assert "Fix:" in str(error.value)


def test_the_filter_names_the_manifest_of_a_list_that_fails():
    with pytest.raises(AnsibleFilterError) as error:
        kubevirt_vm_to_rt_domain([SEED, vmi({"cpu": {"cores": 0}})])
    assert str(error.value).startswith("kubevirt_vm_to_rt_domain: manifest 1: spec.domain.cpu.cores=0")
    with pytest.raises(AnsibleFilterError):
        kubevirt_vm_to_rt_domain(SEED, unmapped="quietly")


@pytest.mark.parametrize("guest, size", [
    ("1024M", {"memory_kib": 1000000}),          # 1,024,000,000 bytes: exactly 1,000,000 KiB
    ("1e9", {"memory_kib": 976563}),             # 976,562.5 KiB: rounded up, never less than asked
    ("2E6", {"memory_kib": 1954}),              # 1,953.125 KiB, rounded up
    ("1.5Gi", {"memory_mib": 1536}),
    ("4Gi", {"memory_mib": 4096}),
    ("1G", {"memory_kib": 976563}),
    ("1025", {"memory_kib": 2}),                 # bytes beyond a whole KiB take one more KiB
    (2147483648, {"memory_mib": 2048}),          # an unquoted YAML number is bytes
])
def test_memory_sizes_are_kept_exactly_in_kib(guest, size):
    entry = convert(vmi({"memory": {"guest": guest}}))[0]
    assert dict((key, entry[key]) for key in ("memory_mib", "memory_kib") if key in entry) == size


def test_memory_comes_from_the_request_before_the_limit_as_kubevirt_picks_it():
    """KubeVirt's GetVirtualMemory: memory.guest, else the limit only when no request is set, else the request."""
    both = {"memory": None, "resources": {"requests": {"memory": "1Gi"}, "limits": {"memory": "2Gi"}}}
    assert convert(vmi(both))[0]["memory_mib"] == 1024
    limit = {"memory": None, "resources": {"limits": {"memory": "2Gi", "cpu": "1500m"}, "requests": {"cpu": "4"}}}
    entry = convert(vmi(limit))[0]
    assert entry["memory_mib"] == 2048 and entry["vcpus"] == 2   # the CPU limit before the request, rounded up


def test_hugepages_in_whole_pages_convert_in_any_quantity_form():
    entry = convert(vmi({"memory": {"guest": "2048Mi", "hugepages": {"pageSize": "1Gi"}}}))[0]
    assert entry["memory"] == {"hugepages": {"page_size": "1G"}} and entry["memory_mib"] == 2048
    entry = convert(vmi({"memory": {"guest": "1000Mi", "hugepages": {"pageSize": "2048Ki"}}}))[0]
    assert entry["memory"] == {"hugepages": {"page_size": "2M"}} and entry["memory_mib"] == 1000


def test_a_dra_claimed_gpu_is_named_not_refused():
    domain = {"devices": {"gpus": [{"name": "g", "claimName": "pgpu-claim", "requestName": "pgpu"}]}}
    assert convert(vmi(domain))[1] == [
        "spec.domain.devices.gpus[0].claimName (pgpu-claim): a Dynamic Resource Allocation claim; give the device's "
        "PCI address instead"]


def test_a_volume_without_a_disk_gets_kubevirts_default_disk():
    """KubeVirt's SetDefaultVolumeDisk gives a volume with no disk a disk of its name; so does the filter."""
    entry, unmapped = convert(vmi({}, volumes=[{"name": "cd", "containerDisk": {"image": "x"}},
                                               {"name": "h", "hostDisk": {"path": "/var/lib/h.img"}}]))
    assert entry["disks"] == [{"path": "/var/lib/h.img", "bus": "virtio", "device": "disk"}]
    assert unmapped == ["spec.volumes[0] (cd): a containerDisk volume; libvirt_rt_domain takes host files only "
                        "(hostDisk)"]
