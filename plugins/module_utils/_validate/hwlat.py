# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""hwlatdetect (rt-tests): whether the kernel has the hwlat tracer, its report read, and a run judged (pure).

The kernel's hwlat tracer spins on one CPU at a time with interrupts off
and records every gap in its own clock reads above ``tracing_thresh``: time
the kernel did not take, so firmware (SMIs) or hardware. hwlatdetect
drives it and prints a report.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import re

from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import check

MAX_LINE = re.compile(r"^Max Latency:\s*(?:(\d+)\s*us|(Below threshold))\s*$")
RECORDED_LINE = re.compile(r"^Samples recorded:\s*(\d+)\s*$")
EXCEEDING_LINE = re.compile(r"^Samples exceeding threshold:\s*(\d+)\s*$")
SAMPLE_LINE = re.compile(r"^ts:\s*([0-9.]+),\s*inner:\s*(\d+),\s*outer:\s*(\d+)\s*$")
THRESHOLD_LINE = re.compile(r"^Latency threshold:\s*(\d+)\s*us\s*$")
DURATION_LINE = re.compile(r"^hwlatdetect:\s*test duration\s+(\d+)\s+seconds\s*$")
SMI_LINE = re.compile(r"^SMIs during run:\s*(\d+)\s*$")

TRACER = "hwlat"


def parse_hwlat(text):
    """Read hwlatdetect's text report (rt-tests 2.x), found anywhere in ``text``.

    Returns ``{max_us, recorded, exceeding, samples, threshold_us,
    duration_s, smis, error}``. ``max_us`` is None when hwlatdetect said
    ``Below threshold`` (no sample) and when the text is no report, which
    sets ``error``; ``samples`` lists ``{ts, inner_us, outer_us, max_us}``
    per recorded sample. ``threshold_us``, ``duration_s`` and ``smis`` are
    None where the report does not show them (``--quiet``, no MSR access).
    """
    result = {"max_us": None, "recorded": None, "exceeding": None, "samples": [], "threshold_us": None,
              "duration_s": None, "smis": None, "error": None}
    seen_max = False
    last = ""
    for raw in (text or "").splitlines():
        line = raw.strip()
        if line:
            last = line
        match = MAX_LINE.match(line)
        if match:
            seen_max = True
            result["max_us"] = int(match.group(1)) if match.group(1) else None
            continue
        for key, pattern in (("recorded", RECORDED_LINE), ("exceeding", EXCEEDING_LINE),
                             ("threshold_us", THRESHOLD_LINE), ("duration_s", DURATION_LINE), ("smis", SMI_LINE)):
            match = pattern.match(line)
            if match:
                result[key] = int(match.group(1))
                break
        match = SAMPLE_LINE.match(line)
        if match:
            inner, outer = int(match.group(2)), int(match.group(3))
            result["samples"].append({"ts": match.group(1), "inner_us": inner, "outer_us": outer,
                                      "max_us": max(inner, outer)})
    if not seen_max or result["exceeding"] is None:
        result["max_us"] = None
        result["error"] = "not a hwlatdetect report (no 'Max Latency' and 'Samples exceeding threshold' lines)%s" % (
            "; its last line: %s" % last if last else "; no output")
    return result


def _tracer_file(result):
    return str(result.get("item") or result.get("source") or "")


def hwlat_tracer(tracefs):
    """Whether the kernel offers the hwlat tracer, from tracefs' ``available_tracers``.

    ``tracefs`` is the list of ansible.builtin.slurp results of the
    ``available_tracers`` files of the places tracefs is mounted
    (``/sys/kernel/tracing``, ``/sys/kernel/debug/tracing``), each with
    ``item`` (the path), and ``content`` (base64) or ``failed``/``msg``.
    Returns ``{available, file, tracers, reason}``; ``reason`` says, when
    the tracer is not there, what was missing and how to fix it.
    """
    unread = []
    for result in tracefs or []:
        path = _tracer_file(result)
        if result.get("failed") or result.get("content") is None:
            unread.append((path, str(result.get("msg") or "not readable")))
            continue
        try:
            tracers = base64.b64decode(result["content"]).decode("utf-8", "replace").split()
        except (TypeError, ValueError):
            unread.append((path, "its content is not base64"))
            continue
        if TRACER in tracers:
            return {"available": True, "file": path, "tracers": tracers, "reason": None}
        return {"available": False, "file": path, "tracers": tracers,
                "reason": "the kernel has no hwlat tracer (built without CONFIG_HWLAT_TRACER): %s lists %s. "
                          "Fix: boot a kernel built with CONFIG_HWLAT_TRACER=y" % (path, " ".join(tracers) or "none")}
    if not unread:
        return {"available": False, "file": None, "tracers": [],
                "reason": "no available_tracers file was read (give the slurp results of tracefs' available_tracers)"}
    missing = [path for path, msg in unread if "not found" in msg.lower()]
    if len(missing) == len(unread):
        state = "tracefs is not mounted: %s" % (
            "%s does not exist" % missing[0] if len(missing) == 1 else
            "neither %s exists" % " nor ".join(missing))
    else:
        state = "tracefs cannot be read: %s" % "; ".join(
            "%s does not exist" % path if path in missing else "%s: %s" % (path, msg) for path, msg in unread)
    return {"available": False, "file": None, "tracers": [],
            "reason": "%s. Fix: mount -t tracefs nodev /sys/kernel/tracing and run as root (a kernel without "
                      "CONFIG_TRACING has no tracefs)" % state}


def hwlat_check(parsed, threshold_us, subject="host firmware", skip_reason=None):
    """One check of a parsed hwlatdetect run: pass when no sample is above ``threshold_us``."""
    expected = "no hardware latency above %d us" % threshold_us
    name = "hwlatdetect"
    if skip_reason:
        return check(subject, name, expected, "skipped: %s" % skip_reason, "skip")
    if not parsed or parsed.get("error") or parsed.get("exceeding") is None:
        why = (parsed or {}).get("error") or "no output"
        return check(subject, name, expected, "no result (%s)" % why, "fail",
                     "%s: hwlatdetect gave no result (%s)" % (subject, why))
    duration = " in %d s" % parsed["duration_s"] if parsed.get("duration_s") is not None else ""
    smis = ", %d SMI(s)" % parsed["smis"] if parsed.get("smis") is not None else ""
    if parsed["exceeding"] == 0:
        return check(subject, name, expected, "no sample above %d us%s%s" % (threshold_us, duration, smis), "pass")
    observed = "max %s us, %d sample(s) above %d us%s%s" % (
        parsed["max_us"] if parsed.get("max_us") is not None else "?", parsed["exceeding"], threshold_us,
        duration, smis)
    return check(subject, name, expected, observed, "fail",
                 "%s: the hwlat tracer saw %d sample(s) above %d us, max %s us: time neither the kernel nor a task "
                 "took, usually SMIs (firmware); check the BIOS settings for real-time (SMI sources, power "
                 "management, C-states) with the vendor" % (
                     subject, parsed["exceeding"], threshold_us,
                     parsed["max_us"] if parsed.get("max_us") is not None else "?"))
