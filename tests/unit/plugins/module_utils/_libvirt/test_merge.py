# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""base_xml merged child by child: the module's children replace only those they conflict with."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from lxml import etree

from ansible_collections.realtime.virt.plugins.module_utils._libvirt.merge import group_sched, sort_children, split_sched
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.render import render
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import parse_xml
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import build_spec

HOST = {"online": [0, 1, 2, 3], "hugepage_sizes_kib": [2048, 1048576], "numa_nodes": {0: [0, 1, 2, 3]},
        "devices": {"/dev/random", "/dev/urandom"}}

BASE = """<domain type='kvm'>
  <name>base</name>
  <memory dumpCore='on' unit='MiB'>1024</memory>
  <currentMemory unit='MiB'>512</currentMemory>
  <vcpu placement='static' current='2' cpuset='0-3'>4</vcpu>
  <cputune>
    <shares>2048</shares>
    <period>1000000</period>
    <quota>-1</quota>
    <vcpupin vcpu='0' cpuset='0'/>
    <vcpupin vcpu='3' cpuset='3'/>
    <emulatorpin cpuset='1'/>
    <iothreadpin iothread='1' cpuset='2'/>
    <vcpusched vcpus='0-3' scheduler='idle'/>
    <iothreadsched iothreads='1' scheduler='batch'/>
  </cputune>
  <memoryBacking>
    <hugepages><page size='1' unit='G'/></hugepages>
    <locked/>
    <source type='memfd'/>
    <access mode='shared'/>
    <discard/>
  </memoryBacking>
  <numatune>
    <memory mode='interleave' nodeset='0'/>
    <memnode cellid='0' mode='preferred' nodeset='0'/>
  </numatune>
  <os>
    <type arch='x86_64' machine='q35'>hvm</type>
    <loader readonly='yes' type='pflash'>/usr/share/OVMF/OVMF_CODE.fd</loader>
    <boot dev='cdrom'/>
    <bootmenu enable='yes'/>
  </os>
  <features>
    <acpi/>
    <apic eoi='on'/>
    <hyperv><relaxed state='on'/></hyperv>
    <pmu state='on'/>
    <vmport state='off'/>
  </features>
  <cpu mode='host-model' check='partial'>
    <model fallback='allow'/>
    <topology sockets='1' cores='4' threads='1'/>
    <feature policy='require' name='invtsc'/>
    <feature policy='disable' name='x2apic'/>
    <numa><cell id='0' cpus='0-3' memory='1' unit='GiB'/></numa>
  </cpu>
  <clock offset='utc'><timer name='hpet' present='no'/></clock>
  <on_crash>restart</on_crash>
  <devices>
    <disk type='file' device='disk'><source file='/a.img'/><target dev='vda' bus='virtio'/></disk>
    <disk type='file' device='cdrom'><source file='/b.iso'/><target dev='sda' bus='sata'/><readonly/></disk>
    <interface type='network'><mac address='52:54:00:00:00:01'/><source network='default'/></interface>
    <serial type='pty'><target port='0'/></serial>
    <serial type='pty'><target port='1'/></serial>
    <console type='pty'><target type='serial' port='0'/></console>
    <console type='pty'><target type='virtio' port='1'/></console>
    <hostdev mode='subsystem' type='pci' managed='yes'><source><address domain='0x0000' bus='0x01' slot='0x00' function='0x0'/></source></hostdev>
    <watchdog model='i6300esb' action='reset'/>
    <memballoon model='virtio'><stats period='10'/></memballoon>
    <rng model='virtio'><backend model='egd' type='tcp'><source mode='connect' host='1.2.3.4' service='1234'/></backend></rng>
  </devices>
  <seclabel type='none'/>
</domain>"""


def merged(base=BASE, **options):
    params = {"name": "vm", "domain_type": "qemu"}
    params.update(options)
    root = parse_xml(base)
    return render(build_spec(params, HOST, root), root)


def attrs(root, path):
    return [dict(node.attrib) for node in root.findall(path)]


def tags(node):
    return [child.tag for child in node if isinstance(child.tag, str)]


def test_without_options_the_base_stays_as_written():
    """No option that owns anything: only the name and the domain type change."""
    root = merged(cpu={"mode": None})
    base = parse_xml(BASE)
    base.set("type", "qemu")
    base.find("name").text = "vm"
    sort_children(base)
    assert etree.tostring(root) == etree.tostring(base)


def test_real_time_options_replace_only_the_conflicting_children():
    root = merged(cpu={"pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}], "emulator_cpuset": "0"},
                  realtime={"mask": "0-1", "priority": 5}, memory={"locked": False}, hardening={"enabled": False})
    assert tags(root.find("cputune")) == ["shares", "period", "quota", "vcpupin", "vcpupin", "vcpupin", "emulatorpin",
                                          "iothreadpin", "vcpusched", "vcpusched", "iothreadsched"]
    # our pins replace the base's pin of vCPU 0, the base's pin of vCPU 3 stays
    assert attrs(root, "cputune/vcpupin") == [{"vcpu": "0", "cpuset": "2"}, {"vcpu": "1", "cpuset": "3"},
                                              {"vcpu": "3", "cpuset": "3"}]
    assert attrs(root, "cputune/emulatorpin") == [{"cpuset": "0"}]
    # the base's idle scheduling keeps the vCPUs the mask does not make real-time
    assert attrs(root, "cputune/vcpusched") == [{"vcpus": "0-1", "scheduler": "fifo", "priority": "5"},
                                                {"vcpus": "2-3", "scheduler": "idle"}]
    assert [node.text for node in root.findall("cputune/shares")] == ["2048"]
    # memory.locked false removes the base's <locked/>; the rest of memoryBacking stays
    assert tags(root.find("memoryBacking")) == ["hugepages", "source", "access", "discard"]
    assert attrs(root, "memoryBacking/hugepages/page") == [{"size": "1", "unit": "G"}]
    assert attrs(root, "features/pmu") == [{"state": "off"}]
    assert tags(root.find("features")) == ["acpi", "apic", "hyperv", "pmu", "vmport"]
    assert attrs(root, "features/apic") == [{"eoi": "on"}]
    assert attrs(root, "devices/memballoon") == [{"model": "none"}]
    assert attrs(root, "devices/rng/backend") == [{"model": "egd", "type": "tcp"}]  # rng not given: the base's
    assert attrs(root, "devices/watchdog") == [{"model": "i6300esb", "action": "reset"}]
    assert attrs(root, "seclabel") == [{"type": "none"}]
    assert attrs(root, "clock/timer") == [{"name": "hpet", "present": "no"}]


def test_a_vcpusched_wholly_inside_the_mask_is_replaced():
    root = merged(cpu={"pinning": [{"vcpu": v, "cpuset": str(v)} for v in range(4)]}, realtime={})
    assert attrs(root, "cputune/vcpusched") == [{"vcpus": "0-3", "scheduler": "fifo", "priority": "1"}]


def test_memory_options_replace_their_children():
    root = merged(memory={"hugepages": {"page_size": "2M"}, "locked": True, "numatune": {"mode": "strict", "nodeset": "0"}})
    assert attrs(root, "memoryBacking/hugepages/page") == [{"size": "2048", "unit": "KiB"}]
    assert tags(root.find("memoryBacking")) == ["hugepages", "locked", "source", "access", "discard"]
    assert attrs(root, "numatune/memory") == [{"mode": "strict", "nodeset": "0"}]
    assert attrs(root, "numatune/memnode") == [{"cellid": "0", "mode": "preferred", "nodeset": "0"}]


def test_memory_and_vcpus_options():
    root = merged(memory_mib=768, vcpus=3)
    assert attrs(root, "memory") == [{"dumpCore": "on", "unit": "KiB"}]
    assert root.findtext("memory") == "786432"
    assert root.findtext("currentMemory") == "512"                  # below the new size: kept
    assert attrs(root, "vcpu") == [{"placement": "static", "current": "2", "cpuset": "0-3"}]
    assert root.findtext("vcpu") == "3"
    assert attrs(root, "cputune/vcpupin") == [{"vcpu": "0", "cpuset": "0"}]   # vCPU 3 is gone
    assert attrs(root, "cputune/vcpusched") == [{"vcpus": "0-2", "scheduler": "idle"}]
    assert root.find("cpu/topology") is None                         # 1x4x1 no longer fits 3 vCPUs
    smaller = merged(memory_mib=256, vcpus=1)
    assert smaller.find("currentMemory") is None                     # above the new size: libvirt would refuse it
    assert attrs(smaller, "vcpu") == [{"placement": "static", "cpuset": "0-3"}]


def test_cpu_options():
    root = merged(cpu={"features": [{"name": "x2apic", "policy": "require"}, {"name": "pdpe1gb", "policy": "optional"}],
                       "topology": {"sockets": 2, "cores": 2, "threads": 1}})
    cpu = root.find("cpu")
    assert cpu.get("mode") == "host-model" and cpu.get("check") == "partial"   # mode not given: the base's
    assert attrs(root, "cpu/feature") == [{"policy": "require", "name": "invtsc"}, {"policy": "require", "name": "x2apic"},
                                          {"policy": "optional", "name": "pdpe1gb"}]
    assert attrs(root, "cpu/topology") == [{"sockets": "2", "cores": "2", "threads": "1"}]
    assert tags(cpu) == ["model", "topology", "feature", "feature", "feature", "numa"]
    custom = merged(cpu={"mode": "custom", "model": "Skylake-Server"})
    assert custom.find("cpu").get("mode") == "custom"
    assert [node.text for node in custom.findall("cpu/model")] == ["Skylake-Server"]
    passthrough = merged(BASE.replace("mode='host-model'", "mode='custom' match='exact'"), domain_type="kvm",
                         cpu={"mode": "host-passthrough"})
    assert attrs(passthrough, "cpu") == [{"mode": "host-passthrough", "check": "partial"}]   # libvirt drops match there
    assert passthrough.find("cpu/model") is None
    assert len(passthrough.findall("cpu/feature")) == 2


def test_a_mode_without_a_model_drops_the_bases_model_and_vendor():
    base = BASE.replace("<cpu mode='host-model' check='partial'>\n    <model fallback='allow'/>",
                        "<cpu mode='custom' match='exact'>\n    <model>Skylake-Server</model><vendor>Intel</vendor>")
    assert parse_xml(base).find("cpu/vendor") is not None
    kept = merged(base, cpu={"mode": None})
    assert [node.text for node in kept.findall("cpu/model") + kept.findall("cpu/vendor")] == ["Skylake-Server", "Intel"]
    for mode in ("host-passthrough", "maximum"):
        cpu = merged(base, domain_type="kvm", cpu={"mode": mode}).find("cpu")
        assert (cpu.find("model"), cpu.find("vendor"), cpu.get("match")) == (None, None, None)
        assert tags(cpu) == ["topology", "feature", "feature", "numa"]


def test_numa_cells_of_the_options_replace_the_base_cells_and_their_memnodes():
    base = BASE.replace("<memnode cellid='0' mode='preferred' nodeset='0'/>",
                        "<memnode cellid='0' mode='preferred' nodeset='0'/><memnode cellid='1' mode='strict' nodeset='0'/>")
    root = merged(base, memory_mib=1024, cpu={"numa": {"cells": [{"cpus": "0-3", "memory_mib": 1024}]}})
    assert attrs(root, "cpu/numa/cell") == [{"id": "0", "cpus": "0-3", "memory": "1048576", "unit": "KiB"}]
    assert attrs(root, "numatune/memnode") == [{"cellid": "0", "mode": "preferred", "nodeset": "0"}]


def test_device_options_replace_their_devices_only():
    root = merged(disks=[{"path": "/new.qcow2", "format": "qcow2"}], serial_log="/var/log/s.log",
                  hostdevs=["0000:01:00.0", "0000:02:00.0"], rng={"backend": "/dev/urandom"},
                  interfaces=[{"bridge": "br0"}])
    assert [(d.find("source").get("file"), d.find("target").get("dev")) for d in root.findall("devices/disk")] == [
        ("/new.qcow2", "vda"), ("/b.iso", "sda")]
    assert attrs(root, "devices/interface/source") == [{"bridge": "br0"}]
    assert [s.get("type") for s in root.findall("devices/serial")] == ["file", "pty"]   # ours in port 0's place
    assert attrs(root, "devices/serial/target") == [{"port": "0"}, {"port": "1"}]
    assert attrs(root, "devices/console/target") == [{"type": "virtio", "port": "1"}]
    assert [h.find("source/address").get("bus") for h in root.findall("devices/hostdev")] == ["0x01", "0x02"]
    assert attrs(root, "devices/rng/backend") == [{"model": "random"}]
    assert attrs(root, "devices/memballoon/stats") == [{"period": "10"}]     # no real-time: the base's balloon
    assert tags(root.find("devices")) == ["disk", "disk", "interface", "serial", "serial", "console", "hostdev",
                                          "hostdev", "watchdog", "memballoon", "rng"]


def test_boot_options_replace_the_boot_children_of_os():
    root = merged(boot={"kernel": "/k", "cmdline": "console=ttyS0"}, machine="pc")
    assert tags(root.find("os")) == ["type", "loader", "kernel", "cmdline", "bootmenu"]
    assert attrs(root, "os/type") == [{"arch": "x86_64", "machine": "pc"}]


def test_top_level_children_end_in_libvirt_order():
    base = "<domain><devices/><cpu mode='maximum'/><name>x</name><memory>131072</memory><vcpu>2</vcpu></domain>"
    root = merged(base, cpu={"pinning": [{"vcpu": 0, "cpuset": "1"}]}, realtime={"mask": "0"},
                  memory={"locked": False}, hardening={"enabled": False})
    assert tags(root) == ["name", "memory", "vcpu", "cputune", "os", "features", "cpu", "devices"]
    hardened = merged(base, cpu={"pinning": [{"vcpu": 0, "cpuset": "1"}]}, realtime={"mask": "0"},
                      memory={"locked": False}, iothreads=1)
    assert tags(hardened) == ["name", "memory", "vcpu", "iothreads", "cputune", "os", "features", "cpu", "clock",
                              "pm", "devices"]


@pytest.mark.parametrize("xml, grouped, split", [
    ("<cputune><vcpusched vcpus='0' scheduler='fifo' priority='1'/><vcpusched vcpus='1' scheduler='fifo' priority='1'/>"
     "<vcpusched vcpus='2' scheduler='idle'/></cputune>",
     [{"vcpus": "0-1", "scheduler": "fifo", "priority": "1"}, {"vcpus": "2", "scheduler": "idle"}],
     [{"vcpus": "0", "scheduler": "fifo", "priority": "1"}, {"vcpus": "1", "scheduler": "fifo", "priority": "1"},
      {"vcpus": "2", "scheduler": "idle"}]),
    ("<cputune><iothreadsched iothreads='1-3,^2' scheduler='batch'/><iothreadsched iothreads='2' scheduler='rr' priority='0'/></cputune>",
     [{"iothreads": "1,3", "scheduler": "batch"}, {"iothreads": "2", "scheduler": "rr", "priority": "0"}],
     [{"iothreads": "1", "scheduler": "batch"}, {"iothreads": "2", "scheduler": "rr", "priority": "0"},
      {"iothreads": "3", "scheduler": "batch"}]),
])
def test_scheduler_lists_group_and_split(xml, grouped, split):
    root = etree.fromstring("<domain>%s</domain>" % xml)
    tag = "cputune/" + etree.fromstring(xml)[0].tag
    assert attrs(group_sched(root), tag) == grouped
    assert attrs(split_sched(root), tag) == split
    assert attrs(group_sched(split_sched(root)), tag) == grouped
