# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time synchronisation of a host tree: what each NIC can timestamp, which time daemons run, the clocksource.

* Each network interface of ``/sys/class/net`` but ``lo``: its timestamping
  capabilities as ``ethtool -T`` shows them.  On the live host (``root`` is
  ``/``) they come from the kernel, through the ``SIOCETHTOOL`` ioctl with
  ``ETHTOOL_GET_TS_INFO``, which fills ``struct ethtool_ts_info``
  (``linux/ethtool.h``)::

      u32 cmd; u32 so_timestamping; s32 phc_index; u32 tx_types;
      u32 tx_reserved[3]; u32 rx_filters; u32 rx_reserved[3];

  ``so_timestamping`` holds the ``SOF_TIMESTAMPING_*`` bits of
  ``linux/net_tstamp.h``; ``phc_index`` is the N of the PTP hardware clock
  ``/dev/ptpN``, -1 for none.  A captured tree has no kernel to ask: the
  PHC comes from ``/sys/class/net/<if>/device/ptp/ptpN`` and the
  capabilities are unknown (None), with ``source`` ``sysfs``.  An ioctl the
  kernel refuses is named in ``error``; for ``EOPNOTSUPP`` (the driver
  tells nothing) the hardware capabilities are False, the rest unknown.
* The time daemons: ``/proc/<pid>/comm`` of every process.  The kernel
  cuts ``comm`` to 15 characters (``systemd-timesyn``); ntpd, NTPsec and
  OpenNTPD all run as ``ntpd``.
* The clocksource: ``/sys/devices/system/clocksource/clocksource0``.

Everything here is optional: a tree without these files gives None, no
warning (a sosreport or a chroot often lacks them).  The decoding is pure
(:func:`decode_ts_info`); the ioctl is one injectable function.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import array
import errno
import fcntl
import socket
import struct

from ansible_collections.realtime.virt.plugins.module_utils._kernel import proc
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader

NET = "/sys/class/net"
CLOCKSOURCE = "/sys/devices/system/clocksource/clocksource0"

SIOCETHTOOL = 0x8946
ETHTOOL_GET_TS_INFO = 0x41
IFNAMSIZ = 16
# struct ethtool_ts_info, native byte order, no padding (every field 4 bytes): 44 bytes
TS_INFO = struct.Struct("=IIiI3II3I")

# linux/net_tstamp.h
SOF_TIMESTAMPING_TX_HARDWARE = 1 << 0
SOF_TIMESTAMPING_TX_SOFTWARE = 1 << 1
SOF_TIMESTAMPING_RX_HARDWARE = 1 << 2
SOF_TIMESTAMPING_RX_SOFTWARE = 1 << 3
SOF_TIMESTAMPING_SOFTWARE = 1 << 4
SOF_TIMESTAMPING_SYS_HARDWARE = 1 << 5
SOF_TIMESTAMPING_RAW_HARDWARE = 1 << 6

# fact name -> bit, in the order ethtool -T prints them
HARDWARE_FLAGS = (
    ("hardware_transmit", SOF_TIMESTAMPING_TX_HARDWARE),
    ("hardware_receive", SOF_TIMESTAMPING_RX_HARDWARE),
    ("hardware_raw_clock", SOF_TIMESTAMPING_RAW_HARDWARE),
)
SOFTWARE_FLAGS = (
    ("software_transmit", SOF_TIMESTAMPING_TX_SOFTWARE),
    ("software_receive", SOF_TIMESTAMPING_RX_SOFTWARE),
    ("software_system_clock", SOF_TIMESTAMPING_SOFTWARE),
)
FLAGS = HARDWARE_FLAGS + SOFTWARE_FLAGS

# /proc/<pid>/comm -> daemon name (comm is cut to 15 characters)
DAEMON_COMMS = {
    "ptp4l": "ptp4l",
    "phc2sys": "phc2sys",
    "ts2phc": "ts2phc",
    "timemaster": "timemaster",
    "chronyd": "chronyd",
    "ntpd": "ntpd",
    "systemd-timesyn": "systemd-timesyncd",
}
DAEMONS = ("ptp4l", "phc2sys", "ts2phc", "timemaster", "chronyd", "ntpd", "systemd-timesyncd")
# the daemons that steer a clock of the host (ptp4l and phc2sys: PTP; the rest NTP), in that order
SYNCHRONISERS = ("ptp4l", "phc2sys", "chronyd", "ntpd", "systemd-timesyncd")


def decode_ts_info(data):
    """``struct ethtool_ts_info`` bytes -> ``{flag: bool, ..., phc_index}`` (phc_index None for -1)."""
    fields = TS_INFO.unpack(bytes(data[:TS_INFO.size]))
    so_timestamping, phc_index = fields[1], fields[2]
    result = dict((name, bool(so_timestamping & bit)) for name, bit in FLAGS)
    result["phc_index"] = None if phc_index < 0 else phc_index
    return result


def kernel_ts_info(name):
    """The kernel's ``struct ethtool_ts_info`` of interface ``name`` (bytes); raises OSError as the ioctl does."""
    encoded = name.encode("ascii")
    if len(encoded) >= IFNAMSIZ:
        raise OSError(errno.EINVAL, "interface name longer than %d characters" % (IFNAMSIZ - 1))
    buffer = array.array("B", TS_INFO.pack(ETHTOOL_GET_TS_INFO, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    address = buffer.buffer_info()[0]
    # struct ifreq: the name, then a union whose ifr_data points at the ethtool structure (40 bytes on 64-bit)
    request = struct.pack("%dsP" % IFNAMSIZ, encoded, address)
    request += b"\0" * (40 - len(request))
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        fcntl.ioctl(sock.fileno(), SIOCETHTOOL, request)
    finally:
        sock.close()
    return buffer.tobytes()


def _error_name(error):
    number = getattr(error, "errno", None)
    if number is None:
        code = type(error).__name__
    else:
        # Linux gives EOPNOTSUPP and ENOTSUP one number; the kernel's ethtool code returns EOPNOTSUPP
        code = "EOPNOTSUPP" if number == errno.EOPNOTSUPP else errno.errorcode.get(number, str(number))
    return "%s: %s" % (code, getattr(error, "strerror", None) or error)


def _phc_device(index):
    return None if index is None else "/dev/ptp%d" % index


def sysfs_phc(reader, name):
    """The N of ``/sys/class/net/<name>/device/ptp/ptpN`` (the lowest), or None."""
    indexes = []
    for entry in reader.listdir("%s/%s/device/ptp" % (NET, name), optional=True):
        if entry.startswith("ptp") and entry[3:].isdigit():
            indexes.append(int(entry[3:]))
    return min(indexes) if indexes else None


def interface_entry(reader, name, live, ioctl=None):
    """One interface's timestamping: from the kernel when ``live``, else from sysfs."""
    entry = {"name": name}
    if live:
        try:
            decoded = decode_ts_info((ioctl or kernel_ts_info)(name))
        except (IOError, OSError, struct.error) as error:
            decoded = None
            unsupported = getattr(error, "errno", None) == errno.EOPNOTSUPP
            entry.update((flag, False if unsupported else None) for flag, _bit in HARDWARE_FLAGS)
            entry.update((flag, None) for flag, _bit in SOFTWARE_FLAGS)
            entry.update({"phc_index": None, "phc_device": None, "source": "kernel", "error": _error_name(error)})
        if decoded is not None:
            entry.update(decoded)
            entry.update({"phc_device": _phc_device(decoded["phc_index"]), "source": "kernel", "error": None})
        return entry
    index = sysfs_phc(reader, name)
    entry.update((flag, None) for flag, _bit in FLAGS)
    entry.update({"phc_index": index, "phc_device": _phc_device(index), "source": "sysfs", "error": None})
    return entry


def interface_names(reader):
    """The interfaces of ``/sys/class/net`` but ``lo`` (and files such as ``bonding_masters``), sorted."""
    return [name for name in reader.listdir(NET, optional=True)
            if name != "lo" and reader.exists("%s/%s/" % (NET, name))]


def interfaces(reader, live, ioctl=None):
    return [interface_entry(reader, name, live, ioctl) for name in interface_names(reader)]


def running_daemons(reader):
    """``{daemon: [pids]}`` for every name of DAEMONS, or None when ``/proc`` lists no process.

    ``comm`` is read with a reader of its own whose warnings are dropped:
    a process may end between the listing and the read.
    """
    pids = sorted(int(name) for name in reader.listdir("/proc", optional=True) if name.isdigit())
    if not pids:
        return None
    scratch = HostReader(reader.root)
    found = dict((name, []) for name in DAEMONS)
    for pid in pids:
        comm = scratch.read("/proc/%d/comm" % pid, optional=True)
        daemon = DAEMON_COMMS.get((comm or "").strip())
        if daemon is not None:
            found[daemon].append(pid)
    return found


# The daemons whose placement rt_validate judges (they must stay off the isolated CPUs)
PLACED = ("ptp4l", "phc2sys", "ts2phc", "timemaster")


def placed_processes(reader, daemons):
    """``[{name, pid, cpus_allowed, policy, priority}]`` of the running PTP daemons, or None without ``/proc``."""
    if daemons is None:
        return None
    scratch = HostReader(reader.root)
    found = []
    for name in PLACED:
        for pid in daemons.get(name) or []:
            scheduling = proc.thread_scheduling(scratch, pid, pid)
            if scheduling is None:
                continue
            found.append({"name": name, "pid": pid, "cpus_allowed": proc.allowed_cpus(scheduling["affinity"]),
                          "policy": scheduling["policy"],
                          "priority": scheduling["priority"]})
    return found


def clocksource(reader):
    current = reader.read(CLOCKSOURCE + "/current_clocksource", optional=True)
    available = reader.read(CLOCKSOURCE + "/available_clocksource", optional=True)
    available = None if available is None else available.split()
    return {
        "current": current.strip() if current is not None else None,
        "available": available,
        "kvm_clock": None if available is None else "kvm-clock" in available,
    }


def summarise(nics, daemons, source, processes=None):
    """The ``time_sync`` fact from its parts (pure)."""
    return {
        "interfaces": sorted(nics, key=lambda item: item["name"]),
        "daemons": daemons,
        "processes": processes,
        "ptp_running": None if daemons is None else bool(daemons.get("ptp4l")),
        "synchronised_by": None if daemons is None else [name for name in SYNCHRONISERS if daemons.get(name)],
        "clocksource": source,
        "hardware_clock": any(item["phc_index"] is not None for item in nics),
    }


def read_time_sync(reader, ioctl=None, live=None):
    """``rt_node.time_sync`` of the tree ``reader`` reads.

    ``live`` (default: the tree is ``/``) asks the kernel through ``ioctl``
    (default :func:`kernel_ts_info`, one interface name in, the 44 bytes of
    ``struct ethtool_ts_info`` out).
    """
    if live is None:
        live = reader.root == "/"
    daemons = running_daemons(reader)
    return summarise(interfaces(reader, live, ioctl), daemons, clocksource(reader), placed_processes(reader, daemons))
