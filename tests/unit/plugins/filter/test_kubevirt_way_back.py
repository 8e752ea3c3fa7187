# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""rt_domain_to_kubevirt_vm: the manifests KubeVirt's schema takes, and the round trip that keeps real-time.

The schema is KubeVirt's published OpenAPI document (its VirtualMachine
definitions, tests/unit/fixtures/kubevirt_openapi), read by jsonschema. The
OpenAPI document leaves every object open to unknown fields; the test closes
each one that lists its properties, as a strict API server would, so a
misspelt field fails. The round trip reads the real-time fields of the
manifest before and after with the test's own reader.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json
import os
import re
from fractions import Fraction

import pytest
import yaml
from jsonschema import Draft4Validator

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.kubevirt import (kubevirt_vm_to_rt_domain,
                                                                       rt_domain_to_kubevirt_vm)

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "fixtures")
CORPUS = os.path.join(FIXTURES, "kubevirt_examples")
with open(os.path.join(FIXTURES, "kubevirt_openapi", "swagger-virtualmachine.json")) as _handle:
    SWAGGER = json.load(_handle)

# The test's own quantity reader (Kubernetes' suffixes, written out here)
FACTOR = {"": 1, "k": 10 ** 3, "M": 10 ** 6, "G": 10 ** 9, "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30}
SIZE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(?:[eE]([0-9]+))?(Ki|Mi|Gi|k|M|G)?$")

REALTIME_VM = {
    "apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "rt-vm"},
    "spec": {"runStrategy": "Always", "template": {"spec": {
        "domain": {
            "cpu": {"sockets": 1, "cores": 4, "threads": 1, "dedicatedCpuPlacement": True,
                    "isolateEmulatorThread": True, "model": "host-passthrough",
                    "features": [{"name": "tsc-deadline", "policy": "require"}],
                    "numa": {"guestMappingPassthrough": {}}, "realtime": {"mask": "1-3"}},
            "memory": {"guest": "4Gi", "hugepages": {"pageSize": "1Gi"}},
            "devices": {"rng": {}, "autoattachSerialConsole": True,
                        "disks": [{"name": "root", "disk": {"bus": "virtio"}, "dedicatedIOThread": True}],
                        "hostDevices": [{"name": "qat0", "deviceName": "qat.intel.com/generic"},
                                        {"name": "qat1", "deviceName": "qat.intel.com/generic"}]}},
        "volumes": [{"name": "root", "hostDisk": {"path": "/var/lib/rt/rt-vm.img", "type": "Disk"}}]}}}}


def number(text):
    match = SIZE.match(str(text))
    assert match, "the test's reader does not know %r" % (text,)
    value = Fraction(match.group(1)) * FACTOR[match.group(3) or ""]
    return value * 10 ** int(match.group(2)) if match.group(2) else value


def strict(definitions):
    """Every object that lists its properties closed to others (OpenAPI leaves them open)."""
    closed = copy.deepcopy(definitions)
    for schema in closed.values():
        if schema.get("type") == "object" and "properties" in schema and "additionalProperties" not in schema:
            schema["additionalProperties"] = False
    return closed


VALIDATOR = Draft4Validator({"$ref": "#/definitions/v1.VirtualMachine", "definitions": strict(SWAGGER["definitions"])})


def schema_errors(manifest):
    return sorted("/".join(str(part) for part in error.absolute_path) + ": " + error.message
                  for error in VALIDATOR.iter_errors(manifest))


def realtime_fields(manifest):
    """What a real-time VM needs of a VirtualMachine(Instance), read by the test itself."""
    spec = manifest["spec"]["template"]["spec"] if manifest["kind"] == "VirtualMachine" else manifest["spec"]
    domain = spec["domain"]
    cpu, memory, devices = domain.get("cpu") or {}, domain.get("memory") or {}, domain.get("devices") or {}
    hugepages = (memory.get("hugepages") or {}).get("pageSize")
    return {
        "vcpus": (cpu.get("sockets") or 1) * (cpu.get("cores") or 1) * (cpu.get("threads") or 1),
        "dedicatedCpuPlacement": bool(cpu.get("dedicatedCpuPlacement")),
        "isolateEmulatorThread": bool(cpu.get("isolateEmulatorThread")),
        "realtime": cpu.get("realtime"),
        "numa": "guestMappingPassthrough" in (cpu.get("numa") or {}),
        "model": cpu.get("model"),
        "features": cpu.get("features") or [],
        "memory_kib": -(-number(memory["guest"]) // 1024) if memory.get("guest") else None,
        "page_bytes": number(hugepages) if hugepages else None,
        "qat": sum(1 for device in devices.get("hostDevices") or []
                   if device["deviceName"].startswith("qat.intel.com/")),
    }


def load(name):
    with open(os.path.join(CORPUS, name)) as handle:
        return yaml.safe_load(handle)


@pytest.fixture
def warnings(monkeypatch):
    said = []
    monkeypatch.setattr("ansible.utils.display.Display.warning", lambda self, msg, *a, **k: said.append(msg))
    return said


def test_an_entry_becomes_this_manifest(warnings):
    entry = {"name": "rt-a", "vcpus": 2, "cpus": "auto", "emulator": "isolate", "memory_kib": 1000000,
             "memory": {"hugepages": {"page_size": "2M"}}, "realtime": {"mask": "1"}, "qat_vfs": 1,
             "cpu": {"mode": "host-passthrough", "numa": {"passthrough": True}}, "state": "stopped"}
    assert rt_domain_to_kubevirt_vm(entry, namespace="rt") == [{
        "apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "rt-a", "namespace": "rt"},
        "spec": {"runStrategy": "Halted", "template": {"spec": {"domain": {
            "cpu": {"cores": 2, "model": "host-passthrough", "dedicatedCpuPlacement": True,
                    "isolateEmulatorThread": True, "realtime": {"mask": "1"},
                    "numa": {"guestMappingPassthrough": {}}},
            "memory": {"guest": "1000000Ki", "hugepages": {"pageSize": "2Mi"}},
            "devices": {"hostDevices": [{"name": "qat0", "deviceName": "qat.intel.com/generic"}]}}}}}}]
    assert warnings == []


def test_kubevirts_schema_takes_the_manifests_and_catches_a_misspelt_field(warnings):
    entry = kubevirt_vm_to_rt_domain(REALTIME_VM)[0]
    manifest = rt_domain_to_kubevirt_vm(entry)[0]
    assert schema_errors(manifest) == []
    manifest["spec"]["template"]["spec"]["domain"]["cpu"]["dedicatedCPUPlacement"] = True
    assert schema_errors(manifest) == ["spec/template/spec/domain/cpu: Additional properties are not allowed "
                                       "('dedicatedCPUPlacement' was unexpected)"]


def test_the_round_trip_keeps_every_real_time_field(warnings):
    entry = kubevirt_vm_to_rt_domain(REALTIME_VM)[0]
    back = rt_domain_to_kubevirt_vm(entry)[0]
    assert realtime_fields(back) == realtime_fields(REALTIME_VM) == {
        "vcpus": 4, "dedicatedCpuPlacement": True, "isolateEmulatorThread": True, "realtime": {"mask": "1-3"},
        "numa": True, "model": "host-passthrough", "features": [{"name": "tsc-deadline", "policy": "require"}],
        "memory_kib": 4194304, "page_bytes": 2 ** 30, "qat": 2}
    volumes = back["spec"]["template"]["spec"]["volumes"]
    disks = back["spec"]["template"]["spec"]["domain"]["devices"]["disks"]
    assert [v["hostDisk"]["path"] for v in volumes] == ["/var/lib/rt/rt-vm.img"]
    assert disks[0]["dedicatedIOThread"] is True and disks[0]["disk"] == {"bus": "virtio"}
    assert back["spec"]["runStrategy"] == "Always"


@pytest.mark.parametrize("name", sorted(name for name in os.listdir(CORPUS) if name.endswith(".yaml")))
def test_each_example_goes_there_and_back(name, warnings):
    """KubeVirt's examples, converted and written back: the schema takes them and the CPU and memory hold."""
    manifest = load(name)
    try:
        entries = kubevirt_vm_to_rt_domain(manifest, unmapped="ignore", instancetypes=example_instancetypes())
    except AnsibleFilterError as error:  # the examples that set memory.guest beside an instancetype
        assert "spec.template.spec.domain.memory.guest conflicts with selected instance type" in str(error)
        return
    back = rt_domain_to_kubevirt_vm(entries)[0]
    assert schema_errors(back) == []
    before, after = realtime_fields(manifest), realtime_fields(back)
    if before["memory_kib"] is None:  # sized by resources, which the test's reader leaves to test_kubevirt_examples
        before["memory_kib"] = after["memory_kib"]
    if not any(manifest_cpu(manifest).get(key) for key in ("sockets", "cores", "threads")):
        before["vcpus"] = after["vcpus"]  # counted from resources; test_kubevirt_examples checks that count
    assert after == before


def example_instancetypes():
    found = []
    for name in ("clarge.yaml", "cluster-csmall.yaml", "csmall.yaml", "virtio.yaml", "windows.yaml"):
        with open(os.path.join(FIXTURES, "kubevirt_instancetypes", name)) as handle:
            found += [doc for doc in yaml.safe_load_all(handle) if doc]
    return found


def manifest_cpu(manifest):
    spec = manifest["spec"]["template"]["spec"] if manifest["kind"] == "VirtualMachine" else manifest["spec"]
    return spec["domain"].get("cpu") or {}


def test_what_kubevirt_has_no_form_for_is_named_by_option_path(warnings):
    entry = {"name": "rt-b", "vcpus": 2, "cpus": "2-3", "memory_mib": 1024, "domain_type": "qemu",
             "interfaces": [{"bridge": "br0"}], "hostdevs": ["0000:6b:00.1"], "cachetune": [{"vcpus": "0"}],
             "disks": [{"path": "/i.qcow2", "format": "qcow2"}], "emulator": "share"}
    manifest = rt_domain_to_kubevirt_vm(entry)[0]
    assert schema_errors(manifest) == []
    assert len(warnings) == 1
    for path in ("rt_domain_domains.cpus (2-3)", "rt_domain_domains.domain_type", "rt_domain_domains.interfaces",
                 "rt_domain_domains.hostdevs", "rt_domain_domains.cachetune", "rt_domain_domains.disks[0].format",
                 "rt_domain_domains.emulator"):
        assert path in warnings[0], path
    with pytest.raises(AnsibleFilterError) as error:
        rt_domain_to_kubevirt_vm([entry], unmapped="fail")
    assert str(error.value).startswith("rt_domain_to_kubevirt_vm: KubeVirt has no form for these options: "
                                       "rt_domain_domains[0].cpus (2-3)")
    assert "rt_domain_domains[0].cachetune: KubeVirt has no cache allocation" in str(error.value)


@pytest.mark.parametrize("change, message", [
    ({"name": "RT_vm"}, "rt_domain_domains.name='RT_vm': a KubeVirt VM's name must be a DNS label"),
    ({"realtime": {}, "cpus": None}, "rt_domain_domains.realtime={}: KubeVirt takes realtime only with dedicated CPUs"),
    ({"cpu": {}}, "rt_domain_domains.realtime={}: KubeVirt takes realtime only with guestMappingPassthrough"),
    ({"memory": {}}, "rt_domain_domains.cpu.numa.passthrough=True: KubeVirt maps guest NUMA only for hugepage"),
    ({"emulator": "isolate", "cpus": None, "realtime": None, "cpu": {}, "memory": {}},
     "rt_domain_domains.emulator='isolate': KubeVirt isolates the emulator thread only beside dedicated vCPUs"),
    ({"state": "absent"}, "rt_domain_domains.state='absent': has no KubeVirt run strategy"),
    ({"memory": {"hugepages": {"page_size": "16M"}}}, "rt_domain_domains.memory.hugepages.page_size='16M': KubeVirt"),
    ({"memory_mib": None}, "rt_domain_domains.memory_mib=None: a KubeVirt VM needs a memory size"),
    ({"cpu": {"topology": {"sockets": 2, "cores": 2}, "numa": {"passthrough": True}}},
     "sockets x cores x threads is not vcpus=2"),
])
def test_an_entry_kubevirt_would_refuse_fails_naming_the_option(change, message):
    entry = {"name": "rt-c", "vcpus": 2, "cpus": "auto", "memory_mib": 2048, "realtime": {},
             "cpu": {"numa": {"passthrough": True}}, "memory": {"hugepages": {"page_size": "1G"}}}
    entry.update(change)
    with pytest.raises(AnsibleFilterError) as error:
        rt_domain_to_kubevirt_vm(entry)
    assert message in str(error.value)
    assert "Fix: " in str(error.value)


@pytest.mark.parametrize("option, value", [("unmapped", "loud"), ("namespace", 3), ("qat_resource", "qat")])
def test_bad_filter_options_name_the_option(option, value):
    with pytest.raises(AnsibleFilterError) as error:
        rt_domain_to_kubevirt_vm({"name": "a", "memory_mib": 64}, **{option: value})
    assert "%s=%r" % (option, value) in str(error.value) and "Fix: " in str(error.value)


@pytest.mark.ansible_package
def test_kubevirt_core_kubevirt_vm_takes_the_manifest(warnings):
    """The manifest's parts are kubevirt.core.kubevirt_vm's options, and the VM it would apply is the manifest."""
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
    from ansible_collections.kubevirt.core.plugins.modules import kubevirt_vm

    manifest = rt_domain_to_kubevirt_vm(kubevirt_vm_to_rt_domain(REALTIME_VM)[0], namespace="rt")[0]
    # the rules kubevirt_vm's main() gives its module beside arg_spec() (written inline there, so restated here)
    validator = ArgumentSpecValidator(
        kubevirt_vm.arg_spec(), mutually_exclusive=[("name", "generate_name"), ("running", "run_strategy")],
        required_one_of=[("name", "generate_name")])
    assert set(manifest["spec"]) == {"runStrategy", "template"}
    result = validator.validate({"name": manifest["metadata"]["name"], "namespace": manifest["metadata"]["namespace"],
                                 "run_strategy": manifest["spec"]["runStrategy"],
                                 "spec": manifest["spec"]["template"]["spec"]})
    assert result.error_messages == []
    sent = kubevirt_vm.create_vm(result.validated_parameters)

    def plain(node):
        if isinstance(node, dict):
            return dict((key, plain(value)) for key, value in node.items() if value is not None)
        return [plain(value) for value in node] if isinstance(node, list) else node

    assert plain(sent["spec"]["template"]["spec"]) == manifest["spec"]["template"]["spec"]
    assert sent["spec"]["runStrategy"] == "Always" and sent["metadata"]["namespace"] == "rt"
    assert schema_errors(plain(sent)) == []


@pytest.mark.parametrize("cpu, isolated, note", [
    ({"emulator_policy": "isolate", "emulator_cpuset": "5"}, True, "cpu.emulator_cpuset: KubeVirt picks the emulator's CPU"),
    ({"emulator_cpuset": "5"}, True, "cpu.emulator_cpuset: KubeVirt picks the emulator's CPU"),
    ({"emulator_policy": "cpuset", "emulator_cpuset": "5"}, True, "cpu.emulator_cpuset: KubeVirt picks the emulator's CPU"),
    ({"emulator_policy": "housekeeping", "emulator_cpuset": "0"}, False,
     "cpu.emulator_cpuset: KubeVirt runs a housekeeping emulator on the pod's shared CPUs"),
])
def test_the_emulator_policy_words_cross_as_kubevirt_reads_them(cpu, isolated, note, warnings):
    entry = {"name": "rt-e", "vcpus": 2, "cpus": "auto", "memory_mib": 1024, "cpu": cpu}
    manifest = rt_domain_to_kubevirt_vm(entry)[0]
    assert schema_errors(manifest) == []
    assert bool(manifest_cpu(manifest).get("isolateEmulatorThread")) is isolated
    assert len(warnings) == 1 and note in warnings[0]
