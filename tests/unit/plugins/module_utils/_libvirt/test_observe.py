# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.observe import (
    DomainObserver,
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
    <iothreadpin iothread='2' cpuset='1'/>
    <iothreadpin iothread='1' cpuset='0,5-6'/>
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
    assert info["iothread_pins"] == [{"iothread": 1, "cpus": [0, 5, 6]}, {"iothread": 2, "cpus": [1]}]
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
    assert info["iothread_pins"] == []


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
    assert seen == {"pid": 4242, "hugetlb_kib": 2048, "iothread_threads": [], "emulator_threads": [],
                    "vcpu_threads": [{"vcpu": 0, "tid": 4250, "policy": "SCHED_FIFO", "priority": 7, "affinity": "2"}]}
    assert observe_hostdev(reader, "0000:6b:00.1") == {"address": "0000:6b:00.1", "driver": "vfio-pci"}
    assert observe_process(reader, "absent") == {"pid": None, "vcpu_threads": [], "iothread_threads": [],
                                                 "emulator_threads": [], "hugetlb_kib": None}


def write_thread(proc_dir, pid, tid, comm, cpus, priority=0, policy=0):
    task = proc_dir / str(pid) / "task" / str(tid)
    task.mkdir(parents=True)
    (task / "comm").write_text(comm + "\n")
    fields = ["S"] + ["0"] * 36 + [str(priority), str(policy)] + ["0"] * 10
    (task / "stat").write_text("%d (%s) %s\n" % (tid, comm, " ".join(fields)))
    (task / "status").write_text("Name:\t%s\nCpus_allowed:\tff\nCpus_allowed_list:\t%s\n" % (comm, cpus))


def test_observe_process_sorts_the_threads_of_qemu(tmp_path):
    # the threads libvirt 9.0 / QEMU 7.2 (TCG) showed for <iothreads>1</iothreads>, emulatorpin 0,
    # iothreadpin 1 -> 0, vcpupin 0 -> 1 and 1 -> 0; the worker at 4300 is not pinned (moved by hand)
    (tmp_path / "run/libvirt/qemu").mkdir(parents=True)
    (tmp_path / "run/libvirt/qemu/vm1.pid").write_text("4242\n")
    for tid, comm, cpus, priority, policy in ((4242, "qemu-system-x86", "0", 0, 0), (4243, "call_rcu", "0", 0, 0),
                                              (4244, "IO iothread1", "0", 0, 0), (4245, "IO mon_iothread", "0", 0, 0),
                                              (4246, "CPU 0/TCG", "1", 1, 1), (4247, "CPU 1/TCG", "0", 0, 0),
                                              (4300, "worker", "0-3", 0, 0)):
        write_thread(tmp_path / "proc", 4242, tid, comm, cpus, priority, policy)
    seen = observe_process(HostReader(str(tmp_path)), "vm1")
    assert seen["vcpu_threads"] == [
        {"vcpu": 0, "tid": 4246, "policy": "SCHED_FIFO", "priority": 1, "affinity": "1"},
        {"vcpu": 1, "tid": 4247, "policy": "SCHED_OTHER", "priority": 0, "affinity": "0"},
    ]
    assert seen["iothread_threads"] == [
        {"iothread": 1, "tid": 4244, "policy": "SCHED_OTHER", "priority": 0, "affinity": "0", "cpus": [0]},
    ]
    assert seen["emulator_threads"] == [
        {"tid": 4242, "comm": "qemu-system-x86", "policy": "SCHED_OTHER", "priority": 0, "affinity": "0", "cpus": [0]},
        {"tid": 4243, "comm": "call_rcu", "policy": "SCHED_OTHER", "priority": 0, "affinity": "0", "cpus": [0]},
        {"tid": 4245, "comm": "IO mon_iothread", "policy": "SCHED_OTHER", "priority": 0, "affinity": "0",
         "cpus": [0]},
        {"tid": 4300, "comm": "worker", "policy": "SCHED_OTHER", "priority": 0, "affinity": "0-3",
         "cpus": [0, 1, 2, 3]},
    ]


def test_a_thread_that_exits_while_read_is_left_out(tmp_path):
    write_thread(tmp_path / "proc", 7, 7, "qemu-system-x86", "0")
    write_thread(tmp_path / "proc", 7, 8, "worker", "0")
    (tmp_path / "proc/7/task/8/stat").unlink()
    (tmp_path / "proc/7/task/9").mkdir()
    (tmp_path / "run").mkdir()
    (tmp_path / "run/q.pid").write_text("7")
    seen = observe_process(HostReader(str(tmp_path)), "q", pid_file="/run/q.pid")
    assert [thread["tid"] for thread in seen["emulator_threads"]] == [7]


class FakeDomain(object):
    def __init__(self, xml, active):
        self.xml, self.active = xml, active

    def name(self):
        return parse_domain_xml(self.xml)["name"]

    def isActive(self):
        return self.active

    def XMLDesc(self, flags):
        return self.xml

    def UUIDString(self):
        return "00000000-0000-0000-0000-000000000001"


class FakeConnection(object):
    def __init__(self, domains):
        self.domains = domains

    def listAllDomains(self, flags):
        return self.domains

    def close(self):
        pass


def test_observer_reports_the_threads_of_running_domains_only(tmp_path):
    (tmp_path / "run/libvirt/qemu").mkdir(parents=True)
    (tmp_path / "run/libvirt/qemu/vm1.pid").write_text("4242\n")
    write_thread(tmp_path / "proc", 4242, 4242, "qemu-system-x86", "0-1")
    write_thread(tmp_path / "proc", 4242, 4244, "IO iothread2", "1")
    off = XML.replace("<name>vm1</name>", "<name>vm0</name>")
    connection = FakeConnection([FakeDomain(XML, True), FakeDomain(off, False)])
    observer = DomainObserver("qemu:///system", lambda uri: connection, reader=HostReader(str(tmp_path)))
    domains, missing = observer.run()
    assert missing == []
    assert [(d["name"], d["running"], d["pid"]) for d in domains] == [("vm0", False, None), ("vm1", True, 4242)]
    pins = [{"iothread": 1, "cpus": [0, 5, 6]}, {"iothread": 2, "cpus": [1]}]
    assert domains[0]["iothread_pins"] == domains[1]["iothread_pins"] == pins
    assert (domains[0]["iothread_threads"], domains[0]["emulator_threads"]) == ([], [])
    assert domains[1]["iothread_threads"] == [{"iothread": 2, "tid": 4244, "policy": "SCHED_OTHER", "priority": 0,
                                               "affinity": "1", "cpus": [1]}]
    assert domains[1]["emulator_threads"] == [{"tid": 4242, "comm": "qemu-system-x86", "policy": "SCHED_OTHER",
                                               "priority": 0, "affinity": "0-1", "cpus": [0, 1]}]
