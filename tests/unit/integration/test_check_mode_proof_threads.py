# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The re-apply measurement of check_mode_proof.py: threads read from /proc, and any move reported."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from integration_scripts import load

proof = load("check_mode_proof")


def stat_line(tid, comm, priority, policy):
    # 52 fields (proc(5)); the comm has a space, as the vCPU threads of QEMU have
    fields = [str(tid), "(%s)" % comm, "S"] + ["0"] * 49
    fields[40 - 1] = str(priority)
    fields[41 - 1] = str(policy)
    return " ".join(fields) + "\n"


def make_domain(tmp_path, name, pid, threads):
    run = tmp_path / "run"
    run.mkdir(exist_ok=True)
    (run / ("%s.pid" % name)).write_text("%d\n" % pid)
    (run / ("%s.xml" % name)).write_text("<domstatus/>")
    for tid, (comm, cpus, priority, policy) in threads.items():
        task = tmp_path / "proc" / str(pid) / "task" / str(tid)
        task.mkdir(parents=True)
        (task / "comm").write_text(comm + "\n")
        (task / "status").write_text("Name:\t%s\nCpus_allowed:\tff\nCpus_allowed_list:\t%s\n" % (comm, cpus))
        (task / "stat").write_text(stat_line(tid, comm, priority, policy))


def read(tmp_path):
    return proof.qemu_threads(str(tmp_path / "run"), str(tmp_path / "proc"))


def test_reads_the_emulator_and_vcpu_threads_and_leaves_workers_out(tmp_path):
    make_domain(tmp_path, "rt1", 100, {100: ("qemu-system-x86", "0", 0, 0), 101: ("CPU 0/KVM", "2", 1, 1),
                                       102: ("CPU 1/TCG", "3", 5, 2), 103: ("worker", "0-3", 0, 0)})
    assert read(tmp_path) == {"rt1": {"pid": "100", "threads": {
        "main (emulator)": {"cpus": "0", "priority": 0, "policy": 0},
        "CPU 0/KVM": {"cpus": "2", "priority": 1, "policy": 1},
        "CPU 1/TCG": {"cpus": "3", "priority": 5, "policy": 2}}}}


def test_a_pid_file_without_a_process_is_not_a_running_domain(tmp_path):
    make_domain(tmp_path, "rt1", 100, {100: ("qemu-system-x86", "0", 0, 0)})
    (tmp_path / "run" / "gone.pid").write_text("999\n")
    (tmp_path / "run" / "gone.xml").write_text("<domstatus/>")
    # libvirtd's own lock: a pid file without a status XML, of a live process
    (tmp_path / "run" / "driver.pid").write_text("100\n")
    assert sorted(read(tmp_path)) == ["rt1"]
    assert proof.qemu_threads(str(tmp_path / "nothing"), str(tmp_path / "proc")) == {}


def test_every_kind_of_move_is_reported():
    threads = {"main (emulator)": {"cpus": "0", "priority": 0, "policy": 0},
               "CPU 0/KVM": {"cpus": "1", "priority": 1, "policy": 1}}
    before = {"rt1": {"pid": "100", "threads": threads}, "rt2": {"pid": "200", "threads": threads},
              "rt3": {"pid": "300", "threads": threads}}
    moved = dict(threads, **{"CPU 0/KVM": {"cpus": "0-1", "priority": 1, "policy": 1}})
    demoted = dict(threads, **{"CPU 0/KVM": {"cpus": "1", "priority": 0, "policy": 0}})
    assert proof.thread_changes(before, before) == []
    changes = proof.thread_changes(before, {"rt1": {"pid": "100", "threads": moved},
                                            "rt2": {"pid": "201", "threads": threads}})
    assert changes == ["rt1 thread 'CPU 0/KVM': {'cpus': '1', 'priority': 1, 'policy': 1} -> "
                       "{'cpus': '0-1', 'priority': 1, 'policy': 1}",
                       "rt2 was restarted (pid 200 -> 201)", "rt3 stopped"]
    assert proof.thread_changes({"rt1": before["rt1"]}, {"rt1": {"pid": "100", "threads": demoted}}) != []
