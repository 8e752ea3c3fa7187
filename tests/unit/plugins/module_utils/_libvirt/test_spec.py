# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Option checks of libvirt_rt_domain: every bad input fails naming option and value."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.rng import resolve_rng
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import build_spec, parse_pci_address
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.memory import parse_page_size

HOST = {
    "online": [0, 1, 2, 3],
    "hugepage_sizes_kib": [2048, 1048576],
    "numa_nodes": {0: [0, 1], 1: [2, 3]},
    "devices": {"/dev/random", "/dev/urandom"},
}


def params(**extra):
    base = {"name": "vm", "vcpus": 2, "memory_mib": 1024, "domain_type": "qemu",
            "cpu": {"pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}]}}
    for key, value in extra.items():
        base[key] = value
    return base


@pytest.mark.parametrize("mask, expected", [
    ("", [0, 1]),
    ("0-1", [0, 1]),
    ("0-1,^1", [0]),       # KubeVirt: ^N always removes N
    ("^1,0-1", [0]),
    ("^0", [1]),           # only exclusions: removed from all vCPUs
    ("1", [1]),
    (0, [0]),              # YAML's mask: 0 is vCPU 0, not a missing mask
    (1, [1]),
    (None, [0, 1]),
])
def test_mask_semantics_match_kubevirt(mask, expected):
    plan = build_spec(params(realtime={"mask": mask}), HOST)
    assert plan["realtime"]["vcpus"] == expected


@pytest.mark.parametrize("mask, token", [
    ("0-2", "0-2"),     # vCPU 2 does not exist
    ("5", "5"),
    ("1-0", "1-0"),     # start > end
    ("a", "a"),
    ("0,,1", ""),
])
def test_bad_mask_names_token(mask, token):
    with pytest.raises(OptionError) as info:
        build_spec(params(realtime={"mask": mask}), HOST)
    assert info.value.option == "realtime.mask"
    assert info.value.value == mask
    assert repr(token) in str(info.value)


def test_mask_selecting_nothing_fails():
    with pytest.raises(OptionError, match="selects no vCPU"):
        build_spec(params(realtime={"mask": "^0,^1"}), HOST)


@pytest.mark.parametrize("extra, option, fragment", [
    ({"realtime": {"priority": 0}}, "realtime.priority", "1 to 99"),
    ({"realtime": {"priority": 100}}, "realtime.priority", "1 to 99"),
    ({"cpu": {"pinning": [{"vcpu": 0, "cpuset": "7"}, {"vcpu": 1, "cpuset": "3"}]}}, "cpu.pinning[0].cpuset", "not online"),
    ({"cpu": {"pinning": [{"vcpu": 2, "cpuset": "1"}]}}, "cpu.pinning[0].vcpu", "no such vCPU"),
    ({"cpu": {"pinning": [{"vcpu": 0, "cpuset": "1"}, {"vcpu": 0, "cpuset": "2"}]}}, "cpu.pinning[1].vcpu", "pinned twice"),
    ({"cpu": {"emulator_cpuset": "9"}}, "cpu.emulator_cpuset", "not online"),
    ({"memory": {"hugepages": {"page_size": "16M"}}}, "memory.hugepages.page_size", "offers no 16384 KiB"),
    ({"memory": {"hugepages": {"page_size": "huge"}}}, "memory.hugepages.page_size", "not a page size"),
    ({"memory_mib": 1025, "memory": {"hugepages": {"page_size": "2M"}}}, "memory_mib", "whole number"),
    ({"hostdevs": ["0000:6b:00"]}, "hostdevs[0]", "not a PCI address"),
    ({"hostdevs": ["eth0"]}, "hostdevs[0]", "not a PCI address"),
    ({"hostdevs": ["0000:6b:00.1", "6b:00.1"]}, "hostdevs[1]", "listed twice"),
    ({"cpu": {"mode": "custom"}}, "cpu.model", "required"),
    ({"cpu": {"topology": {"sockets": 1, "cores": 4, "threads": 1}}}, "cpu.topology", "vcpus is 2"),
    ({"cpu": {"features": [{"name": "x", "policy": "require"}, {"name": "x"}]}}, "cpu.features[1].name", "twice"),
    ({"memory": {"numatune": {"nodeset": "5"}}}, "memory.numatune.nodeset", "no NUMA node 5"),
    ({"rng": {"profile": "nope"}}, "rng.profile", "no such profile"),
    ({"rng": {"backend": "/dev/hwrng"}}, "rng.backend", "no such device"),
    ({"rng": {"rate": {"bytes": 0, "period": 5}}}, "rng.rate", "greater than 0"),
    ({"rng": {"rate": {"period": 5}}}, "rng.rate", "needs 'bytes'"),
    ({"vcpus": 0}, "vcpus", "at least 1"),
    ({"memory_kib": 1000000}, "memory_kib", "memory_mib gives the size too"),
    ({"memory_mib": None, "memory_kib": 1023}, "memory_kib", "at least 1 MiB"),
    ({"memory_mib": None, "memory_kib": 1000001, "memory": {"hugepages": {"page_size": "2M"}}}, "memory_kib",
     "whole number"),
    ({"interfaces": [{"network": "a", "bridge": "b"}]}, "interfaces[0]", "exactly one"),
    ({"interfaces": [{"network": "a", "mac": "zz"}]}, "interfaces[0].mac", "not a MAC"),
])
def test_bad_input_names_option_and_value(extra, option, fragment):
    with pytest.raises(OptionError) as info:
        build_spec(params(**extra), HOST)
    assert info.value.option == option
    assert fragment in str(info.value)
    assert str(info.value).startswith("%s=" % option)


def test_realtime_vcpu_not_pinned_names_the_vcpus():
    with pytest.raises(OptionError) as info:
        build_spec(params(vcpus=4, cpu={"pinning": [{"vcpu": 1, "cpuset": "1"}]}, realtime={"mask": "0-3"}), HOST)
    assert info.value.option == "realtime.mask"
    assert "vCPUs 0,2-3 are not pinned" in str(info.value)


def test_unknown_host_facts_are_not_checked():
    plan = build_spec(params(cpu={"pinning": [{"vcpu": 0, "cpuset": "60"}]}, memory={"hugepages": {"page_size": "16M"}},
                             memory_mib=1024), {})
    assert plan["pinning"] == {0: [60]}
    assert plan["hugepages"]["size_kib"] == 16384


@pytest.mark.parametrize("text, kib", [("2M", 2048), ("1G", 1048576), ("1Gi", 1048576), ("2048k", 2048), ("2MiB", 2048)])
def test_page_sizes(text, kib):
    assert parse_page_size("x", text) == kib


@pytest.mark.parametrize("text, address", [
    ("0000:6b:00.1", (0, 0x6B, 0, 1)), ("6b:00.1", (0, 0x6B, 0, 1)), ("0001:00:1f.7", (1, 0, 0x1F, 7))])
def test_pci_addresses(text, address):
    assert parse_pci_address("x", text) == address


@pytest.mark.parametrize("text", ["0000:6b:00.8", "0000:6b:20.1", "00000:6b:00.1", "6b.00.1", ""])
def test_bad_pci_addresses(text):
    with pytest.raises(OptionError):
        parse_pci_address("hostdevs[0]", text)


def test_numa_passthrough_groups_vcpus_by_host_node():
    plan = build_spec(params(vcpus=4, memory_mib=4096,
                             cpu={"pinning": [{"vcpu": v, "cpuset": str(v)} for v in range(4)], "numa": {"passthrough": True}},
                             memory={"hugepages": {"page_size": "2M"}}), HOST)
    assert plan["numa_cells"] == [{"id": 0, "cpus": [0, 1], "memory_kib": 2097152},
                                  {"id": 1, "cpus": [2, 3], "memory_kib": 2097152}]
    assert plan["memnodes"] == [{"cellid": 0, "mode": "strict", "nodeset": [0]}, {"cellid": 1, "mode": "strict", "nodeset": [1]}]


def test_numa_passthrough_needs_pinning():
    with pytest.raises(OptionError, match="not pinned"):
        build_spec(params(cpu={"numa": {"passthrough": True}}), HOST)


def test_realtime_defaults():
    plan = build_spec(params(realtime={}, memory={"hugepages": {}}), HOST)
    assert plan["realtime"] == {"vcpus": [0, 1], "scheduler": "fifo", "priority": 1}
    assert plan["locked"] is True and plan["nosharepages"] is True and plan["memballoon_none"] is True
    plan = build_spec(params(realtime={"enabled": False}), HOST)
    assert plan["realtime"] is None and plan["locked"] is False and plan["nosharepages"] is False


@pytest.mark.parametrize("options, available, expected", [
    ({}, {"/dev/random", "/dev/urandom"}, {"model": "virtio", "backend": "/dev/random", "rate": None, "profile": "ovirt"}),
    ({}, {"/dev/urandom"}, {"model": "virtio", "backend": "/dev/urandom", "rate": None, "profile": "ovirt"}),
    ({"profile": "openstack", "rate": {"bytes": 1234, "period": 2000}}, None,
     {"model": "virtio", "backend": "/dev/random", "rate": {"bytes": 1234, "period": 2000}, "profile": "openstack"}),
    ({"rate": {"bytes": 512}}, None, {"model": "virtio", "backend": "/dev/random", "rate": {"bytes": 512, "period": 1000}, "profile": "ovirt"}),
    ({"backend": "/dev/hwrng", "model": "virtio-non-transitional"}, {"/dev/hwrng"},
     {"model": "virtio-non-transitional", "backend": "/dev/hwrng", "rate": None, "profile": "ovirt"}),
])
def test_rng_resolution(options, available, expected):
    assert resolve_rng(options, None, available) == expected


def test_rng_custom_profile_and_override():
    profiles = {"lab": {"backend": "/dev/urandom", "rate": {"bytes": 100, "period": 10}}}
    assert resolve_rng({"profile": "lab"}, profiles, None)["rate"] == {"bytes": 100, "period": 10}
    got = resolve_rng({"profile": "lab", "rate": {"bytes": 7, "period": 70}, "backend": "/dev/random"}, profiles, None)
    assert got["rate"] == {"bytes": 7, "period": 70} and got["backend"] == "/dev/random"
    assert resolve_rng(None, profiles, None) is None


def test_params_are_not_mutated():
    given = params(realtime={"mask": "0"})
    before = copy.deepcopy(given)
    build_spec(given, HOST)
    assert given == before


@pytest.mark.parametrize("domain_type, mode, expected", [
    ("kvm", None, "host-passthrough"),
    ("qemu", None, "maximum"),
    ("kvm", "host-model", "host-model"),
    ("qemu", "maximum", "maximum"),
])
def test_cpu_mode_default_follows_the_domain_type(domain_type, mode, expected):
    cpu = {"pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}]}
    if mode:
        cpu["mode"] = mode
    plan = build_spec(params(domain_type=domain_type, cpu=cpu), HOST)
    assert plan["cpu"]["mode"] == expected


def test_host_passthrough_under_tcg_is_refused_before_libvirt():
    with pytest.raises(OptionError) as info:
        build_spec(params(cpu={"mode": "host-passthrough"}), HOST)
    assert "cpu.mode" in str(info.value) and "maximum" in str(info.value)
