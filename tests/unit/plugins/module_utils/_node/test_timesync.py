# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time-sync facts (NIC timestamping, time daemons, clocksource) and the time_sync readiness line.

The ioctl is faked with ``struct ethtool_ts_info`` bytes packed here from
literals: so_timestamping bits of linux/net_tstamp.h written as numbers
(TX_HARDWARE 1, TX_SOFTWARE 2, RX_HARDWARE 4, RX_SOFTWARE 8, SOFTWARE 16,
SYS_HARDWARE 32, RAW_HARDWARE 64), not taken from the code under test.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import struct

import pytest

import rt_node_trees

from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._node import timesync
from ansible_collections.realtime.virt.plugins.module_utils._node.gather import gather_node_facts
from ansible_collections.realtime.virt.plugins.module_utils._node.readiness import checks

# cmd, so_timestamping, phc_index, tx_types, tx_reserved[3], rx_filters, rx_reserved[3]
LAYOUT = "=IIiI3II3I"
# an Intel i210-style NIC: hardware and software timestamps both ways, raw hardware clock, /dev/ptp2
# (1 + 2 + 4 + 8 + 16 + 64 = 95); tx_types off+on (3), rx_filters none+all (3)
HARDWARE_NIC = struct.pack(LAYOUT, 0x41, 95, 2, 3, 0, 0, 0, 3, 0, 0, 0)
# what this machine's veth (and lo, eth0) report: software-transmit, software-receive,
# software-system-clock (2 + 8 + 16 = 26), PTP Hardware Clock: none (-1)
SOFTWARE_ONLY = struct.pack(LAYOUT, 0x41, 26, -1, 0, 0, 0, 0, 0, 0, 0, 0)
# ifb: software-receive and software-system-clock only (8 + 16 = 24)
RECEIVE_ONLY = struct.pack(LAYOUT, 0x41, 24, -1, 0, 0, 0, 0, 0, 0, 0, 0)

UNKNOWN_FLAGS = {"hardware_transmit": None, "hardware_receive": None, "hardware_raw_clock": None,
                 "software_transmit": None, "software_receive": None, "software_system_clock": None}
NO_DAEMON = {"ptp4l": [], "phc2sys": [], "ts2phc": [], "timemaster": [], "chronyd": [], "ntpd": [],
             "systemd-timesyncd": []}


def test_the_structure_is_the_kernels_44_bytes():
    assert len(HARDWARE_NIC) == 44


def test_a_hardware_nic_decodes_as_ethtool_prints_it():
    assert timesync.decode_ts_info(HARDWARE_NIC) == {
        "hardware_transmit": True, "hardware_receive": True, "hardware_raw_clock": True,
        "software_transmit": True, "software_receive": True, "software_system_clock": True, "phc_index": 2}


def test_a_veth_has_software_timestamps_and_no_clock():
    assert timesync.decode_ts_info(SOFTWARE_ONLY) == {
        "hardware_transmit": False, "hardware_receive": False, "hardware_raw_clock": False,
        "software_transmit": True, "software_receive": True, "software_system_clock": True, "phc_index": None}


@pytest.mark.parametrize("bits, expected_true", [
    (1, ["hardware_transmit"]), (2, ["software_transmit"]), (4, ["hardware_receive"]), (8, ["software_receive"]),
    (16, ["software_system_clock"]), (32, []), (64, ["hardware_raw_clock"]),
])
def test_each_bit_is_its_flag(bits, expected_true):
    decoded = timesync.decode_ts_info(struct.pack(LAYOUT, 0x41, bits, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    assert sorted(name for name, value in decoded.items() if value is True) == expected_true
    assert decoded["phc_index"] == 0


def net_tree(tmp_path, interfaces, extra=None):
    """A tree with /sys/class/net/<name> for each name (and lo, and bonding_masters, a file)."""
    tree = rt_node_trees.Tree(str(tmp_path))
    for name in ("lo",) + tuple(interfaces):
        tree.write("/sys/class/net/%s/ifindex" % name, "1\n")
    tree.write("/sys/class/net/bonding_masters", "\n")
    for path, text in (extra or {}).items():
        if text is None:
            tree.mkdir(path)
        else:
            tree.write(path, text)
    return HostReader(str(tmp_path))


def fake_ioctl(answers, asked):
    def ioctl(name):
        asked.append(name)
        answer = answers[name]
        if isinstance(answer, Exception):
            raise answer
        return answer
    return ioctl


def test_live_host_asks_the_kernel_for_each_interface_but_lo(tmp_path):
    reader = net_tree(tmp_path, ["veth9", "enp1s0"])
    asked = []
    found = timesync.read_time_sync(reader, fake_ioctl({"enp1s0": HARDWARE_NIC, "veth9": SOFTWARE_ONLY}, asked),
                                    live=True)
    assert sorted(asked) == ["enp1s0", "veth9"]
    assert found["interfaces"] == [
        {"name": "enp1s0", "hardware_transmit": True, "hardware_receive": True, "hardware_raw_clock": True,
         "software_transmit": True, "software_receive": True, "software_system_clock": True,
         "phc_index": 2, "phc_device": "/dev/ptp2", "source": "kernel", "error": None},
        {"name": "veth9", "hardware_transmit": False, "hardware_receive": False, "hardware_raw_clock": False,
         "software_transmit": True, "software_receive": True, "software_system_clock": True,
         "phc_index": None, "phc_device": None, "source": "kernel", "error": None},
    ]
    assert found["hardware_clock"] is True
    assert reader.warnings == []


def test_software_only_interfaces_have_no_hardware_clock(tmp_path):
    reader = net_tree(tmp_path, ["veth9", "ifb0"])
    found = timesync.read_time_sync(reader, fake_ioctl({"veth9": SOFTWARE_ONLY, "ifb0": RECEIVE_ONLY}, []), live=True)
    assert found["hardware_clock"] is False
    assert [(nic["name"], nic["software_transmit"], nic["software_receive"]) for nic in found["interfaces"]] == [
        ("ifb0", False, True), ("veth9", True, True)]


def test_ioctl_errors_are_named_not_raised(tmp_path):
    reader = net_tree(tmp_path, ["eth0", "gone0", "odd0"])
    answers = {"eth0": OSError(errno.EOPNOTSUPP, "Operation not supported"),
               "gone0": OSError(errno.ENODEV, "No such device"),
               "odd0": b"\x41\x00\x00\x00"}
    found = timesync.read_time_sync(reader, fake_ioctl(answers, []), live=True)
    eth0, gone0, odd0 = found["interfaces"]
    assert eth0 == {"name": "eth0", "hardware_transmit": False, "hardware_receive": False, "hardware_raw_clock": False,
                    "software_transmit": None, "software_receive": None, "software_system_clock": None,
                    "phc_index": None, "phc_device": None, "source": "kernel",
                    "error": "EOPNOTSUPP: Operation not supported"}
    assert gone0 == dict(UNKNOWN_FLAGS, name="gone0", phc_index=None, phc_device=None, source="kernel",
                         error="ENODEV: No such device")
    assert odd0["error"].startswith("error: ") and odd0["hardware_transmit"] is None
    assert found["hardware_clock"] is False
    assert reader.warnings == []


def test_a_captured_tree_reads_the_clock_from_sysfs(tmp_path):
    reader = net_tree(tmp_path, ["ens1f0", "veth0"], {
        "/sys/class/net/ens1f0/device/ptp/ptp3/clock_name": "igb\n",
        "/sys/class/net/ens1f0/device/ptp/ptp11": None,
        "/sys/class/net/ens1f0/device/vendor": "0x8086\n",
    })

    def refuse(name):
        raise AssertionError("no ioctl on a captured tree (asked for %s)" % name)

    found = timesync.read_time_sync(reader, refuse)
    assert found["interfaces"] == [
        dict(UNKNOWN_FLAGS, name="ens1f0", phc_index=3, phc_device="/dev/ptp3", source="sysfs", error=None),
        dict(UNKNOWN_FLAGS, name="veth0", phc_index=None, phc_device=None, source="sysfs", error=None),
    ]
    assert found["hardware_clock"] is True
    assert reader.warnings == []


def test_daemons_by_their_comm(tmp_path):
    tree = rt_node_trees.Tree(str(tmp_path))
    for pid, comm in ((100, "ptp4l"), (101, "phc2sys"), (7, "systemd-timesyn"), (200, "ntpd"), (201, "ntpd"),
                      (300, "chronyd-helper"), (5, "kworker/0:1"), (1, "systemd")):
        tree.write("/proc/%d/comm" % pid, comm + "\n")
    tree.mkdir("/proc/400")          # a process that ended before its comm was read
    tree.write("/proc/self/comm", "ptp4l\n")   # not a pid
    reader = HostReader(str(tmp_path))
    found = timesync.read_time_sync(reader, live=False)
    assert found["daemons"] == dict(NO_DAEMON, ptp4l=[100], phc2sys=[101], ntpd=[200, 201],
                                    **{"systemd-timesyncd": [7]})
    assert found["ptp_running"] is True
    assert found["synchronised_by"] == ["ptp4l", "phc2sys", "ntpd", "systemd-timesyncd"]
    assert reader.warnings == []


def test_no_process_listed_means_unknown(tmp_path):
    rt_node_trees.Tree(str(tmp_path)).write("/proc/cmdline", "ro\n")
    found = timesync.read_time_sync(HostReader(str(tmp_path)), live=False)
    assert (found["daemons"], found["ptp_running"], found["synchronised_by"]) == (None, None, None)


@pytest.mark.parametrize("current, available, expected", [
    ("tsc\n", "tsc hpet acpi_pm \n", {"current": "tsc", "available": ["tsc", "hpet", "acpi_pm"], "kvm_clock": False}),
    ("kvm-clock\n", "kvm-clock tsc acpi_pm \n",
     {"current": "kvm-clock", "available": ["kvm-clock", "tsc", "acpi_pm"], "kvm_clock": True}),
    (None, None, {"current": None, "available": None, "kvm_clock": None}),
])
def test_clocksource(tmp_path, current, available, expected):
    tree = rt_node_trees.Tree(str(tmp_path))
    base = "/sys/devices/system/clocksource/clocksource0/"
    if current is not None:
        tree.write(base + "current_clocksource", current)
        tree.write(base + "available_clocksource", available)
    reader = HostReader(str(tmp_path))
    assert timesync.read_time_sync(reader, live=False)["clocksource"] == expected
    assert reader.warnings == []


# -- the readiness line -----------------------------------------------


def time_sync_line(time_sync):
    found = [item for item in checks({"time_sync": time_sync}) if item["id"] == "time_sync"]
    assert len(found) == 1
    return found[0]


def nic(name, phc):
    return dict(UNKNOWN_FLAGS, name=name, phc_index=phc, phc_device=None if phc is None else "/dev/ptp%d" % phc,
                source="kernel", error=None)


def facts_of(nics, running):
    daemons = dict(NO_DAEMON)
    for index, name in enumerate(running):
        daemons[name] = [100 + index]
    return timesync.summarise(nics, daemons, {"current": "tsc", "available": ["tsc"], "kvm_clock": False})


def test_ptp_on_a_hardware_clock_is_ready():
    line = time_sync_line(facts_of([nic("eth0", 2), nic("veth0", None)], ["ptp4l", "phc2sys"]))
    assert line["ready"] is True and line["blocker"] is False
    assert line["title"] == "Time synchronisation (PTP with a hardware clock)"
    assert line["observed"] == ("PTP hardware clocks: eth0 (/dev/ptp2); clock synchronised by: ptp4l, phc2sys; "
                                "clocksource: tsc")


def test_no_hardware_clock_and_nothing_running_names_both_fixes():
    line = time_sync_line(facts_of([nic("veth0", None)], []))
    assert line["ready"] is False and line["blocker"] is False
    assert line["observed"] == "PTP hardware clocks: none; clock synchronised by: nothing; clocksource: tsc"
    assert "no interface has a PTP hardware clock (ethtool -T shows 'PTP Hardware Clock: none')" in line["problem"]
    assert ("nothing synchronises the clock (no ptp4l, phc2sys, chronyd, ntpd, systemd-timesyncd running)"
            in line["problem"])
    assert line["fix"] == ("a NIC with hardware timestamping for sub-microsecond PTP, or allow software timestamping "
                           "in realtime.virt.ptp; run the realtime.virt.ptp role.")


def test_ptp_with_software_timestamps_only_warns_about_the_clock():
    line = time_sync_line(facts_of([nic("veth0", None)], ["ptp4l"]))
    assert line["ready"] is False
    assert line["fix"] == ("a NIC with hardware timestamping for sub-microsecond PTP, or allow software timestamping "
                           "in realtime.virt.ptp.")
    assert "nothing synchronises" not in line["problem"]


def test_ntp_alone_on_a_ptp_capable_host_asks_for_ptp():
    line = time_sync_line(facts_of([nic("eth0", 0)], ["chronyd"]))
    assert line["ready"] is False
    assert "PTP does not run (ptp4l is not running; the clock is kept by chronyd)" in line["problem"]
    assert line["fix"] == "run the realtime.virt.ptp role."


def test_without_time_sync_facts_the_line_says_unknown():
    line = time_sync_line(None)
    assert line["ready"] is False
    assert "unknown (no process under /proc)" in line["observed"]


def test_gathered_facts_carry_time_sync_and_the_line_is_last_and_no_blocker(tmp_path):
    root = rt_node_trees.build_shape(str(tmp_path), "two_socket_smt")
    tree = rt_node_trees.Tree(root)
    tree.write("/sys/class/net/ens1f0/device/ptp/ptp1/clock_name", "ice\n")
    tree.write("/proc/4242/comm", "ptp4l\n")
    # rt_priority (field 40) 10, policy (field 41) 1: SCHED_FIFO; allowed on CPUs 0-1 and 16
    tree.write("/proc/4242/task/4242/stat", "4242 (ptp4l) S" + " 0" * 36 + " 10 1 0 0 0\n")
    tree.write("/proc/4242/task/4242/status", "Name:\tptp4l\nCpus_allowed_list:\t0-1,16\n")
    tree.write("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n")
    tree.write("/sys/devices/system/clocksource/clocksource0/available_clocksource", "tsc hpet acpi_pm \n")
    facts, warnings = gather_node_facts(root)
    assert warnings == []
    assert facts["time_sync"] == {
        "interfaces": [dict(UNKNOWN_FLAGS, name="ens1f0", phc_index=1, phc_device="/dev/ptp1", source="sysfs",
                            error=None)],
        "daemons": dict(NO_DAEMON, ptp4l=[4242]),
        "processes": [{"name": "ptp4l", "pid": 4242, "cpus_allowed": [0, 1, 16], "policy": "SCHED_FIFO",
                       "priority": 10}],
        "ptp_running": True,
        "synchronised_by": ["ptp4l"],
        "clocksource": {"current": "tsc", "available": ["tsc", "hpet", "acpi_pm"], "kvm_clock": False},
        "hardware_clock": True,
    }
    last = facts["realtime_checks"][-1]
    assert (last["id"], last["ready"], last["blocker"]) == ("time_sync", True, False)
    assert facts["realtime_ready"] is True


# -- the real ioctl, checked against what sysfs says --------------------


def test_the_real_ioctl_on_lo_agrees_with_sysfs():
    """lo exists in every network namespace and has no device, so sysfs shows no PTP clock for it."""
    assert os.path.isdir("/sys/class/net/lo") and not os.path.exists("/sys/class/net/lo/device/ptp")
    data = timesync.kernel_ts_info("lo")
    assert len(data) == 44
    assert struct.unpack(LAYOUT, data)[0] == 0x41   # the kernel copies the command back
    assert timesync.decode_ts_info(data)["phc_index"] is None


def test_the_real_ioctl_on_an_absent_interface_is_enodev():
    name = "rtvirt-none0"
    assert not os.path.exists("/sys/class/net/" + name)
    with pytest.raises(OSError) as info:
        timesync.kernel_ts_info(name)
    assert info.value.errno == errno.ENODEV
