# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""/proc reading: vCPU threads of a QEMU process, their scheduling, hugetlb use."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._kernel import proc
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader


def test_vcpu_threads_are_read_from_proc(tmp_path):
    base = tmp_path / "proc" / "42" / "task"
    for tid, comm, prio, policy, cpus in ((43, "CPU 0/TCG", 1, 1, "1"), (44, "CPU 1/TCG", 0, 0, "2"), (45, "qemu-system-x86", 0, 0, "0-3")):
        (base / str(tid)).mkdir(parents=True)
        (base / str(tid) / "comm").write_text(comm + "\n")
        fields = ["S"] + ["0"] * 36 + [str(prio), str(policy)] + ["0"] * 10
        (base / str(tid) / "stat").write_text("%d (%s) %s\n" % (tid, comm, " ".join(fields)))
        (base / str(tid) / "status").write_text("Name:\t%s\nCpus_allowed_list:\t%s\n" % (comm, cpus))
    threads = proc.vcpu_threads(HostReader(str(tmp_path)), 42)
    assert threads == [
        {"vcpu": 0, "tid": 43, "policy": "SCHED_FIFO", "priority": 1, "affinity": "1"},
        {"vcpu": 1, "tid": 44, "policy": "SCHED_OTHER", "priority": 0, "affinity": "2"},
    ]


def test_parse_hugetlb():
    text = "Rss: 100 kB\nShared_Hugetlb:        0 kB\nPrivate_Hugetlb:    16384 kB\nSwap: 0 kB\n"
    assert proc.parse_hugetlb(text) == 16384
    assert proc.parse_hugetlb(None) == 0
