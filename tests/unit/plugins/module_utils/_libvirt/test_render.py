# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""XML rendering of libvirt_rt_domain: one table row per option, and the KubeVirt seed VM."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._libvirt.render import fill_identity, render
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import parse_xml
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import build_spec

HOST = {"online": [0, 1, 2, 3, 4, 5], "hugepage_sizes_kib": [2048, 1048576], "numa_nodes": {0: [0, 1, 2, 3], 1: [4, 5]},
        "devices": {"/dev/random", "/dev/urandom", "/dev/hwrng"}}


def xml_for(base_xml=None, **options):
    params = {"name": "vm", "vcpus": 2, "memory_mib": 1024, "domain_type": "kvm"}
    params.update(options)
    base = parse_xml(base_xml) if base_xml else None
    return render(build_spec(params, HOST, base), base)


def attrs(root, path):
    return [dict(node.attrib) for node in root.findall(path)]


def texts(root, path):
    return [(node.text or "").strip() for node in root.findall(path)]


# (options, xpath, expected list of attribute dicts, or of texts when it ends with "/text()")
TABLE = [
    ({}, ".", [{"type": "kvm"}]),
    ({"domain_type": "qemu"}, ".", [{"type": "qemu"}]),
    ({}, "name/text()", ["vm"]),
    ({}, "memory", [{"unit": "KiB"}]),
    ({}, "memory/text()", ["1048576"]),
    ({"vcpus": 3}, "vcpu/text()", ["3"]),
    ({"machine": "q35"}, "os/type", [{"machine": "q35"}]),
    ({}, "os/type/text()", ["hvm"]),
    ({}, "os/boot", [{"dev": "hd"}]),
    ({}, "cpu", [{"mode": "host-passthrough"}]),
    ({"cpu": {"mode": "maximum"}}, "cpu", [{"mode": "maximum"}]),
    ({"cpu": {"mode": "custom", "model": "Skylake-Server"}}, "cpu/model/text()", ["Skylake-Server"]),
    ({"cpu": {"features": [{"name": "tsc-deadline", "policy": "require"}, {"name": "vmx", "policy": "disable"}]}},
     "cpu/feature", [{"policy": "require", "name": "tsc-deadline"}, {"policy": "disable", "name": "vmx"}]),
    ({"cpu": {"topology": {"sockets": 1, "cores": 2, "threads": 1}}}, "cpu/topology",
     [{"sockets": "1", "cores": "2", "threads": "1"}]),
    ({"cpu": {"pinning": [{"vcpu": 1, "cpuset": "3,2"}, {"vcpu": 0, "cpuset": "4-5"}]}}, "cputune/vcpupin",
     [{"vcpu": "0", "cpuset": "4-5"}, {"vcpu": "1", "cpuset": "2-3"}]),
    ({"cpu": {"emulator_cpuset": "0,1"}}, "cputune/emulatorpin", [{"cpuset": "0-1"}]),
    ({}, "cputune", []),
    ({"cpu": {"numa": {"cells": [{"cpus": "0", "memory_mib": 512}, {"cpus": "1", "memory_mib": 512}]}}}, "cpu/numa/cell",
     [{"id": "0", "cpus": "0", "memory": "524288", "unit": "KiB"}, {"id": "1", "cpus": "1", "memory": "524288", "unit": "KiB"}]),
    ({"cpu": {"pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "4"}], "numa": {"passthrough": True}}},
     "numatune/memnode", [{"cellid": "0", "mode": "strict", "nodeset": "0"}, {"cellid": "1", "mode": "strict", "nodeset": "1"}]),
    ({"realtime": {"mask": "0-1,^1", "priority": 5, "scheduler": "rr"}, "cpu": {"pinning": [{"vcpu": 0, "cpuset": "2"}]}},
     "cputune/vcpusched", [{"vcpus": "0", "scheduler": "rr", "priority": "5"}]),
    ({"realtime": {}, "cpu": {"pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}]}},
     "features/pmu", [{"state": "off"}]),
    ({"realtime": {}, "cpu": {"pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}]}},
     "memoryBacking/locked", [{}]),
    ({"realtime": {}, "cpu": {"pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}]}, "memory": {"locked": False}},
     "memoryBacking", []),
    ({"realtime": {}, "cpu": {"pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}]}},
     "memoryBacking/nosharepages", []),
    ({"realtime": {}, "cpu": {"pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}]}, "memory": {"hugepages": {}}},
     "memoryBacking/nosharepages", [{}]),
    ({"realtime": {}, "cpu": {"pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}]}},
     "devices/memballoon", [{"model": "none"}]),
    ({}, "devices/memballoon", []),
    ({}, "features/pmu", []),
    ({"memory": {"hugepages": {"page_size": "2M"}}}, "memoryBacking/hugepages/page", [{"size": "2048", "unit": "KiB"}]),
    ({"memory": {"hugepages": {"page_size": "1G", "nodeset": "0"}}}, "memoryBacking/hugepages/page",
     [{"size": "1048576", "unit": "KiB", "nodeset": "0"}]),
    ({"memory": {"locked": True}}, "memoryBacking/locked", [{}]),
    ({"memory": {"numatune": {"mode": "preferred", "nodeset": "1"}}}, "numatune/memory", [{"mode": "preferred", "nodeset": "1"}]),
    ({"rng": {}}, "devices/rng", [{"model": "virtio"}]),
    ({"rng": {}}, "devices/rng/backend", [{"model": "random"}]),
    ({"rng": {}}, "devices/rng/backend/text()", ["/dev/random"]),
    ({"rng": {}}, "devices/rng/rate", []),
    ({"rng": {"rate": {"period": 2000, "bytes": 1234}}}, "devices/rng/rate", [{"bytes": "1234", "period": "2000"}]),
    ({"rng": {"backend": "/dev/hwrng"}}, "devices/rng/backend/text()", ["/dev/hwrng"]),
    ({}, "devices/rng", []),
    ({"hostdevs": ["0000:6b:00.1"]}, "devices/hostdev", [{"mode": "subsystem", "type": "pci", "managed": "yes"}]),
    ({"hostdevs": ["0000:6b:00.1"]}, "devices/hostdev/source/address",
     [{"domain": "0x0000", "bus": "0x6b", "slot": "0x00", "function": "0x1"}]),
    ({"boot": {"kernel": "/k", "initrd": "/i", "cmdline": "console=ttyS0"}}, "os/kernel/text()", ["/k"]),
    ({"boot": {"kernel": "/k", "initrd": "/i", "cmdline": "console=ttyS0"}}, "os/initrd/text()", ["/i"]),
    ({"boot": {"kernel": "/k", "initrd": "/i", "cmdline": "console=ttyS0"}}, "os/cmdline/text()", ["console=ttyS0"]),
    ({"boot": {"kernel": "/k"}}, "os/boot", []),
    ({"disks": [{"path": "/a.qcow2", "format": "qcow2"}, {"path": "/b.img", "bus": "sata"}]}, "devices/disk/target",
     [{"dev": "vda", "bus": "virtio"}, {"dev": "sda", "bus": "sata"}]),
    ({"disks": [{"path": "/a.qcow2", "format": "qcow2"}]}, "devices/disk/driver", [{"name": "qemu", "type": "qcow2"}]),
    ({"interfaces": [{"network": "default"}]}, "devices/interface/source", [{"network": "default"}]),
    ({"interfaces": [{"bridge": "br0", "mac": "52:54:00:AA:BB:CC", "model": "e1000"}]}, "devices/interface/mac",
     [{"address": "52:54:00:aa:bb:cc"}]),
    ({"interfaces": [{"network": "default"}]}, "devices/interface/mac", []),
    ({"serial_log": "/var/log/s.log"}, "devices/serial/source", [{"path": "/var/log/s.log"}]),
]


@pytest.mark.parametrize("options, path, expected", TABLE)
def test_rendering_table(options, path, expected):
    root = xml_for(**options)
    if path.endswith("/text()"):
        assert texts(root, path[:-len("/text()")]) == expected
    elif path == ".":
        assert [{"type": root.get("type")}] == expected
    else:
        assert attrs(root, path) == expected


def test_seed_vm_renders_the_elements_of_the_kubevirt_pr():
    """vm-realtime of the KubeVirt real-time PR: 2 cores, realtime {}, 1Gi hugepages,
    dedicated CPUs, isolated emulator thread, tsc-deadline require, NUMA passthrough."""
    root = xml_for(
        vcpus=2, memory_mib=3072,
        cpu={"mode": "host-passthrough", "topology": {"sockets": 1, "cores": 2, "threads": 1},
             "features": [{"name": "tsc-deadline", "policy": "require"}],
             "pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}],
             "emulator_cpuset": "1", "numa": {"passthrough": True}},
        realtime={}, memory={"hugepages": {"page_size": "1Gi"}},
    )
    # elements the PR lists
    assert attrs(root, "memoryBacking/nosharepages") == [{}]
    assert attrs(root, "features/pmu") == [{"state": "off"}]
    assert attrs(root, "cputune/vcpusched") == [{"vcpus": "0-1", "scheduler": "fifo", "priority": "1"}]
    # dedicated CPUs and the isolated emulator thread
    assert attrs(root, "cputune/vcpupin") == [{"vcpu": "0", "cpuset": "2"}, {"vcpu": "1", "cpuset": "3"}]
    assert attrs(root, "cputune/emulatorpin") == [{"cpuset": "1"}]
    # memory lock limit (KubeVirt's virt-handler) becomes <locked/>
    assert attrs(root, "memoryBacking/locked") == [{}]
    assert attrs(root, "memoryBacking/hugepages/page") == [{"size": "1048576", "unit": "KiB"}]
    assert attrs(root, "cpu") == [{"mode": "host-passthrough"}]
    assert attrs(root, "cpu/feature") == [{"policy": "require", "name": "tsc-deadline"}]
    assert attrs(root, "cpu/topology") == [{"sockets": "1", "cores": "2", "threads": "1"}]
    assert attrs(root, "cpu/numa/cell") == [{"id": "0", "cpus": "0-1", "memory": "3145728", "unit": "KiB"}]
    assert attrs(root, "numatune/memnode") == [{"cellid": "0", "mode": "strict", "nodeset": "0"}]
    assert attrs(root, "devices/memballoon") == [{"model": "none"}]


BASE = """<domain type='kvm'>
  <name>old</name>
  <uuid>11111111-2222-3333-4444-555555555555</uuid>
  <memory unit='GiB'>2</memory>
  <currentMemory unit='GiB'>2</currentMemory>
  <vcpu placement='static'>2</vcpu>
  <cputune><iothreadpin iothread='1' cpuset='0'/></cputune>
  <os><type arch='x86_64' machine='q35'>hvm</type><boot dev='cdrom'/></os>
  <features><acpi/><pmu state='on'/></features>
  <on_crash>restart</on_crash>
  <devices>
    <disk type='file' device='disk'><source file='/x.img'/><target dev='vda' bus='virtio'/></disk>
    <hostdev mode='subsystem' type='pci' managed='yes'><source><address domain='0x0000' bus='0x01' slot='0x00' function='0x0'/></source></hostdev>
    <rng model='virtio'><backend model='random'>/dev/urandom</backend></rng>
    <memballoon model='virtio'/>
  </devices>
</domain>"""


def test_base_xml_keeps_everything_it_does_not_manage():
    root = xml_for(base_xml=BASE, vcpus=None, memory_mib=None,
                   cpu={"pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}]},
                   realtime={}, hostdevs=["0000:6b:00.1"])
    assert texts(root, "name") == ["vm"]
    assert texts(root, "uuid") == ["11111111-2222-3333-4444-555555555555"]
    assert attrs(root, "memory") == [{"unit": "GiB"}]      # memory_mib not given: the base's memory stays
    assert texts(root, "vcpu") == ["2"]
    assert texts(root, "on_crash") == ["restart"]
    assert attrs(root, "os/boot") == [{"dev": "cdrom"}]
    assert attrs(root, "os/type") == [{"arch": "x86_64", "machine": "q35"}]
    assert attrs(root, "devices/disk/source") == [{"file": "/x.img"}]
    # the module's children merged in, the base's other children kept (issue 20: before, the
    # whole <cputune> and every <rng> of the base were replaced)
    assert attrs(root, "cputune/iothreadpin") == [{"iothread": "1", "cpuset": "0"}]
    assert attrs(root, "cputune/vcpupin") == [{"vcpu": "0", "cpuset": "2"}, {"vcpu": "1", "cpuset": "3"}]
    assert attrs(root, "features/pmu") == [{"state": "off"}]
    assert attrs(root, "features/acpi") == [{}]
    assert attrs(root, "devices/rng") == [{"model": "virtio"}]  # rng not asked for: the base's stays
    assert texts(root, "devices/rng/backend") == ["/dev/urandom"]
    assert attrs(root, "devices/memballoon") == [{"model": "none"}]
    buses = [a["bus"] for a in attrs(root, "devices/hostdev/source/address")]
    assert buses == ["0x01", "0x6b"]                       # the base's hostdev stays, ours is added


def test_base_xml_memory_is_replaced_when_given():
    root = xml_for(base_xml=BASE, vcpus=None, memory_mib=512)
    assert texts(root, "memory") == ["524288"]
    assert texts(root, "currentMemory") == []


def test_memory_kib_gives_a_size_that_is_not_whole_mib():
    """KubeVirt's 1024M is 1,000,000 KiB: the domain carries it exactly, in libvirt's own unit."""
    root = xml_for(memory_mib=None, memory_kib=1000000)
    assert texts(root, "memory") == ["1000000"] and attrs(root, "memory") == [{"unit": "KiB"}]
    root = xml_for(base_xml=BASE, vcpus=None, memory_mib=None, memory_kib=976563)
    assert texts(root, "memory") == ["976563"]


def test_fill_identity_keeps_uuid_and_macs():
    current = parse_xml("""<domain type='kvm'><name>vm</name><uuid>abcd</uuid><devices>
      <interface type='network'><mac address='52:54:00:01:02:03'/><source network='default'/></interface>
      <interface type='bridge'><mac address='52:54:00:0a:0b:0c'/><source bridge='br0'/></interface>
      </devices></domain>""")
    wanted = xml_for(interfaces=[{"network": "default"}, {"network": "other"}])
    fill_identity(wanted, current)
    assert texts(wanted, "uuid") == ["abcd"]
    assert attrs(wanted, "devices/interface/mac") == [{"address": "52:54:00:01:02:03"}]  # second kind changed: no MAC kept


def test_parse_xml_rejects_non_domains():
    from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
    with pytest.raises(OptionError, match="must be <domain>"):
        parse_xml("<network/>")
    with pytest.raises(OptionError, match="not well-formed"):
        parse_xml("<domain>")
