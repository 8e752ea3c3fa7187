# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.observe import (
    observe_hostdev,
    observe_process,
    parse_domain_xml,
)

XML = """<domain type='qemu'>
  <name>vm1</name>
  <memory unit='KiB'>131072</memory>
  <vcpu placement='static'>3</vcpu>
  <cputune>
    <vcpupin vcpu='1' cpuset='3'/>
    <vcpupin vcpu='0' cpuset='2'/>
    <emulatorpin cpuset='0-1'/>
    <vcpusched vcpus='0-2,^1' scheduler='fifo' priority='7'/>
  </cputune>
  <memoryBacking><hugepages><page size='2048' unit='KiB'/></hugepages><nosharepages/></memoryBacking>
  <numatune><memory mode='strict' nodeset='0'/></numatune>
  <devices>
    <hostdev mode='subsystem' type='pci' managed='yes'>
      <source><address domain='0x0000' bus='0x6b' slot='0x00' function='0x1'/></source>
    </hostdev>
    <serial type='file'><source path='/var/log/x.log'/></serial>
  </devices>
</domain>"""


def test_parse_domain_xml():
    info = parse_domain_xml(XML)
    assert info["name"] == "vm1"
    assert info["vcpus"] == 3
    assert info["memory_kib"] == 131072
    assert info["pinning"] == [{"vcpu": 0, "cpus": [2]}, {"vcpu": 1, "cpus": [3]}]
    assert info["emulator_cpus"] == [0, 1]
    assert info["realtime"] == {"vcpus": [0, 2], "scheduler": "fifo", "priority": 7}
    assert info["hugepages"] == {"page_size_kib": 2048}
    assert info["nosharepages"] is True
    assert info["locked"] is False
    assert info["numatune_nodeset"] == "0"
    assert info["hostdevs"] == ["0000:6b:00.1"]
    assert info["serial_log"] == "/var/log/x.log"


def test_parse_plain_domain():
    info = parse_domain_xml("<domain type='kvm'><name>p</name><memory>1024</memory><vcpu>1</vcpu></domain>")
    assert info["realtime"] is None
    assert info["hugepages"] is None
    assert info["pinning"] == []


def test_observe_process_and_hostdev(tmp_path):
    (tmp_path / "run/libvirt/qemu").mkdir(parents=True)
    (tmp_path / "run/libvirt/qemu/vm1.pid").write_text("4242")
    task = tmp_path / "proc/4242/task/4250"
    task.mkdir(parents=True)
    (task / "comm").write_text("CPU 0/KVM\n")
    fields = ["S"] + ["0"] * 36 + ["7", "1"] + ["0"] * 10
    (task / "stat").write_text("4250 (CPU 0/KVM) " + " ".join(fields) + "\n")
    (task / "status").write_text("Name:\tCPU 0/KVM\nCpus_allowed_list:\t2\n")
    (tmp_path / "proc/4242/smaps_rollup").write_text("Private_Hugetlb:    2048 kB\n")
    (tmp_path / "sys/bus/pci/devices/0000:6b:00.1").mkdir(parents=True)
    (tmp_path / "sys/bus/pci/drivers/vfio-pci").mkdir(parents=True)
    (tmp_path / "sys/bus/pci/devices/0000:6b:00.1/driver").symlink_to("../../drivers/vfio-pci")
    reader = HostReader(str(tmp_path))
    seen = observe_process(reader, "vm1")
    assert seen == {"pid": 4242, "hugetlb_kib": 2048,
                    "vcpu_threads": [{"vcpu": 0, "tid": 4250, "policy": "SCHED_FIFO", "priority": 7, "affinity": "2"}]}
    assert observe_hostdev(reader, "0000:6b:00.1") == {"address": "0000:6b:00.1", "driver": "vfio-pci"}
    assert observe_process(reader, "absent") == {"pid": None, "vcpu_threads": [], "hugetlb_kib": None}
