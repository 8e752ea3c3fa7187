# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Guest hardening, IO threads and the shared emulator policy of libvirt_rt_domain.

LIBVIRT_XML is what libvirt 9.0 (Debian 12) stored for OPTIONS
(``virsh dumpxml --inactive`` after defining the module's XML on the test
host), so the comparison is checked against libvirt's own spelling.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.compare import differences
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.render import render
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.devices import device_kinds
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import parse_xml
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import build_spec
from libvirt_compare import compare_with_libvirt  # noqa: E402  (tests/unit/fixtures, put on the path by conftest)

try:
    from lxml import etree
except ImportError:  # pragma: no cover
    etree = None

HOST = {"online": [0, 1, 2, 3], "hugepage_sizes_kib": [2048, 1048576], "numa_nodes": {0: [0, 1, 2, 3]},
        "devices": {"/dev/random", "/dev/urandom"}}

OPTIONS = {
    "name": "rthard", "domain_type": "qemu", "memory_mib": 64, "vcpus": 2, "iothreads": 1,
    "cpu": {"mode": "maximum", "pinning": [{"vcpu": 0, "cpuset": "1"}, {"vcpu": 1, "cpuset": "0"}],
            "emulator_policy": "share"},
    "realtime": {"mask": "^1"},
    "memory": {"locked": False, "hugepages": {"page_size": "2M"}},
    "disks": [{"path": "/tmp/hx.img", "iothread": 1}],
}

LIBVIRT_XML = """<domain type='qemu'>
  <name>rthard</name>
  <uuid>8e5b649f-4dce-436e-8c96-d02ae54c5823</uuid>
  <memory unit='KiB'>65536</memory>
  <currentMemory unit='KiB'>65536</currentMemory>
  <memoryBacking>
    <hugepages>
      <page size='2048' unit='KiB'/>
    </hugepages>
    <nosharepages/>
    <allocation mode='immediate'/>
  </memoryBacking>
  <vcpu placement='static'>2</vcpu>
  <iothreads>1</iothreads>
  <cputune>
    <vcpupin vcpu='0' cpuset='1'/>
    <vcpupin vcpu='1' cpuset='0'/>
    <emulatorpin cpuset='0'/>
    <iothreadpin iothread='1' cpuset='0'/>
    <vcpusched vcpus='0' scheduler='fifo' priority='1'/>
  </cputune>
  <os>
    <type arch='x86_64' machine='pc-i440fx-7.2'>hvm</type>
    <boot dev='hd'/>
  </os>
  <features>
    <acpi/>
    <apic/>
    <pmu state='off'/>
  </features>
  <cpu mode='maximum' check='none'/>
  <clock offset='utc'>
    <timer name='rtc' tickpolicy='catchup'/>
    <timer name='pit' tickpolicy='delay'/>
    <timer name='hpet' present='no'/>
  </clock>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <pm>
    <suspend-to-mem enabled='no'/>
    <suspend-to-disk enabled='no'/>
  </pm>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <disk type='file' device='disk'>
      <driver name='qemu' type='raw' iothread='1'/>
      <source file='/tmp/hx.img'/>
      <target dev='vda' bus='virtio'/>
      <address type='pci' domain='0x0000' bus='0x00' slot='0x02' function='0x0'/>
    </disk>
    <controller type='usb' index='0' model='none'/>
    <controller type='pci' index='0' model='pci-root'/>
    <input type='mouse' bus='ps2'/>
    <input type='keyboard' bus='ps2'/>
    <audio id='1' type='none'/>
    <memballoon model='none'/>
  </devices>
</domain>"""


def options(**changes):
    opts = copy.deepcopy(OPTIONS)
    opts.update(changes)
    return opts


def wanted(opts=None, base=None):
    root = parse_xml(base) if base else None
    return render(build_spec(opts or OPTIONS, HOST, root), root)


def diffs(opts=None, edit=None):
    return compare_with_libvirt(opts or OPTIONS, HOST, LIBVIRT_XML, edit)


def attrs(root, path):
    return [dict(node.attrib) for node in root.findall(path)]


def test_a_real_time_domain_is_hardened_by_default():
    root = wanted()
    assert attrs(root, "clock/timer") == [{"name": "rtc", "tickpolicy": "catchup"}, {"name": "pit", "tickpolicy": "delay"},
                                          {"name": "hpet", "present": "no"}]
    assert attrs(root, "pm/*") == [{"enabled": "no"}, {"enabled": "no"}]
    assert [node.tag for node in root.find("pm")] == ["suspend-to-mem", "suspend-to-disk"]
    assert attrs(root, "memoryBacking/allocation") == [{"mode": "immediate"}]
    assert attrs(root, "devices/controller") == [{"type": "usb", "model": "none"}]
    assert root.find("features/kvm") is None  # domain_type qemu: no KVM hint


def test_libvirts_copy_of_the_hardened_domain_is_no_difference():
    assert diffs() == []


@pytest.mark.parametrize("edit, line", [
    (lambda root: root.find("clock").remove(root.find("clock/timer[@name='hpet']")),
     "domain/clock/timer: missing <timer name='hpet' present='no'>"),
    (lambda root: root.find("clock/timer[@name='rtc']").set("tickpolicy", "delay"),
     "domain/clock/timer: missing <timer name='rtc' tickpolicy='catchup'>"),
    (lambda root: root.remove(root.find("pm")), "domain/pm: missing <pm>"),
    (lambda root: root.find("memoryBacking").remove(root.find("memoryBacking/allocation")),
     "domain/memoryBacking/allocation: missing <allocation mode='immediate'>"),
    (lambda root: root.find("devices/controller[@type='usb']").set("model", "piix3-uhci"),
     "domain/devices/controller: missing <controller model='none' type='usb'>"),
    (lambda root: etree.SubElement(root.find("devices"), "graphics", type="vnc"),
     "domain/devices/graphics: not wanted <graphics type='vnc'>"),
    (lambda root: etree.SubElement(root.find("devices"), "sound", model="ich9"),
     "domain/devices/sound: not wanted <sound model='ich9'>"),
    (lambda root: root.find("cputune/iothreadpin").set("cpuset", "1"),
     "domain/cputune/iothreadpin: attribute cpuset is '1', wanted '0'"),
    (lambda root: root.find("devices/disk/driver").attrib.pop("iothread"),
     "domain/devices/disk/driver: attribute iothread is None, wanted '1'"),
    (lambda root: setattr(root.find("iothreads"), "text", "2"), "domain/iothreads: value is '2', wanted '1'"),
])
def test_a_change_libvirt_holds_is_seen(edit, line):
    assert line in diffs(edit=edit)


@pytest.mark.parametrize("switch, gone", [
    ({"timers": []}, "domain/clock/timer: not wanted <timer name='rtc' tickpolicy='catchup'>"),
    ({"guest_suspend": True}, "domain/pm: not wanted <pm>"),
    ({"immediate_allocation": False}, "domain/memoryBacking/allocation: not wanted <allocation mode='immediate'>"),
    ({"enabled": False}, "domain/pm: not wanted <pm>"),
])
def test_switching_a_part_off_removes_it(switch, gone):
    assert gone in diffs(options(hardening=switch))


def test_switched_off_parts_are_not_written():
    root = wanted(options(hardening={"enabled": False}))
    assert root.find("pm") is None and root.find("memoryBacking/allocation") is None
    assert attrs(root, "clock") == [{"offset": "utc"}] and root.find("clock/timer") is None
    assert root.find("devices/controller") is None


def test_a_domain_that_is_not_real_time_is_hardened_only_when_asked():
    plain = options(realtime=None, cpu={"mode": "maximum"})
    assert wanted(plain).find("pm") is None
    asked = wanted(dict(plain, hardening={"enabled": True}))
    assert attrs(asked, "devices/controller") == [{"type": "usb", "model": "none"}]
    assert [t.get("name") for t in asked.findall("clock/timer")] == ["rtc", "pit", "hpet"]


def test_kvm_hint_dedicated_where_every_vcpu_has_its_own_cpu():
    kvm = options(domain_type="kvm", cpu={"mode": "host-passthrough",
                                          "pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}]})
    assert attrs(wanted(kvm), "features/kvm/hint-dedicated") == [{"state": "on"}]
    shared = dict(kvm, cpu={"mode": "host-passthrough", "pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "2"}]})
    assert wanted(shared).find("features/kvm") is None
    wide = dict(kvm, cpu={"mode": "host-passthrough", "pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "2-3"}]})
    assert wanted(wide).find("features/kvm") is None
    model = dict(kvm, cpu={"mode": "host-model", "pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}]})
    assert wanted(model).find("features/kvm") is None
    assert wanted(dict(kvm, hardening={"hint_dedicated": False})).find("features/kvm") is None


@pytest.mark.parametrize("cpu, domain_type, reason", [
    ({"pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "2"}]}, "kvm", "two vCPUs share a host CPU"),
    ({"pinning": [{"vcpu": 0, "cpuset": "2"}]}, "kvm", "not every vCPU is pinned to exactly one host CPU"),
    ({"pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}]}, "qemu", "needs domain_type kvm"),
    ({"pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}], "mode": "host-model"}, "kvm",
     "only with cpu.mode host-passthrough (this domain's is host-model)"),
])
def test_hint_dedicated_where_it_cannot_hold_is_refused(cpu, domain_type, reason):
    cpu = dict(cpu)
    cpu.setdefault("mode", "maximum" if domain_type == "qemu" else "host-passthrough")
    opts = options(domain_type=domain_type, realtime={"mask": "0"}, hardening={"hint_dedicated": True}, cpu=cpu)
    with pytest.raises(OptionError) as error:
        build_spec(opts, HOST)
    assert "hardening.hint_dedicated" in str(error.value) and reason in str(error.value)


def test_hint_dedicated_joins_a_users_kvm_element():
    base = ("<domain type='kvm'><name>b</name><memory>65536</memory><vcpu>1</vcpu>"
            "<features><acpi/><kvm><hidden state='on'/></kvm></features></domain>")
    opts = {"name": "b", "domain_type": "kvm", "cpu": {"pinning": [{"vcpu": 0, "cpuset": "2"}]}, "realtime": {}}
    root = wanted(opts, base)
    assert [node.tag for node in root.find("features/kvm")] == ["hidden", "hint-dedicated"]
    # a base whose <cpu> keeps another mode gets no hint (libvirt would refuse it)
    custom = base.replace("</domain>", "<cpu mode='custom'><model>Skylake-Server</model></cpu></domain>")
    assert wanted(opts, custom).find("features/kvm/hint-dedicated") is None


@pytest.mark.parametrize("timers, option, reason", [
    ([{"name": "jiffies", "tickpolicy": "delay"}], "hardening.timers[0].name", "not a timer libvirt knows"),
    ([{"name": "rtc", "tickpolicy": "catchup"}, {"name": "rtc", "tickpolicy": "delay"}], "hardening.timers[1].name",
     "listed twice"),
    ([{"name": "pit", "tickpolicy": "late"}], "hardening.timers[0].tickpolicy", "not a tick policy"),
    ([{"name": "hpet", "tickpolicy": "delay", "present": False}], "hardening.timers[0].tickpolicy", "not present"),
    ([{"name": "tsc"}], "hardening.timers[0]", "says nothing"),
])
def test_bad_timers_are_refused(timers, option, reason):
    with pytest.raises(OptionError) as error:
        build_spec(options(hardening={"timers": timers}), HOST)
    assert str(error.value).startswith(option) and reason in str(error.value)


def test_a_base_with_usb_graphics_or_sound_keeps_them():
    base = ("<domain type='qemu'><name>b</name><memory>65536</memory><vcpu>1</vcpu><devices>"
            "<input type='tablet' bus='usb'/><graphics type='vnc'/><sound model='ich9'/></devices></domain>")
    opts = {"name": "b", "domain_type": "qemu", "cpu": {"pinning": [{"vcpu": 0, "cpuset": "1"}]}, "realtime": {}}
    root = wanted(opts, base)
    assert root.find("devices/controller") is None  # the tablet needs USB
    assert root.find("devices/graphics") is not None and root.find("devices/sound") is not None
    plan = build_spec(opts, HOST, parse_xml(base))
    assert differences(root, copy.deepcopy(root), device_kinds(plan, True)) == []


def test_a_usb_disk_keeps_the_usb_controller():
    root = wanted(options(disks=[{"path": "/tmp/u.img", "bus": "usb"}]))
    assert root.find("devices/controller") is None


def test_io_threads_run_with_the_emulator_and_serve_their_disks():
    root = wanted(options(iothreads=2, cpu={"mode": "maximum", "emulator_cpuset": "2-3",
                                            "pinning": [{"vcpu": 0, "cpuset": "1"}, {"vcpu": 1, "cpuset": "0"}]},
                          disks=[{"path": "/a"}, {"path": "/b", "iothread": 2}]))
    assert root.findtext("iothreads") == "2"
    assert attrs(root, "cputune/iothreadpin") == [{"iothread": "1", "cpuset": "2-3"}, {"iothread": "2", "cpuset": "2-3"}]
    assert [attrs(disk, "driver")[0].get("iothread") for disk in root.findall("devices/disk")] == [None, "2"]


def test_fewer_io_threads_drop_the_bases_pins_beyond_them():
    base = ("<domain type='qemu'><name>b</name><memory>65536</memory><vcpu>1</vcpu><iothreads>3</iothreads>"
            "<cputune><iothreadpin iothread='1' cpuset='0'/><iothreadpin iothread='3' cpuset='0'/></cputune></domain>")
    root = wanted({"name": "b", "domain_type": "qemu", "iothreads": 1}, base)
    assert root.findtext("iothreads") == "1"
    assert attrs(root, "cputune/iothreadpin") == [{"iothread": "1", "cpuset": "0"}]
    assert wanted({"name": "b", "domain_type": "qemu", "iothreads": 0}, base).find("iothreads") is None
    # without the option, base_xml's IO threads and pins stay as written
    kept = wanted({"name": "b", "domain_type": "qemu", "cpu": {"emulator_cpuset": "1"}}, base)
    assert kept.findtext("iothreads") == "3" and len(kept.findall("cputune/iothreadpin")) == 2


@pytest.mark.parametrize("disk, iothreads, reason", [
    ({"path": "/a", "iothread": 2}, 1, "the domain has IO threads 1-1"),
    ({"path": "/a", "iothread": 1}, 0, "the domain has no IO thread"),
    ({"path": "/a", "iothread": 0}, 1, "the domain has IO threads 1-1"),
    ({"path": "/a", "iothread": 1, "bus": "sata"}, 1, "only virtio disks"),
])
def test_a_disk_on_an_io_thread_the_domain_lacks_is_refused(disk, iothreads, reason):
    with pytest.raises(OptionError) as error:
        build_spec(options(iothreads=iothreads, disks=[disk]), HOST)
    assert str(error.value).startswith("disks[0].iothread") and reason in str(error.value)


def test_negative_io_threads_are_refused():
    with pytest.raises(OptionError) as error:
        build_spec(options(iothreads=-1), HOST)
    assert str(error.value).startswith("iothreads")


def test_shared_emulator_runs_on_the_cpus_of_the_vcpus_outside_the_mask():
    opts = options(vcpus=3, cpu={"mode": "maximum", "emulator_policy": "share", "pinning": [
        {"vcpu": 0, "cpuset": "1"}, {"vcpu": 1, "cpuset": "2"}, {"vcpu": 2, "cpuset": "3"}]}, realtime={"mask": "1"})
    root = wanted(opts)
    assert attrs(root, "cputune/emulatorpin") == [{"cpuset": "1,3"}]
    assert attrs(root, "cputune/iothreadpin") == [{"iothread": "1", "cpuset": "1,3"}]


@pytest.mark.parametrize("cpu, realtime, reason", [
    ({"emulator_cpuset": "0"}, {"mask": "^1"}, "cpu.emulator_cpuset (0) cannot be given too"),
    ({}, None, "needs a real-time domain"),
    ({}, {"mask": ""}, "every vCPU real-time"),
])
def test_a_share_that_cannot_hold_is_refused(cpu, realtime, reason):
    cpu = dict(cpu, mode="maximum", emulator_policy="share",
               pinning=[{"vcpu": 0, "cpuset": "1"}, {"vcpu": 1, "cpuset": "0"}])
    with pytest.raises(OptionError) as error:
        build_spec(options(cpu=cpu, realtime=realtime), HOST)
    assert str(error.value).startswith("cpu.emulator_policy") and reason in str(error.value)
