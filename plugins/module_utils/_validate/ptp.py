# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The time-sync checks of rt_validate: linuxptp on the host, chrony in a guest (pure).

Input: the text of one ``pmc -u -b 0 -d <domain>`` run with several GETs
(PORT_DATA_SET, TIME_STATUS_NP, CURRENT_DATA_SET, PARENT_DATA_SET), the
daemons' log lines, what /proc says of the ptp4l and phc2sys processes,
the host's clocksource, and in a guest ``chronyc -c tracking`` and
``chronyc -c sources``. Output: report lines of ``checks.check()`` and a
measurement record of kind ``ptp`` for the report and the fleet page.

linuxptp's servo states in its log lines: ``s0`` unlocked, ``s1`` clock
stepped (jump), ``s2`` locked, ``s3`` locked and stable. OpenShift's PTP
operator counts s2 and s3 as LOCKED and s0, s1 as FREERUN. A client port
goes LISTENING -> UNCALIBRATED when it picks a master and UNCALIBRATED ->
SLAVE when its servo locks; with ``free_running 1`` ptp4l measures but
never adjusts the clock, its servo stays s0 and the port stays
UNCALIBRATED, which is then what a healthy client shows.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import format_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import check

# Default bound of |offset from master|: OpenShift's PTP operator (linuxptp-daemon) reports a
# clock FREERUN when its offset leaves +-100 ns (the PtpConfig thresholds maxOffsetThreshold 100,
# minOffsetThreshold -100 default).
MAX_OFFSET_SOURCE = "OpenShift PTP operator default FREERUN threshold, +-100 ns"
DEFAULT_MAX_OFFSET_NS = 100
# Default bound of a guest's chrony system time offset when its refclock is the host's clock over
# ptp_kvm: the guest is one more hop behind the host's 100 ns (host PHC -> host CLOCK_REALTIME by
# phc2sys -> guest by the ptp_kvm hypercall and chrony's PHC filter), each hop with its own error;
# 1 us keeps the guest within ten times the host's bound and still flags a guest on NTP (tens of us
# and more).
DEFAULT_GUEST_MAX_OFFSET_NS = 1000
LOCKED_SERVO = ("s2", "s3")
FOLLOWING = ("SLAVE", "UNCALIBRATED")
SEAPATH_857 = ("SEAPATH issue #857 saw 10-50 ms PTP offset spikes while ptp4l/phc2sys shared isolated CPUs "
               "with real-time tasks")
PTP_KVM_FIX = ("load ptp_kvm and add `refclock PHC /dev/ptp_kvm` to chrony: realtime.virt.rt_guest does")
REACH_FIX = ("the grandmaster is unreachable: check the link, the domain number (pmc -d and ptp4l's "
             "domainNumber), the transport and profile (-2/-4/-6, E2E/P2P delay mechanism) on both ends")

_HEADER = re.compile(r"^\s*(\S+)\s+seq\s+\d+\s+RESPONSE\s+(MANAGEMENT(?:_ERROR_STATUS)?)\s+(\S+)")
_FIELD = re.compile(r"^\s+(\S+)\s+(.*?)\s*$")
_INT_FIELDS = ("master_offset", "stepsRemoved")
_FLOAT_FIELDS = ("offsetFromMaster", "meanPathDelay")
_SERVO = {
    "ptp4l": re.compile(r"master offset\s+(-?\d+)\s+(s\d)\s+freq\s+([+-]?\d+)\s+path delay\s+(-?\d+)"),
    "phc2sys": re.compile(r"(?:phc|sys) offset\s+(-?\d+)\s+(s\d)\s+freq\s+([+-]?\d+)(?:\s+delay\s+(-?\d+))?"),
}
TRACKING_FIELDS = ("refid", "name", "stratum", "ref_time", "system_time_s", "last_offset_s", "rms_offset_s",
                   "freq_ppm", "resid_freq_ppm", "skew_ppm", "root_delay_s", "root_dispersion_s",
                   "update_interval_s", "leap")
SOURCE_FIELDS = ("mode", "state", "name", "stratum", "poll", "reach", "last_rx", "offset_s",
                 "measured_offset_s", "error_s")


def _value(name, text):
    try:
        if name in _INT_FIELDS:
            return int(text)
        if name in _FLOAT_FIELDS:
            return float(text)
    except ValueError:
        return text
    if name == "gmPresent" and text in ("true", "false"):
        return text == "true"
    return text


def parse_pmc(text):
    """``{dataset: {field: value}}`` of pmc's answers, with ``ports``: every PORT_DATA_SET answer.

    PORT_DATA_SET holds the first port's answer. Values are text, except
    offsetFromMaster and meanPathDelay (float, ns), master_offset and
    stepsRemoved (int) and gmPresent (bool). Error answers
    (MANAGEMENT_ERROR_STATUS) are left out. No answer: ``{}``.
    """
    out, current = {}, None
    for line in (text or "").splitlines():
        header = _HEADER.match(line)
        if header:
            current = None
            if header.group(2) == "MANAGEMENT":
                current = {}
                name = header.group(3)
                if name == "PORT_DATA_SET":
                    out.setdefault("ports", []).append(current)
                out.setdefault(name, current)
            continue
        field = _FIELD.match(line) if current is not None and line[:1].isspace() else None
        if field:
            current[field.group(1)] = _value(field.group(1), field.group(2))
        elif not line[:1].isspace():
            current = None
    return out


def parse_servo_log(text, program):
    """The last servo line of ``program`` (ptp4l or phc2sys) in ``text``:
    ``{offset_ns, servo, freq, delay}`` (delay None when phc2sys prints none), None without one."""
    pattern = _SERVO[program]
    last = None
    for line in (text or "").splitlines():
        found = pattern.search(line)
        if found:
            last = found
    if last is None:
        return None
    return {"offset_ns": int(last.group(1)), "servo": last.group(2), "freq": int(last.group(3)),
            "delay": int(last.group(4)) if last.group(4) is not None else None}


def port_state(pmc):
    """The state of the client port: SLAVE if a port is, else UNCALIBRATED if one is, else the first's; None."""
    states = [str(port.get("portState")) for port in (pmc or {}).get("ports") or [] if port.get("portState")]
    for wanted in FOLLOWING:
        if wanted in states:
            return wanted
    return states[0] if states else None


def _offset(pmc, log):
    """``(offset ns, where from)``: CURRENT_DATA_SET, TIME_STATUS_NP, then the log's last line; (None, None)."""
    current = (pmc or {}).get("CURRENT_DATA_SET") or {}
    status = (pmc or {}).get("TIME_STATUS_NP") or {}
    for value, source in ((current.get("offsetFromMaster"), "offsetFromMaster"),
                          (status.get("master_offset"), "master_offset")):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value, source
    if log:
        return log["offset_ns"], "ptp4l log"
    return None, None


def _ns(value):
    return "%g ns" % value


def _port_check(subject, state, free_running):
    expected = "SLAVE"
    if free_running:
        expected = ("SLAVE, or UNCALIBRATED (free_running: ptp4l never adjusts the clock, its servo never locks, so "
                    "linuxptp never moves the port to SLAVE)")
    name = "ptp port state"
    if state is None:
        return check(subject, name, expected, "pmc answered nothing", "fail",
                     "%s: pmc answered nothing: ptp4l is not running, or runs in another domain. Fix: start ptp4l "
                     "(systemctl status realtime-virt-ptp4l, the ptp role's unit), and give pmc -d the domainNumber "
                     "of ptp4l's configuration" % subject)
    if state == "SLAVE" or (state == "UNCALIBRATED" and free_running):
        return check(subject, name, expected, state, "pass")
    if state == "UNCALIBRATED":
        why = ("the port follows a master but its servo has not locked yet. Fix: wait for the servo (s2 in ptp4l's "
               "log); if it never locks, look at the offsets and the path delay in ptp4l's log")
    elif state == "MASTER":
        why = ("this client sees no better clock and acts as master: %s; give the client clientOnly 1 (slaveOnly) "
               "so it never becomes master" % REACH_FIX)
    elif state == "FAULTY":
        why = ("the port is faulty. Fix: check the interface is up and supports the timestamping ptp4l asks for "
               "(ethtool -T), and ptp4l's log")
    else:
        why = "the port follows no master. Fix: %s" % REACH_FIX
    return check(subject, name, expected, state, "fail", "%s: ptp4l port is %s: %s" % (subject, state, why))


def _servo_check(subject, state, log, free_running):
    name = "ptp servo"
    expected = "s2 or s3 (LOCKED, as OpenShift's PTP operator counts it)"
    if free_running:
        expected = "any state: free_running keeps the servo at s0 by design (ptp4l measures, never adjusts)"
    if state is not None and state not in FOLLOWING:
        seen = "port %s%s" % (state, ", last log line %s (stale)" % log["servo"] if log else "")
        return check(subject, name, expected, seen, "fail",
                     "%s: the servo follows no master (port %s). Fix: %s" % (subject, state, REACH_FIX))
    if log is not None:
        servo = log["servo"]
        seen = "%s (%s, ptp4l log)" % (servo, "LOCKED" if servo in LOCKED_SERVO else "FREERUN")
    elif state is not None:
        servo = "s2" if state == "SLAVE" else "s0"
        seen = "%s inferred from port %s (linuxptp moves UNCALIBRATED to SLAVE when its servo locks)" % (
            "locked" if servo in LOCKED_SERVO else "unlocked", state)
    else:
        return check(subject, name, expected, "no pmc answer and no ptp4l servo line", "fail",
                     "%s: nothing tells the servo state: ptp4l answers no pmc and its log has no 'master offset' "
                     "line. Fix: start ptp4l, with -m or its log in the journal (journalctl -u ptp4l)" % subject)
    if servo in LOCKED_SERVO or free_running:
        return check(subject, name, expected, seen, "pass")
    return check(subject, name, expected, seen, "fail",
                 "%s: ptp4l's servo is %s, not locked (FREERUN). Fix: wait for it to lock; if it does not, look at "
                 "the offsets and path delay in ptp4l's log and at what else adjusts the clock (chronyd, ntpd)"
                 % (subject, servo))


def _offset_check(subject, state, value, source, limit):
    name = "ptp offset from master"
    expected = "|offset| <= %d ns (%s)" % (limit, MAX_OFFSET_SOURCE if limit == DEFAULT_MAX_OFFSET_NS else "given")
    if value is None:
        return check(subject, name, expected, "no offset measured", "fail",
                     "%s: no offset from master: pmc answered no CURRENT_DATA_SET and ptp4l's log has no 'master "
                     "offset' line. Fix: start ptp4l and follow a grandmaster (%s)" % (subject, REACH_FIX))
    seen = "%s (%s)" % (_ns(value), source)
    if state is not None and state not in FOLLOWING:
        return check(subject, name, expected, seen + ", stale: port %s" % state, "fail",
                     "%s: the offset %s is stale, the port is %s and follows no master. Fix: %s"
                     % (subject, _ns(value), state, REACH_FIX))
    if abs(value) <= limit:
        return check(subject, name, expected, seen, "pass")
    return check(subject, name, expected, seen, "fail",
                 "%s: offset from master %s is beyond +-%d ns. Fix: use hardware timestamping (ethtool -T), keep "
                 "ptp4l and phc2sys off the isolated CPUs, and check the path to the grandmaster (boundary or "
                 "transparent clocks on the way)" % (subject, _ns(value), limit))


def _gm_check(subject, pmc, state):
    name = "grandmaster present"
    status = (pmc or {}).get("TIME_STATUS_NP") or {}
    parent = (pmc or {}).get("PARENT_DATA_SET") or {}
    identity = status.get("gmIdentity") or parent.get("grandmasterIdentity") or "?"
    present = status.get("gmPresent")
    seen = "gmPresent %s, gmIdentity %s, port %s" % (
        "?" if present is None else str(present).lower(), identity, state or "no answer")
    expected = "gmPresent true and the port SLAVE or UNCALIBRATED (gmPresent stays true after the master is gone)"
    if present is True and state in FOLLOWING:
        return check(subject, name, expected, seen, "pass")
    return check(subject, name, expected, seen, "fail",
                 "%s: no grandmaster is followed (%s). Fix: %s" % (subject, seen, REACH_FIX))


def _phc2sys_check(subject, log, limit):
    name = "phc2sys offset"
    expected = "s2 or s3, |offset| <= %d ns" % limit
    if log is None:
        return check(subject, name, expected, "no phc2sys offset line", "fail",
                     "%s: phc2sys's log has no 'phc offset' or 'sys offset' line: phc2sys is not running, or its "
                     "log was not read. Fix: run phc2sys (phc2sys -s <interface> -c CLOCK_REALTIME -w -m, or the "
                     "phc2sys service) and read journalctl -u phc2sys" % subject)
    delay = "" if log["delay"] is None else ", delay %d ns" % log["delay"]
    seen = "%s %s, freq %+d%s" % (_ns(log["offset_ns"]), log["servo"], log["freq"], delay)
    if log["servo"] in LOCKED_SERVO and abs(log["offset_ns"]) <= limit:
        return check(subject, name, expected, seen, "pass")
    return check(subject, name, expected, seen, "fail",
                 "%s: phc2sys is %s with offset %s (bound +-%d ns). Fix: keep phc2sys off the isolated CPUs, and make "
                 "sure nothing else adjusts CLOCK_REALTIME (chronyd, ntpd, systemd-timesyncd)"
                 % (subject, "unlocked" if log["servo"] not in LOCKED_SERVO else "locked", _ns(log["offset_ns"]),
                    limit))


def _daemons_check(subject, daemons, isolated):
    name = "time daemons off isolated CPUs"
    expected = "no CPU of isolated %s" % (format_cpuset(sorted(isolated)) if isolated else "none")
    if not daemons:
        return check(subject, name, expected, "no ptp4l or phc2sys process found", "skip",
                     "%s: no ptp4l or phc2sys process was found, so there is no CPU affinity to check" % subject)
    seen = "; ".join("%s (pid %s) CPUs %s %s %s" % (
        d.get("name"), d.get("pid"), format_cpuset(d.get("cpus_allowed") or []) or "none", d.get("policy") or "?",
        d.get("priority", "?")) for d in daemons)
    if isolated is None:
        return check(subject, name, "isolated CPUs known", seen, "skip",
                     "%s: the isolated CPUs are not known, so the daemons' CPUs are not judged" % subject)
    bad = [d for d in daemons if set(d.get("cpus_allowed") or []) & set(isolated)]
    if not bad:
        return check(subject, name, expected, seen, "pass")
    names = ", ".join("%s (pid %s) on %s" % (d.get("name"), d.get("pid"), format_cpuset(
        sorted(set(d.get("cpus_allowed") or []) & set(isolated)))) for d in bad)
    return check(subject, name, expected, seen, "fail",
                 "%s: %s may run on isolated CPUs; %s. Fix: pin them to the housekeeping CPUs (CPUAffinity= in a "
                 "systemd drop-in of ptp4l.service and phc2sys.service, then restart them)"
                 % (subject, names, SEAPATH_857))


def _clocksource_check(subject, clocksource):
    seen = str(clocksource).strip() if clocksource else "not read"
    if seen == "tsc":
        return check(subject, "host clocksource", "tsc (ptp_kvm guests)", seen, "pass")
    return check(subject, "host clocksource", "tsc (ptp_kvm guests)", seen, "fail",
                 "%s: the host's clocksource is %s; ptp_kvm gives guests a sound clock only with the host on tsc "
                 "(Red Hat BZ 1780165). Fix: boot the host on a stable TSC (clocksource=tsc; check constant_tsc "
                 "and nonstop_tsc in /proc/cpuinfo)" % (subject, seen))


def ptp_checks(pmc, subject, free_running=False, ptp4l_log=None, phc2sys_log=None, phc2sys_expected=False,
               max_offset_ns=DEFAULT_MAX_OFFSET_NS, max_phc2sys_offset_ns=DEFAULT_MAX_OFFSET_NS, daemons=None,
               isolated=None, clocksource=None, ptp_kvm_guests=False):
    """The report lines of a host's PTP: port state, servo, offset, grandmaster, and when asked phc2sys,
    the daemons' CPUs and the clocksource. ``pmc``: :func:`parse_pmc`'s result; logs are text."""
    state = port_state(pmc)
    log = parse_servo_log(ptp4l_log, "ptp4l")
    value, source = _offset(pmc, log)
    out = [_port_check(subject, state, free_running), _servo_check(subject, state, log, free_running),
           _offset_check(subject, state, value, source, max_offset_ns), _gm_check(subject, pmc, state)]
    if phc2sys_expected:
        out.append(_phc2sys_check(subject, parse_servo_log(phc2sys_log, "phc2sys"), max_phc2sys_offset_ns))
    if daemons is not None:
        out.append(_daemons_check(subject, daemons, isolated))
    if ptp_kvm_guests:
        out.append(_clocksource_check(subject, clocksource))
    return out


def ptp_measurement(subject, pmc, log, max_offset_ns=DEFAULT_MAX_OFFSET_NS, free_running=False):
    """``{subject, kind: ptp, offset_ns, path_delay_ns, port_state, servo, max_offset_ns, status}``.

    ``status`` is fail when the port, servo, offset or grandmaster check of
    :func:`ptp_checks` fails, else pass.
    """
    parsed = parse_servo_log(log, "ptp4l")
    state = port_state(pmc)
    value, _source = _offset(pmc, parsed)
    delay = ((pmc or {}).get("CURRENT_DATA_SET") or {}).get("meanPathDelay")
    if not isinstance(delay, (int, float)) or isinstance(delay, bool):
        delay = parsed["delay"] if parsed else None
    lines = ptp_checks(pmc, subject, free_running=free_running, ptp4l_log=log, max_offset_ns=max_offset_ns)
    return {"subject": subject, "kind": "ptp", "offset_ns": value, "path_delay_ns": delay, "port_state": state,
            "servo": parsed["servo"] if parsed else None, "max_offset_ns": max_offset_ns,
            "status": "fail" if any(line["status"] == "fail" for line in lines) else "pass"}


def _csv_rows(text):
    return [line.split(",") for line in (text or "").splitlines() if line.strip()]


def _number(text):
    try:
        return float(text)
    except ValueError:
        return None


def parse_chrony_tracking(text):
    """``chronyc -c tracking`` as a dict of :data:`TRACKING_FIELDS` (offsets in seconds); ``{}`` if not 14 fields."""
    rows = [row for row in _csv_rows(text) if len(row) == len(TRACKING_FIELDS)]
    if not rows:
        return {}
    out = dict(zip(TRACKING_FIELDS, rows[0]))
    for key in TRACKING_FIELDS[3:-1]:
        out[key] = _number(out[key])
    return out


def parse_chrony_sources(text):
    """``chronyc -c sources`` as a list of dicts of :data:`SOURCE_FIELDS` (offsets in seconds)."""
    out = []
    for row in _csv_rows(text):
        if len(row) != len(SOURCE_FIELDS):
            continue
        source = dict(zip(SOURCE_FIELDS, row))
        for key in SOURCE_FIELDS[7:]:
            source[key] = _number(source[key])
        out.append(source)
    return out


def _is_phc(source, refid):
    if source.get("mode") != "#":
        return False
    return source.get("name") == refid if refid else str(source.get("name")).startswith("PHC")


def chrony_checks(tracking_csv, sources_csv, subject, max_offset_ns=DEFAULT_GUEST_MAX_OFFSET_NS, refid=None):
    """A guest's chrony: its selected source is the PHC refclock (name PHC..., or ``refid``) and its
    system time offset is within ``max_offset_ns``."""
    tracking = parse_chrony_tracking(tracking_csv)
    sources = parse_chrony_sources(sources_csv)
    phc = "the PHC refclock (%s)" % ("refid %s" % refid if refid else "name PHC...")
    selected = [source for source in sources if source["state"] == "*"]
    seen = ", ".join("%s%s %s" % (s["mode"], s["state"], s["name"]) for s in sources) or "no source"
    out = []
    if not tracking and not sources:
        out.append(check(subject, "chrony source", phc + " selected (*)", "chronyc answered nothing", "fail",
                         "%s: chronyc answered nothing: chronyd is not running. Fix: start chronyd, then %s"
                         % (subject, PTP_KVM_FIX)))
    elif selected and _is_phc(selected[0], refid):
        out.append(check(subject, "chrony source", phc + " selected (*)", seen, "pass"))
    else:
        why = "selects %s" % selected[0]["name"] if selected else "selects no source"
        if not any(_is_phc(s, refid) for s in sources):
            why += " and has no PHC refclock"
        out.append(check(subject, "chrony source", phc + " selected (*)", seen, "fail",
                         "%s: chrony %s. Fix: %s" % (subject, why, PTP_KVM_FIX)))
    expected = "|system time offset| <= %d ns, leap status Normal" % max_offset_ns
    offset = tracking.get("system_time_s")
    if offset is None:
        out.append(check(subject, "chrony offset", expected, "no tracking", "fail",
                         "%s: chronyc -c tracking gave no system time offset: chronyd is not running or not "
                         "synchronised. Fix: start chronyd, then %s" % (subject, PTP_KVM_FIX)))
        return out
    nanoseconds = offset * 1e9
    seen = "%s (reference %s, leap %s)" % (_ns(round(nanoseconds, 1)), tracking.get("name"), tracking.get("leap"))
    if abs(nanoseconds) <= max_offset_ns and tracking.get("leap") == "Normal":
        out.append(check(subject, "chrony offset", expected, seen, "pass"))
    else:
        out.append(check(subject, "chrony offset", expected, seen, "fail",
                         "%s: the guest's clock is %s off (bound +-%d ns, leap %s). Fix: %s, and keep the host's own "
                         "PTP within its bound" % (subject, _ns(round(nanoseconds, 1)), max_offset_ns,
                                                   tracking.get("leap"), PTP_KVM_FIX)))
    return out
