# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the ptp role writes: ptp4l's configuration and the daemons' command lines (pure).

The profiles carry linuxptp's own configuration keys, with the values of
the configuration files linuxptp ships for each profile (``configs/`` of
linuxptp 3.1.1: ``default.cfg``, ``G.8275.1.cfg``, ``G.8275.2.cfg``,
``gPTP.cfg``).  Every problem of the input is collected and reported at
once, before the role changes anything.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import (
    CpusetError, format_cpuset, parse_cpuset)
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import RealtimeVirtError

CONFIG_PATH = "/etc/linuxptp/realtime-virt-ptp4l.conf"
CLOCKS = ("client", "grandmaster", "boundary")
TRANSPORTS = ("UDPv4", "UDPv6", "L2")
# (default domain, lowest, highest, transport, keys). Domain ranges: IEEE
# 1588-2008 leaves 0-127 to users; ITU-T G.8275.1 allows 24-43 (default 24),
# G.8275.2 44-63 (default 44); IEEE 802.1AS (gPTP) runs in domain 0.
PROFILES = {
    "e2e": (0, 0, 127, "UDPv4", [("delay_mechanism", "E2E")]),
    "g8275.1": (24, 24, 43, "L2", [
        ("dataset_comparison", "G.8275.x"), ("G.8275.defaultDS.localPriority", "128"),
        ("maxStepsRemoved", "255"), ("logAnnounceInterval", "-3"), ("logSyncInterval", "-4"),
        ("logMinDelayReqInterval", "-4"), ("G.8275.portDS.localPriority", "128"),
        ("ptp_dst_mac", "01:80:C2:00:00:0E")]),
    "g8275.2": (44, 44, 63, "UDPv4", [
        ("dataset_comparison", "G.8275.x"), ("G.8275.defaultDS.localPriority", "128"),
        ("maxStepsRemoved", "255"), ("logAnnounceInterval", "0"), ("G.8275.portDS.localPriority", "128"),
        ("hybrid_e2e", "1"), ("inhibit_multicast_service", "1"), ("unicast_listen", "1"),
        ("unicast_req_duration", "60")]),
    "gptp": (0, 0, 0, "L2", [
        ("gmCapable", "1"), ("priority1", "248"), ("priority2", "248"), ("logAnnounceInterval", "0"),
        ("logSyncInterval", "-3"), ("syncReceiptTimeout", "3"), ("neighborPropDelayThresh", "800"),
        ("min_neighbor_prop_delay", "-20000000"), ("assume_two_step", "1"), ("path_trace_enabled", "1"),
        ("follow_up_info", "1"), ("transportSpecific", "0x1"), ("ptp_dst_mac", "01:80:C2:00:00:0E"),
        ("delay_mechanism", "P2P")]),
}
# Keys the role's own options set: ptp_options may not set them a second way.
OWN_KEYS = {
    "domainNumber": "ptp_domain", "time_stamping": "ptp_software_timestamping", "free_running": "ptp_free_running",
    "slaveOnly": "ptp_clock", "clientOnly": "ptp_clock", "masterOnly": "ptp_clock", "serverOnly": "ptp_clock",
    "network_transport": "ptp_transport", "boundary_clock_jbod": "ptp_clock",
    "verbose": "(the role logs to the journal)", "use_syslog": "(the role logs to the journal)",
}
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_.]*$")


class PtpPlanError(RealtimeVirtError, ValueError):
    """The role's input cannot be applied; ``problems`` lists every reason."""

    def __init__(self, problems):
        super(PtpPlanError, self).__init__("; ".join(problems))
        self.problems = problems


def _interfaces(names, known, software, problems):
    """The chosen interfaces as rt_node_facts reports them; problems for unknown ones and missing timestamping."""
    if not isinstance(names, (list, tuple)) or not names or not all(isinstance(n, str) for n in names):
        problems.append("ptp_interfaces=%r must list one or more network interface names. Fix: name the "
                        "interfaces PTP runs on, such as ['eth0'] (ip -br link lists them)" % (names,))
        return []
    by_name = dict((entry.get("name"), entry) for entry in known)
    chosen = []
    for name in names:
        if name not in by_name:
            problems.append("ptp_interfaces: %r is not a network interface of this host (it has: %s). Fix: name "
                            "one of them" % (name, ", ".join(sorted(by_name)) or "none"))
            continue
        entry = by_name[name]
        hardware = bool(entry.get("hardware_transmit") and entry.get("hardware_receive")
                        and entry.get("hardware_raw_clock") and entry.get("phc_index") is not None)
        soft = bool(entry.get("software_transmit") and entry.get("software_receive"))
        if not hardware and not software:
            problems.append("ptp_interfaces: %r has no hardware timestamping (ethtool -T %s: PTP Hardware Clock %s), "
                            "which ptp_software_timestamping=false requires. Fix: choose an interface with a PTP "
                            "hardware clock, or set ptp_software_timestamping: true (microseconds, not nanoseconds)"
                            % (name, name, "none" if entry.get("phc_index") is None else entry.get("phc_index")))
        elif software and not soft and not hardware:
            problems.append("ptp_interfaces: %r has neither hardware nor software timestamping. Fix: choose "
                            "another interface" % name)
        chosen.append(dict(entry, hardware=hardware))
    if len(set(names)) != len(names):
        problems.append("ptp_interfaces=%r names an interface twice. Fix: name each once" % (list(names),))
    return chosen


def _domain(value, profile, problems):
    default, low, high = PROFILES[profile][:3]
    if value in (None, "auto"):
        return default
    try:
        number = int(value)
        if isinstance(value, bool) or str(number) != str(value).strip():
            raise ValueError(value)
    except (TypeError, ValueError):
        problems.append("ptp_domain=%r is not a domain number. Fix: a whole number %d-%d for the %s profile, "
                        "or auto (%d)" % (value, low, high, profile, default))
        return default
    if not low <= number <= high:
        problems.append("ptp_domain=%d is outside the %s profile's domains %d-%d. Fix: choose one of them, or "
                        "auto (%d)" % (number, profile, low, high, default))
    return number


def _cpus(value, housekeeping, isolated, problems):
    try:
        home = set(parse_cpuset(housekeeping or "", allow_exclusion=False, empty=[]))
        away = set(parse_cpuset(isolated or "", allow_exclusion=False, empty=[]))
        cpus = home if value in (None, "auto", "") else set(parse_cpuset(str(value), allow_exclusion=False))
    except CpusetError as error:
        problems.append("ptp_cpus=%r: %s. Fix: a CPU list such as 0-1, or auto (the housekeeping CPUs)"
                        % (value, error))
        return ""
    if not cpus:
        problems.append("ptp_cpus=%r leaves no CPU for ptp4l and phc2sys (housekeeping CPUs: %r). Fix: name "
                        "the housekeeping CPUs" % (value, housekeeping))
    elif cpus & away:
        problems.append("ptp_cpus=%r includes the isolated CPUs %s, where PTP daemons disturb the real-time "
                        "vCPUs and are themselves delayed. Fix: name housekeeping CPUs only (%s), or auto"
                        % (value, format_cpuset(sorted(cpus & away)), format_cpuset(sorted(home)) or "none"))
    return format_cpuset(sorted(cpus))


def _options(options, problems):
    if not isinstance(options, dict):
        problems.append("ptp_options=%r is not a mapping of linuxptp keys to values. Fix: such as "
                        "{'logSyncInterval': -4}" % (options,))
        return []
    lines = []
    for key in sorted(options):
        value = options[key]
        if not isinstance(key, str) or not _KEY.match(key):
            problems.append("ptp_options: %r is not a linuxptp configuration key. Fix: a key of ptp4l(8), "
                            "such as logSyncInterval" % (key,))
        elif key in OWN_KEYS:
            problems.append("ptp_options: %s is set by the role's %s. Fix: remove it from ptp_options and set "
                            "%s" % (key, OWN_KEYS[key], OWN_KEYS[key]))
        elif isinstance(value, (dict, list)) or "\n" in str(value) or str(value).strip() == "":
            problems.append("ptp_options: %s=%r is not a one-line value. Fix: give a number or a word" % (key, value))
        else:
            lines.append((key, str(value).lower() if isinstance(value, bool) else str(value)))
    return lines


def plan(known, interfaces, profile="e2e", domain="auto", clock="client", software_timestamping=False,
         free_running=False, transport="auto", cpus="auto", housekeeping="", isolated="", priority=10,
         phc2sys="auto", unicast_masters=None, options=None):
    """The configuration and command lines for ``interfaces`` of a host whose interfaces are ``known``."""
    problems = []
    if profile not in PROFILES:
        problems.append("ptp_profile=%r is not a profile the role knows. Fix: one of %s"
                        % (profile, ", ".join(sorted(PROFILES))))
        profile = "e2e"
    if clock not in CLOCKS:
        problems.append("ptp_clock=%r is not a clock role. Fix: one of %s" % (clock, ", ".join(CLOCKS)))
        clock = "client"
    chosen = _interfaces(interfaces, known or [], bool(software_timestamping), problems)
    number = _domain(domain, profile, problems)
    if transport in (None, "auto"):
        transport = PROFILES[profile][3]
    elif transport not in TRANSPORTS:
        problems.append("ptp_transport=%r is not a linuxptp transport. Fix: one of auto, %s"
                        % (transport, ", ".join(TRANSPORTS)))
    if isinstance(priority, bool) or not isinstance(priority, int) or not 1 <= priority <= 98:
        problems.append("ptp_priority=%r is not a SCHED_FIFO priority the role sets. Fix: a whole number "
                        "1-98 (default 10, below the kernel's interrupt threads at 50)" % (priority,))
    cpuset = _cpus(cpus, housekeeping, isolated, problems)
    extra = _options(options if options is not None else {}, problems)
    if clock == "boundary" and len(chosen) < 2:
        problems.append("ptp_clock=boundary needs two or more ptp_interfaces (one towards the master, one or more "
                        "towards clients); it has %d. Fix: add the interfaces, or use ptp_clock: client" % len(chosen))
    masters = list(unicast_masters or [])
    if profile == "g8275.2" and clock != "grandmaster" and not masters:
        problems.append("ptp_profile=g8275.2 is unicast: a %s needs ptp_unicast_masters (the master's IP "
                        "addresses). Fix: set ptp_unicast_masters, such as ['192.0.2.1']" % clock)
    hardware = bool(chosen) and all(entry["hardware"] for entry in chosen)
    if phc2sys not in ("auto", True, False):
        problems.append("ptp_phc2sys=%r is not auto, true or false. Fix: one of them" % (phc2sys,))
    elif phc2sys is True and not hardware:
        problems.append("ptp_phc2sys=true needs hardware timestamping on every interface (phc2sys copies a "
                        "PTP hardware clock to the system clock); with software timestamping ptp4l steers the "
                        "system clock itself. Fix: leave ptp_phc2sys auto")
    if problems:
        raise PtpPlanError(problems)
    run_phc2sys = hardware and not free_running and phc2sys is not False
    warnings = []
    if not hardware:
        warnings.append("ptp_software_timestamping: %s use software timestamps; expect offsets of microseconds, "
                        "not the nanoseconds of a PTP hardware clock"
                        % ", ".join(entry["name"] for entry in chosen if not entry["hardware"]))
    return {
        "config_path": CONFIG_PATH,
        "config": config_text(profile, number, clock, hardware, free_running, transport, chosen, masters, extra),
        "interfaces": [entry["name"] for entry in chosen],
        "profile": profile, "domain": number, "clock": clock, "transport": transport,
        "time_stamping": "hardware" if hardware else "software",
        "free_running": bool(free_running),
        "cpus": cpuset, "priority": priority,
        "ptp4l_argv": ["/usr/sbin/ptp4l", "-f", CONFIG_PATH],
        "phc2sys": run_phc2sys,
        # -a: follow ptp4l's ports; -r: steer the system clock (-r -r: a grandmaster's system clock is the source)
        "phc2sys_argv": (["/usr/sbin/phc2sys", "-a", "-r"] + (["-r"] if clock == "grandmaster" else [])
                         + ["-n", str(number), "-m", "-q"]) if run_phc2sys else [],
        # a free-running ptp4l and a grandmaster leave the system clock to what already keeps it
        "steers_system_clock": clock != "grandmaster" and not free_running,
        "warnings": warnings,
    }


def config_text(profile, domain, clock, hardware, free_running, transport, interfaces, masters, extra):
    """ptp4l's configuration file."""
    lines = ["# Written by realtime.virt.ptp (profile %s); the role rewrites it, edit its variables instead." % profile,
             "[global]", "domainNumber %d" % domain, "network_transport %s" % transport,
             "time_stamping %s" % ("hardware" if hardware else "software"),
             "free_running %d" % (1 if free_running else 0),
             "slaveOnly %d" % (1 if clock == "client" else 0),
             "masterOnly %d" % (1 if clock == "grandmaster" else 0),
             # stdout goes to the journal under systemd; no syslog copy
             "verbose 1", "use_syslog 0"]
    if len(set(entry.get("phc_index") for entry in interfaces)) > 1 and hardware:
        # ports on different hardware clocks: ptp4l keeps each, phc2sys aligns them
        lines.append("boundary_clock_jbod 1")
    lines += ["%s %s" % pair for pair in PROFILES[profile][4]]
    lines += ["%s %s" % pair for pair in extra]
    if masters:
        lines += ["", "[unicast_master_table]", "table_id 1", "logQueryInterval 2"]
        lines += ["%s %s" % ("UDPv6" if ":" in address else "UDPv4", address) for address in masters]
    for entry in interfaces:
        lines += ["", "[%s]" % entry["name"]]
        if masters:
            lines.append("unicast_master_table 1")
    return "\n".join(lines) + "\n"
