# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Comparison of the wanted domain with libvirt-normalised XML.

LIBVIRT_XML is what libvirt 9.0 (Debian 12) stored for the domain that
OPTIONS describe (``virsh dumpxml --inactive``): it adds a UUID, arch and
versioned machine type, placement, check, clock, on_* actions,
controllers, inputs, audio, a console mirroring the serial port and PCI
addresses.  None of that is a difference.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._libvirt.compare import differences
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.render import render
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.devices import device_kinds
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import parse_xml
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import build_spec
from libvirt_compare import compare_with_libvirt  # noqa: E402  (tests/unit/fixtures, put on the path by conftest)

HOST = {"online": [0, 1], "hugepage_sizes_kib": [2048, 1048576], "numa_nodes": {0: [0, 1]}, "devices": {"/dev/random", "/dev/urandom"}}

OPTIONS = {
    "name": "rtsmoke", "domain_type": "qemu", "memory_mib": 128, "vcpus": 2,
    "cpu": {"mode": "maximum", "pinning": [{"vcpu": 0, "cpuset": "1"}, {"vcpu": 1, "cpuset": "0"}],
            "emulator_cpuset": "0", "numa": {"passthrough": True}},
    "realtime": {"mask": "0-1,^1"},
    "memory": {"locked": False, "hugepages": {"page_size": "2M"}},
    "rng": {"rate": {"bytes": 1024, "period": 1000}},
    "serial_log": "/tmp/rtsmoke.log",
    "hardening": {"enabled": False},  # test_hardening.py compares a hardened domain
}

LIBVIRT_XML = """<domain type='qemu'>
  <name>rtsmoke</name>
  <uuid>fa82259b-b9ba-4210-a652-313ace4b4f11</uuid>
  <memory unit='KiB'>131072</memory>
  <currentMemory unit='KiB'>131072</currentMemory>
  <memoryBacking>
    <hugepages>
      <page size='2048' unit='KiB'/>
    </hugepages>
    <nosharepages/>
  </memoryBacking>
  <vcpu placement='static'>2</vcpu>
  <cputune>
    <vcpupin vcpu='0' cpuset='1'/>
    <vcpupin vcpu='1' cpuset='0'/>
    <emulatorpin cpuset='0'/>
    <vcpusched vcpus='0' scheduler='fifo' priority='1'/>
  </cputune>
  <numatune>
    <memnode cellid='0' mode='strict' nodeset='0'/>
  </numatune>
  <os>
    <type arch='x86_64' machine='pc-i440fx-7.2'>hvm</type>
    <boot dev='hd'/>
  </os>
  <features>
    <acpi/>
    <apic/>
    <pmu state='off'/>
  </features>
  <cpu mode='maximum' check='none'>
    <numa>
      <cell id='0' cpus='0-1' memory='131072' unit='KiB'/>
    </numa>
  </cpu>
  <clock offset='utc'/>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <controller type='usb' index='0' model='piix3-uhci'>
      <address type='pci' domain='0x0000' bus='0x00' slot='0x01' function='0x2'/>
    </controller>
    <controller type='pci' index='0' model='pci-root'/>
    <serial type='file'>
      <source path='/tmp/rtsmoke.log'/>
      <target type='isa-serial' port='0'>
        <model name='isa-serial'/>
      </target>
    </serial>
    <console type='file'>
      <source path='/tmp/rtsmoke.log'/>
      <target type='serial' port='0'/>
    </console>
    <input type='mouse' bus='ps2'/>
    <input type='keyboard' bus='ps2'/>
    <audio id='1' type='none'/>
    <memballoon model='none'/>
    <rng model='virtio'>
      <rate bytes='1024' period='1000'/>
      <backend model='random'>/dev/random</backend>
      <address type='pci' domain='0x0000' bus='0x00' slot='0x02' function='0x0'/>
    </rng>
  </devices>
</domain>
"""


def diffs(options=None, current_xml=LIBVIRT_XML, edit=None):
    opts = copy.deepcopy(OPTIONS)
    for key, value in (options or {}).items():
        opts[key] = value
    return compare_with_libvirt(opts, HOST, current_xml, edit)


def test_libvirt_defaults_are_not_differences():
    assert diffs() == []


def test_missing_domain_is_a_difference():
    plan = build_spec(OPTIONS, HOST)
    assert differences(render(plan), None) == ["domain: does not exist"]


def _set(path, name, value):
    def edit(root):
        root.find(path).set(name, value)
    return edit


def _remove(path):
    def edit(root):
        node = root.find(path)
        node.getparent().remove(node)
    return edit


def _add(path, xml):
    def edit(root):
        from lxml import etree
        root.find(path).append(etree.fromstring(xml))
    return edit


@pytest.mark.parametrize("options, edit, fragment", [
    ({"realtime": {"mask": "", "priority": 1}}, None, "domain/cputune/vcpusched: attribute vcpus is '0', wanted '0-1'"),
    ({"realtime": {"mask": "0", "priority": 2}}, None, "attribute priority is '1', wanted '2'"),
    ({"realtime": {"mask": "0", "scheduler": "rr"}}, None, "attribute scheduler is 'fifo', wanted 'rr'"),
    ({"realtime": {"enabled": False}}, None, "domain/cputune/vcpusched: not wanted"),
    ({"memory_mib": 256}, None, "domain/memory: value is '131072', wanted '262144'"),
    ({"vcpus": 2, "cpu": {"mode": "maximum", "pinning": [{"vcpu": 0, "cpuset": "0"}, {"vcpu": 1, "cpuset": "0"}],
                          "emulator_cpuset": "0"}}, None, "domain/numatune: not wanted"),
    ({"rng": None}, None, "domain/devices/rng: not wanted"),
    ({"rng": {"rate": {"bytes": 2048, "period": 1000}}}, None, "attribute bytes is '1024', wanted '2048'"),
    ({"rng": {}}, None, "domain/devices/rng/rate: not wanted"),
    ({"serial_log": None}, None, "domain/devices/serial: not wanted"),
    ({"memory": {"locked": True, "hugepages": {"page_size": "2M"}}}, None, "domain/memoryBacking/locked: missing"),
    ({"memory": {"locked": False}}, None, "domain/memoryBacking: not wanted"),
    ({"memory": {"locked": False, "hugepages": {"page_size": "2M", "nodeset": "0"}}}, None, "attribute nodeset is None, wanted '0'"),
    ({"hostdevs": ["0000:6b:00.1"]}, None, "domain/devices/hostdev: missing"),
    ({"cpu": {"mode": "host-model", "pinning": [{"vcpu": 0, "cpuset": "1"}, {"vcpu": 1, "cpuset": "0"}],
              "emulator_cpuset": "0", "numa": {"passthrough": True}}}, None, "attribute mode is 'maximum', wanted 'host-model'"),
    ({"cpu": {"mode": "maximum", "features": [{"name": "tsc-deadline", "policy": "require"}],
              "pinning": [{"vcpu": 0, "cpuset": "1"}, {"vcpu": 1, "cpuset": "0"}], "emulator_cpuset": "0",
              "numa": {"passthrough": True}}}, None, "domain/cpu/feature: missing"),
    ({}, _add("cputune", "<vcpupin vcpu='5' cpuset='1'/>"), "domain/cputune/vcpupin: not wanted"),
    ({}, _add("devices", "<hostdev mode='subsystem' type='pci'><source><address bus='0x01'/></source></hostdev>"),
     "domain/devices/hostdev: not wanted"),
    ({}, _remove("features/pmu"), "domain/features/pmu: missing"),
    ({}, _set("cputune/emulatorpin", "cpuset", "1"), "attribute cpuset is '1', wanted '0'"),
    ({"machine": "q35"}, None, "attribute machine is 'pc-i440fx-7.2', wanted 'q35'"),
])
def test_real_differences_are_found(options, edit, fragment):
    found = diffs(options, edit=edit)
    assert any(fragment in line for line in found), found


def _set_many(*changes):
    def edit(root):
        for path, name, value in changes:
            root.find(path).set(name, value)
    return edit


@pytest.mark.parametrize("edit", [
    _set("cputune/vcpusched", "vcpus", "0-0"),               # same set, other spelling
    _set("cputune/vcpupin", "cpuset", "1-1"),
    _set_many(("cpu/numa/cell", "unit", "MiB"), ("cpu/numa/cell", "memory", "128")),
    _set_many(("memoryBacking/hugepages/page", "unit", "MiB"), ("memoryBacking/hugepages/page", "size", "2")),
    _set("cpu", "migratable", "on"),                          # attributes libvirt adds
    _set("devices/rng", "extra", "x"),
    _add("devices", "<input type='tablet'/>"),                # devices the module does not own
    _add("devices/rng", "<alias name='rng0'/>"),
])
def test_normalised_values_are_not_differences(edit):
    assert diffs(edit=edit) == []


def test_memory_units_are_folded():
    xml = LIBVIRT_XML.replace("<memory unit='KiB'>131072</memory>", "<memory unit='MiB'>128</memory>")
    assert diffs(current_xml=xml) == []
    xml = LIBVIRT_XML.replace("<memory unit='KiB'>131072</memory>", "<memory unit='bytes'>134217728</memory>")
    assert diffs(current_xml=xml) == []


def test_pci_address_and_mac_spellings():
    opts = {"hostdevs": ["0000:6b:00.1"], "interfaces": [{"network": "default", "mac": "52:54:00:AA:BB:CC"}]}
    xml = LIBVIRT_XML.replace("<audio id='1' type='none'/>", """<audio id='1' type='none'/>
      <hostdev mode='subsystem' type='pci' managed='yes'><driver name='vfio'/>
        <source><address domain='0x0' bus='0x6B' slot='0x0' function='0x1'/></source>
        <address type='pci' domain='0x0000' bus='0x00' slot='0x05' function='0x0'/></hostdev>
      <interface type='network'><mac address='52:54:00:aa:bb:cc'/><source network='default'/>
        <model type='virtio'/><address type='pci' domain='0x0000' bus='0x00' slot='0x03' function='0x0'/></interface>""")
    assert diffs(opts, current_xml=xml) == []


def test_machine_alias_matches_versioned_name():
    xml = LIBVIRT_XML.replace("machine='pc-i440fx-7.2'", "machine='pc-q35-7.2'")
    assert diffs({"machine": "q35"}, current_xml=xml) == []
    assert diffs({"machine": "pc"}) == []


def test_kept_mac_is_not_a_difference():
    xml = LIBVIRT_XML.replace("<audio id='1' type='none'/>", """<audio id='1' type='none'/>
      <interface type='network'><mac address='52:54:00:12:34:56'/><source network='default'/><model type='virtio'/></interface>""")
    assert diffs({"interfaces": [{"network": "default"}]}, current_xml=xml) == []


# ---- what libvirt rewrites in a user's XML (found on the corpus of tests/corpus/libvirt_domains) ----

def _base_diffs(base, stored, **options):
    """Differences between a base_xml merged with ``options`` and libvirt's XML of it.

    libvirt's XML is the merged domain with the top-level children of the
    base fragment ``base`` replaced by the fragment ``stored`` (what
    libvirt wrote for them; empty when it wrote nothing).
    """
    from lxml import etree
    params = {"name": "vm", "domain_type": "qemu"}
    params.update(options)
    root = parse_xml(_domain(base))
    plan = build_spec(params, HOST, root)
    wanted = render(plan, root)
    current = copy.deepcopy(wanted)
    for node in etree.fromstring("<x>%s</x>" % base):
        for old in current.findall(node.tag):
            current.remove(old)
    for node in etree.fromstring("<x>%s</x>" % stored):
        current.append(node)
    return differences(wanted, current, device_kinds(plan, True))


def _domain(inner):
    memory = "" if inner.startswith("<memory ") else "<memory unit='KiB'>131072</memory>"
    return "<domain type='qemu'><name>vm</name>%s<vcpu>4</vcpu>%s</domain>" % (memory, inner)


@pytest.mark.parametrize("base, stored", [
    # libvirt 9.0 stores one <vcpusched>/<iothreadsched> per id
    ("<cputune><vcpusched vcpus='2-3' scheduler='rr' priority='1'/><iothreadsched iothreads='1-3,^2' scheduler='batch'/></cputune>",
     "<cputune><vcpusched vcpus='2' scheduler='rr' priority='1'/><vcpusched vcpus='3' scheduler='rr' priority='1'/>"
     "<iothreadsched iothreads='1' scheduler='batch'/><iothreadsched iothreads='3' scheduler='batch'/></cputune>"),
    # sizes in another unit
    ("<memtune><swap_hard_limit unit='KB'>1048576</swap_hard_limit><min_guarantee unit='MiB'>1</min_guarantee></memtune>",
     "<memtune><swap_hard_limit unit='KiB'>1024000</swap_hard_limit><min_guarantee unit='KiB'>1024</min_guarantee></memtune>"),
    # libvirt's "unlimited" is stored as no element at all
    ("<memtune><hard_limit unit='KiB'>9007199254740991</hard_limit></memtune>", ""),
    # a CPU model without a name: libvirt drops it
    ("<cpu mode='host-model'><model fallback='allow'/></cpu>", "<cpu mode='host-model' check='partial'/>"),
])
def test_libvirts_rewrites_of_a_base_are_not_differences(base, stored):
    assert _base_diffs(base, stored) == []


def test_with_numa_cells_memory_is_the_cells_total():
    cells = ("<cpu><numa><cell id='0' cpus='0-1' memory='2' unit='GiB'/><cell id='1' cpus='2-3' memory='2097152' unit='KiB'/>"
             "</numa></cpu><devices><memory model='dimm'><target><size unit='MiB'>512</size><node>1</node></target></memory>"
             "</devices>")
    base = "<memory unit='KiB'>8388608</memory>" + cells
    assert _base_diffs(base, "<memory unit='KiB'>4718592</memory>" + cells) == []
    assert _base_diffs(base, "<memory unit='KiB'>4718592</memory>" + cells.replace("2097152", "1048576")) != []


def test_a_users_own_children_are_kept_and_compared():
    base = "<cputune><shares>2048</shares><iothreadpin iothread='1' cpuset='0'/></cputune>"
    assert _base_diffs(base, base) == []
    assert _base_diffs(base, base.replace("<shares>2048</shares>", "")) == ["domain/cputune/shares: missing <shares>2048"]
    # a vcpusched the base does not have, of a kind the wanted domain lists completely: removed
    extra = base.replace("</cputune>", "<vcpusched vcpus='1' scheduler='idle'/></cputune>")
    assert _base_diffs(base, extra) == ["domain/cputune/vcpusched: not wanted <vcpusched scheduler='idle' vcpus='1'>"]


def test_a_mask_over_two_vcpus_is_not_redefined_every_run():
    """libvirt 9.0 stores vcpus='0-1' as two elements; this was a difference on every run before issue 20."""
    xml = LIBVIRT_XML.replace("<vcpusched vcpus='0' scheduler='fifo' priority='1'/>",
                              "<vcpusched vcpus='0' scheduler='fifo' priority='1'/>"
                              "<vcpusched vcpus='1' scheduler='fifo' priority='1'/>")
    assert diffs({"realtime": {"mask": ""}}, current_xml=xml) == []
    assert diffs({"realtime": {"mask": "", "priority": 2}}, current_xml=xml) == [
        "domain/cputune/vcpusched: attribute priority is '1', wanted '2'"]
