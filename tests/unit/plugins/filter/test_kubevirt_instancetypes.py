# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kubevirt_vm_to_rt_domain with instance types and preferences, as KubeVirt applies them.

The instance types and preferences are KubeVirt's common-instancetypes
bundles (tests/unit/fixtures/kubevirt_instancetypes/README.md). The sizes a
test expects are the bundle's figures written out here as literals
(rt1.xlarge: 4 vCPUs, 16Gi in 1Gi pages, real-time; rhel.9.realtime: spread
over sockets, cores and threads, ratio 2), and the topology KubeVirt gives
them is worked out by hand from KubeVirt's rule (apply/cpu.go).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.kubevirt import kubevirt_vm_to_rt_domain

TYPES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "fixtures",
                     "kubevirt_instancetypes")


def bundle(*names):
    found = []
    for name in names:
        with open(os.path.join(TYPES, name)) as handle:
            found += [doc for doc in yaml.safe_load_all(handle) if doc]
    return found


COMMON = bundle("common-clusterinstancetypes-bundle.yaml", "common-clusterpreferences-bundle.yaml")


def vm(instancetype=None, preference=None, domain=None, namespace=None, **spec):
    body = {"runStrategy": "Always", "template": {"spec": {
        "domain": domain if domain is not None else {"devices": {"disks": [{"name": "root"}]}},
        "volumes": [{"name": "root", "hostDisk": {"path": "/var/lib/rt/root.img", "type": "Disk"}}]}}}
    if instancetype:
        body["instancetype"] = instancetype if isinstance(instancetype, dict) else {"name": instancetype}
    if preference:
        body["preference"] = preference if isinstance(preference, dict) else {"name": preference}
    body.update(spec)
    metadata = {"name": "rt-vm"}
    if namespace:
        metadata["namespace"] = namespace
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": metadata, "spec": body}


@pytest.fixture
def warnings(monkeypatch):
    said = []
    monkeypatch.setattr("ansible.utils.display.Display.warning", lambda self, msg, *a, **k: said.append(msg))
    return said


def refused(manifest, instancetypes=None):
    with pytest.raises(AnsibleFilterError) as error:
        kubevirt_vm_to_rt_domain(manifest, instancetypes=COMMON if instancetypes is None else instancetypes)
    assert "Fix: " in str(error.value)
    return str(error.value)


def test_a_real_time_instancetype_and_preference_give_the_domain_kubevirt_would_run(warnings):
    entry = kubevirt_vm_to_rt_domain(vm("rt1.xlarge", "rhel.9.realtime"), instancetypes=COMMON)[0]
    # rt1.xlarge: 4 vCPUs on dedicated CPUs, emulator isolated, real-time, guest NUMA passthrough, 16Gi in 1Gi pages;
    # rhel.9.realtime spreads 4 vCPUs over sockets, cores (ratio 2) and 2 threads: 1 socket x 2 cores x 2 threads
    assert entry["vcpus"] == 4
    assert entry["cpu"]["topology"] == {"sockets": 1, "cores": 2, "threads": 2}
    assert (entry["cpus"], entry["emulator"], entry["realtime"]) == ("auto", "isolate", {})
    assert entry["cpu"]["numa"] == {"passthrough": True}
    assert entry["memory_mib"] == 16384 and entry["memory"] == {"hugepages": {"page_size": "1G"}}
    # the preference's devices: virtio disk with its own IO thread, an rng, the serial console
    assert entry["disks"] == [{"path": "/var/lib/rt/root.img", "bus": "virtio", "device": "disk", "iothread": 1}]
    assert entry["iothreads"] == 1 and entry["rng"] == {}
    assert entry["serial_log"] == "/var/log/libvirt/qemu/rt-vm-serial.log"
    # what was not applied is named: the CRI-O annotations, the firmware and SMM preferences
    assert len(warnings) == 1
    for said in ("VirtualMachineClusterInstancetype rt1.xlarge: annotations (cpu-load-balancing.crio.io",
                 "VirtualMachineClusterPreference rhel.9.realtime: firmware: libvirt_rt_domain has no such setting",
                 "rhel.9.realtime: devices.preferredNetworkInterfaceMultiQueue"):
        assert said in warnings[0], said


def test_a_general_purpose_instancetype_with_the_fedora_preference(warnings):
    entry = kubevirt_vm_to_rt_domain(vm("u1.medium", "fedora"), instancetypes=COMMON)[0]
    assert entry["vcpus"] == 1 and entry["memory_mib"] == 4096  # u1.medium: 1 vCPU, 4Gi
    assert "cpus" not in entry and "realtime" not in entry and entry["rng"] == {}


@pytest.mark.parametrize("topology, guest, shape", [
    ({}, 4, {"sockets": 4, "cores": 1, "threads": 1}),  # KubeVirt's default: sockets
    ({"preferredCPUTopology": "cores"}, 4, {"sockets": 1, "cores": 4, "threads": 1}),
    ({"preferredCPUTopology": "preferThreads"}, 4, {"sockets": 1, "cores": 1, "threads": 4}),
    ({"preferredCPUTopology": "spread"}, 8, {"sockets": 4, "cores": 2, "threads": 1}),
    ({"preferredCPUTopology": "spread", "spreadOptions": {"ratio": 4}}, 8, {"sockets": 2, "cores": 4, "threads": 1}),
    ({"preferredCPUTopology": "spread", "spreadOptions": {"across": "CoresThreads"}}, 8,
     {"sockets": 1, "cores": 4, "threads": 2}),
    ({"preferredCPUTopology": "spread", "spreadOptions": {"across": "SocketsCoresThreads", "ratio": 4}}, 16,
     {"sockets": 2, "cores": 4, "threads": 2}),
])
def test_the_preferred_topology_shapes_the_vcpus(topology, guest, shape, warnings):
    types = [{"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineClusterInstancetype",
              "metadata": {"name": "t"}, "spec": {"cpu": {"guest": guest}, "memory": {"guest": "1Gi"}}},
             {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineClusterPreference",
              "metadata": {"name": "p"}, "spec": {"cpu": topology}}]
    entry = kubevirt_vm_to_rt_domain(vm("t", "p"), instancetypes=types)[0]
    assert entry["cpu"]["topology"] == shape and entry["vcpus"] == guest


def test_namespaced_kinds_are_found_in_the_vms_namespace_in_any_spelling(warnings):
    namespaced = [{"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineInstancetype",
                   "metadata": {"name": "small", "namespace": "rt"}, "spec": {"cpu": {"guest": 2},
                                                                              "memory": {"guest": "2Gi"}}}]
    wanted = {"name": "small", "kind": "virtualmachineinstancetypes"}
    assert kubevirt_vm_to_rt_domain(vm(wanted, namespace="rt"), instancetypes=namespaced)[0]["vcpus"] == 2
    message = refused(vm(wanted), namespaced)
    assert "spec.instancetype.name='small': no VirtualMachineInstancetype of that name in namespace default" in message


def test_a_missing_instancetype_is_named(warnings):
    message = refused(vm("rt9.huge"))
    assert "spec.instancetype.name='rt9.huge': no VirtualMachineClusterInstancetype of that name" in message
    assert "pass its manifest in instancetypes" in message
    assert "spec.instancetype.name='rt1.large'" in refused(vm("rt1.large"), instancetypes=[])


@pytest.mark.parametrize("domain, fields", [
    ({"cpu": {"cores": 2}}, "spec.template.spec.domain.cpu.cores"),
    ({"cpu": {"sockets": 1, "realtime": {}}}, "spec.template.spec.domain.cpu.sockets, "
                                              "spec.template.spec.domain.cpu.realtime"),
    ({"memory": {"guest": "1Gi"}}, "spec.template.spec.domain.memory.guest"),
    ({"resources": {"requests": {"memory": "1Gi", "cpu": "2"}}},
     "spec.template.spec.domain.resources.requests.cpu, spec.template.spec.domain.resources.requests.memory"),
])
def test_fields_the_instancetype_sets_too_are_refused_as_kubevirt_refuses_them(domain, fields, warnings):
    message = refused(vm("rt1.xlarge", domain=domain))
    assert "VM field(s) %s conflicts with selected instance type" % fields in message


def test_what_both_may_set_is_no_conflict_when_the_vm_leaves_it_unset(warnings):
    domain = {"cpu": {"dedicatedCpuPlacement": True, "model": "host-passthrough"}}
    entry = kubevirt_vm_to_rt_domain(vm("u1.medium", domain=domain), instancetypes=COMMON)[0]
    assert entry["cpus"] == "auto" and entry["cpu"]["mode"] == "host-passthrough"


def test_kubevirts_own_examples_that_set_memory_beside_an_instancetype_are_refused_as_kubevirt_refuses_them():
    with open(os.path.join(os.path.dirname(TYPES), "kubevirt_examples", "vm-cirros-clarge.yaml")) as handle:
        example = yaml.safe_load(handle)
    message = refused(example, bundle("clarge.yaml"))
    assert "spec.instancetype='VirtualMachineInstancetype clarge': VM field(s) " \
           "spec.template.spec.domain.memory.guest conflicts with selected instance type" in message
    fixed = copy.deepcopy(example)
    del fixed["spec"]["template"]["spec"]["domain"]["memory"]
    entry = kubevirt_vm_to_rt_domain(fixed, instancetypes=bundle("clarge.yaml"), unmapped="ignore")[0]
    assert (entry["vcpus"], entry["memory_mib"]) == (4, 2048)  # clarge: 4 vCPUs, 2Gi


def test_a_preference_the_instancetype_does_not_meet_is_refused(warnings):
    # rhel.9.realtime requires 4 vCPUs; rt1.large gives 2
    assert "insufficient CPU resources of 2 vCPU provided by instance type, preference requires 4 vCPU" in refused(
        vm("rt1.large", "rhel.9.realtime"))
    # fedora requires 2Gi; an instancetype of 1Gi, written here
    small = [{"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineClusterInstancetype",
              "metadata": {"name": "tiny"}, "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}}]
    assert "insufficient Memory resources of 1Gi provided by instance type, preference requires 2Gi" in refused(
        vm("tiny", "fedora"), small + COMMON)


def test_a_spread_the_vcpus_do_not_divide_is_refused(warnings):
    types = [{"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineClusterInstancetype",
              "metadata": {"name": "six"}, "spec": {"cpu": {"guest": 6}, "memory": {"guest": "8Gi"}}}]
    message = refused(vm("six", "rhel.9.realtime"), types + COMMON)
    assert "6 vCPUs provided by the instance type are not divisible" in message


@pytest.mark.parametrize("instancetypes, message", [
    ("u1.medium", "instancetypes='u1.medium': must be a list of manifests"),
    ([{"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine"}],
     "instancetypes[0].kind='VirtualMachine': not a KubeVirt instancetype or preference"),
])
def test_bad_instancetypes_are_refused_naming_the_option(instancetypes, message):
    assert message in refused(vm("u1.medium"), instancetypes)


def test_a_matcher_of_the_wrong_kind_is_refused(warnings):
    assert "spec.instancetype.kind='VirtualMachineClusterPreference': got unexpected kind" in refused(
        vm({"name": "fedora", "kind": "VirtualMachineClusterPreference"}))
