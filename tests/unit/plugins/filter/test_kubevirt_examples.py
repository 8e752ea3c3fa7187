# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""KubeVirt's own example manifests through kubevirt_vm_to_rt_domain, as a user sends them.

The corpus is every VirtualMachine and VirtualMachineInstance of KubeVirt's
examples/ directory (tests/unit/fixtures/kubevirt_examples/README.md). Each
goes through the filter with the default ``unmapped=warn``: it converts, and
the warning names by path what plain libvirt cannot take, or it fails for a
reason the filter's documentation lists.

What the test expects it works out from each manifest with its own small
table and parser, never with the code under test: vCPUs are sockets x cores
x threads (KubeVirt's default 1 for each), else the CPU limit or request
rounded up; memory is memory.guest, else the limit when no request is set,
else the request, in bytes, rounded up to whole KiB.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
from fractions import Fraction

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.kubevirt import kubevirt_vm_to_rt_domain

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
CORPUS = os.path.join(TOP, "tests", "unit", "fixtures", "kubevirt_examples")
DOC = os.path.join(TOP, "plugins", "filter", "kubevirt_vm_to_rt_domain.yml")
FILES = sorted(name for name in os.listdir(CORPUS) if name.endswith(".yaml"))
# The instance types and preferences of the same examples/ directory (tests/unit/fixtures/kubevirt_instancetypes)
TYPES = os.path.join(os.path.dirname(CORPUS), "kubevirt_instancetypes")
EXAMPLE_TYPES = ("clarge.yaml", "cluster-csmall.yaml", "csmall.yaml", "virtio.yaml", "windows.yaml")

# The test's own reading of the quantities the corpus uses (Kubernetes' suffixes, written out here).
FACTOR = {"": 1, "k": 1000, "M": 1000 ** 2, "G": 1000 ** 3, "T": 1000 ** 4,
          "Ki": 1024, "Mi": 1024 ** 2, "Gi": 1024 ** 3, "Ti": 1024 ** 4, "m": Fraction(1, 1000)}
SIZE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(?:[eE]([0-9]+))?(Ki|Mi|Gi|Ti|k|M|G|T|m)?$")

# What the filter maps at each level; anything else the manifest holds there must be named.
VM_SPEC = ("running", "runStrategy", "template", "instancetype", "preference")
VMI_SPEC = ("domain", "volumes", "networks")
DOMAIN = ("cpu", "memory", "resources", "devices", "machine", "features", "ioThreadsPolicy")
PCI = re.compile(r"^([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")


def number(text):
    match = SIZE.match(str(text))
    assert match, "the test's parser does not know %r; extend it" % (text,)
    value = Fraction(match.group(1)) * FACTOR[match.group(3) or ""]
    return value * 10 ** int(match.group(2)) if match.group(2) else value


def instancetypes():
    """Every instancetype and preference manifest of the examples, as a user passes them."""
    found = []
    for name in EXAMPLE_TYPES:
        with open(os.path.join(TYPES, name)) as handle:
            found += [doc for doc in yaml.safe_load_all(handle) if doc]
    return found


def sizes_of_instancetype(manifest):
    """(vCPUs, memory quantity) of the instancetype a VM names: KubeVirt's default topology puts every vCPU in a
    socket of its own, so the count is cpu.guest whatever the shape."""
    wanted = manifest["spec"]["instancetype"]
    kind = wanted.get("kind") or "VirtualMachineClusterInstancetype"
    for found in instancetypes():
        if found["kind"] == kind and found["metadata"]["name"] == wanted["name"]:
            return found["spec"]["cpu"]["guest"], found["spec"]["memory"]["guest"]
    raise AssertionError("the examples hold no %s %s" % (kind, wanted["name"]))


def up(value):
    return -(-value // 1)


def load(name):
    with open(os.path.join(CORPUS, name)) as handle:
        return yaml.safe_load(handle)


def vmi_spec(manifest):
    if manifest["kind"] == "VirtualMachine":
        return "spec.template.spec", manifest["spec"]["template"]["spec"]
    return "spec", manifest["spec"]


def expected(manifest):
    """(vCPUs, memory KiB, paths the warning must name), from the manifest alone."""
    prefix, spec = vmi_spec(manifest)
    domain = spec["domain"]
    cpu, memory = domain.get("cpu") or {}, domain.get("memory") or {}
    resources = domain.get("resources") or {}
    limits, requests = resources.get("limits") or {}, resources.get("requests") or {}
    if any(cpu.get(key) for key in ("sockets", "cores", "threads")):
        vcpus = (cpu.get("sockets") or 1) * (cpu.get("cores") or 1) * (cpu.get("threads") or 1)
    elif "cpu" in limits or "cpu" in requests:
        vcpus = max(1, up(number(limits.get("cpu", requests.get("cpu")))))
    else:
        vcpus = 1
    if manifest["kind"] == "VirtualMachine" and "instancetype" in manifest["spec"]:
        vcpus, size = sizes_of_instancetype(manifest)
    elif memory.get("guest") is not None:
        size = memory["guest"]
    elif "memory" in limits and "memory" not in requests:
        size = limits["memory"]
    else:
        size = requests["memory"]
    named = []
    if manifest["kind"] == "VirtualMachine":
        named += ["spec.%s" % key for key in manifest["spec"] if key not in VM_SPEC]
    named += ["%s.%s" % (prefix, key) for key in spec if key not in VMI_SPEC]
    named += ["%s.domain.%s" % (prefix, key) for key in domain if key not in DOMAIN]
    for index, volume in enumerate(spec.get("volumes") or []):
        if "hostDisk" not in volume:
            named.append("%s.volumes[%d] (%s)" % (prefix, index, volume["name"]))
    named += ["%s.networks[%d]" % (prefix, index) for index in range(len(spec.get("networks") or []))]
    devices = domain.get("devices") or {}
    named += ["%s.domain.devices.interfaces[%d]" % (prefix, index)
              for index in range(len(devices.get("interfaces") or []))]
    for key in ("hostDevices", "gpus"):
        for index, device in enumerate(devices.get(key) or []):
            name = device.get("deviceName", "")
            if not PCI.match(name) and not name.startswith("qat.intel.com/"):
                named.append("%s.domain.devices.%s[%d]" % (prefix, key, index))
    return vcpus, up(number(size) / 1024), named


def documented_reasons():
    with open(DOC) as handle:
        description = yaml.safe_load(handle)["DOCUMENTATION"]["description"]
    listed = [text for text in description if "for these reasons only" in text]
    assert len(listed) == 1
    return re.findall(r'"([^"]+)"', listed[0])


@pytest.fixture
def warnings(monkeypatch):
    said = []
    monkeypatch.setattr("ansible.utils.display.Display.warning", lambda self, msg, *a, **k: said.append(msg))
    return said


def test_the_corpus_is_every_vm_and_vmi_of_kubevirts_examples():
    assert len(FILES) == 34
    assert set(load(name)["kind"] for name in FILES) == {"VirtualMachine", "VirtualMachineInstance"}
    with open(os.path.join(CORPUS, "README.md")) as handle:
        readme = handle.read()
    assert "d923fdb815cd2016ddaebdaaa51db04133576d72" in readme and "Apache-2.0" in readme
    assert all("`%s`" % name in readme for name in FILES)


@pytest.mark.parametrize("name", FILES)
def test_each_example_converts_or_fails_for_a_documented_reason(name, warnings):
    manifest = load(name)
    try:
        entries = kubevirt_vm_to_rt_domain(manifest, instancetypes=instancetypes())
    except AnsibleFilterError as error:
        reasons = [reason for reason in documented_reasons() if reason in str(error)]
        assert reasons, "%s fails for a reason the documentation does not list: %s" % (name, error)
        return
    vcpus, kib, named = expected(manifest)
    entry = entries[0]
    assert entry["name"] == manifest["metadata"]["name"]
    assert entry["vcpus"] == vcpus
    size = {"memory_mib": kib // 1024} if kib % 1024 == 0 else {"memory_kib": kib}
    assert dict((key, entry[key]) for key in ("memory_mib", "memory_kib") if key in entry) == size
    if named:
        assert len(warnings) == 1
        for path in named:
            assert "%s: %s" % (entry["name"], path) in warnings[0], path
    else:
        assert warnings == []


def test_the_examples_the_issue_found_refused_now_convert(warnings):
    """vmi-fedora-isolated's 1024M: 1,024,000,000 bytes, exactly 1,000,000 KiB, on dedicated CPUs."""
    entry = kubevirt_vm_to_rt_domain(load("vmi-fedora-isolated.yaml"))[0]
    assert (entry["memory_kib"], entry["cpus"], entry["emulator"], entry["vcpus"]) == (1000000, "auto", "isolate", 1)
    assert "memory_mib" not in entry
    assert kubevirt_vm_to_rt_domain(load("vmi-sriov.yaml"))[0]["memory_kib"] == 1000000
    assert "spec.networks[1]: a Multus network" in warnings[-1]


def test_a_bad_quantity_still_fails_naming_its_path_and_value():
    manifest = load("vmi-fedora.yaml")
    manifest["spec"]["domain"]["memory"]["guest"] = "1024MB"
    with pytest.raises(AnsibleFilterError) as error:
        kubevirt_vm_to_rt_domain(manifest)
    assert "spec.domain.memory.guest='1024MB': not a Kubernetes quantity" in str(error.value)
    assert "not a Kubernetes quantity" in documented_reasons()


def test_the_test_parser_agrees_with_the_corpus_sizes():
    """The corpus holds decimal and binary sizes; the test's own table reads them (1024M is not 1024Mi)."""
    assert number("1024M") == 1024000000 and number("1024Mi") == 1073741824 and number("1e9") == 10 ** 9
    sizes = set()
    for name in FILES:
        memory = vmi_spec(load(name))[1]["domain"].get("memory") or {}
        sizes.add(str(memory.get("guest")))
    assert "1024M" in sizes and "128Mi" in sizes
