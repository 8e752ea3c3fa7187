# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._validate.hwlat import hwlat_check, hwlat_tracer, parse_hwlat

# What hwlatdetect of rt-tests 2.4 prints: the duration, its parameters, the
# summary, and (without --watch) one line per recorded sample.
HEADER = """   detector: tracer
   parameters:
        CPU list:          None
        Latency threshold: 10us
        Sample window:     1000000us
        Sample width:      500000us
     Non-sampling period:  500000us
        Output File:       None

Starting test
test finished
"""
REPORT_WITH_SAMPLES = """hwlatdetect:  test duration 60 seconds
""" + HEADER + """Max Latency: 21us
Samples recorded: 3
Samples exceeding threshold: 3
SMIs during run: 4
ts: 1519674281.220664736, inner:20, outer:21
ts: 1519674282.721666674, inner:0, outer:13
ts: 1519674290.221681437, inner:17, outer:11
"""

REPORT_QUIET_HOST = """hwlatdetect:  test duration 10 seconds
""" + HEADER + """Max Latency: Below threshold
Samples recorded: 0
Samples exceeding threshold: 0
"""

NOT_A_REPORT = """Traceback (most recent call last):
  File "/usr/sbin/hwlatdetect", line 465, in <module>
    detect = Tracer()
__main__.DetectorNotAvailable: hwlat tracer not available
"""


def test_parse_a_report_with_samples():
    assert parse_hwlat(REPORT_WITH_SAMPLES) == {
        "max_us": 21, "recorded": 3, "exceeding": 3, "threshold_us": 10, "duration_s": 60, "smis": 4, "error": None,
        "samples": [
            {"ts": "1519674281.220664736", "inner_us": 20, "outer_us": 21, "max_us": 21},
            {"ts": "1519674282.721666674", "inner_us": 0, "outer_us": 13, "max_us": 13},
            {"ts": "1519674290.221681437", "inner_us": 17, "outer_us": 11, "max_us": 17},
        ]}


def test_parse_below_threshold():
    assert parse_hwlat(REPORT_QUIET_HOST) == {
        "max_us": None, "recorded": 0, "exceeding": 0, "threshold_us": 10, "duration_s": 10, "smis": None,
        "error": None, "samples": []}


@pytest.mark.parametrize("text, last", [
    (NOT_A_REPORT, "; its last line: __main__.DetectorNotAvailable: hwlat tracer not available"),
    ("", "; no output"),
    # the summary's first line without the count is no report either
    ("Max Latency: 21us\n", "; its last line: Max Latency: 21us"),
])
def test_text_that_is_no_report_is_an_error(text, last):
    parsed = parse_hwlat(text)
    assert parsed["max_us"] is None
    assert parsed["error"] == ("not a hwlatdetect report (no 'Max Latency' and 'Samples exceeding threshold' lines)"
                               + last)


def test_a_quiet_host_passes():
    assert hwlat_check(parse_hwlat(REPORT_QUIET_HOST), 10) == {
        "subject": "host firmware", "check": "hwlatdetect", "expected": "no hardware latency above 10 us",
        "observed": "no sample above 10 us in 10 s", "status": "pass", "message": ""}


def test_samples_above_the_threshold_fail_naming_the_maximum_and_the_count():
    result = hwlat_check(parse_hwlat(REPORT_WITH_SAMPLES), 10)
    assert result["status"] == "fail"
    assert result["observed"] == "max 21 us, 3 sample(s) above 10 us in 60 s, 4 SMI(s)"
    assert result["message"].startswith("host firmware: the hwlat tracer saw 3 sample(s) above 10 us, max 21 us: ")


def test_one_sample_is_enough_to_fail():
    report = REPORT_QUIET_HOST.replace("Max Latency: Below threshold", "Max Latency: 11us").replace(
        "Samples recorded: 0\nSamples exceeding threshold: 0",
        "Samples recorded: 1\nSamples exceeding threshold: 1\nts: 1700000000.000000001, inner:11, outer:3")
    result = hwlat_check(parse_hwlat(report), 10)
    assert (result["status"], result["observed"]) == ("fail", "max 11 us, 1 sample(s) above 10 us in 10 s")


def test_no_report_fails_with_the_reason():
    result = hwlat_check(parse_hwlat(NOT_A_REPORT), 10)
    assert result["status"] == "fail"
    assert result["message"] == (
        "host firmware: hwlatdetect gave no result (not a hwlatdetect report (no 'Max Latency' and 'Samples "
        "exceeding threshold' lines); its last line: __main__.DetectorNotAvailable: hwlat tracer not available)")


def test_skip_reason_wins():
    result = hwlat_check(parse_hwlat(REPORT_WITH_SAMPLES), 10, skip_reason="tracefs is not mounted")
    assert (result["status"], result["observed"]) == ("skip", "skipped: tracefs is not mounted")


def _read(path, text):
    return {"item": path, "content": base64.b64encode(text.encode()).decode(), "source": path, "encoding": "base64"}


def _missing(path):
    # what ansible.builtin.slurp says about a file that does not exist
    return {"item": path, "failed": True, "msg": "File not found: %s" % path}


def _denied(path):
    return {"item": path, "failed": True, "msg": "Permission denied: %s" % path}


TRACING = "/sys/kernel/tracing/available_tracers"
DEBUG_TRACING = "/sys/kernel/debug/tracing/available_tracers"


def test_the_tracer_is_found_in_either_place():
    tracers = "hwlat blk function_graph wakeup_dl wakeup_rt wakeup function nop\n"
    assert hwlat_tracer([_read(TRACING, tracers), _missing(DEBUG_TRACING)]) == {
        "available": True, "file": TRACING, "reason": None,
        "tracers": ["hwlat", "blk", "function_graph", "wakeup_dl", "wakeup_rt", "wakeup", "function", "nop"]}
    assert hwlat_tracer([_missing(TRACING), _read(DEBUG_TRACING, tracers)])["file"] == DEBUG_TRACING


def test_a_kernel_without_the_tracer_is_named():
    found = hwlat_tracer([_read(TRACING, "blk function nop\n"), _missing(DEBUG_TRACING)])
    assert (found["available"], found["file"]) == (False, TRACING)
    assert found["reason"] == (
        "the kernel has no hwlat tracer (built without CONFIG_HWLAT_TRACER): /sys/kernel/tracing/available_tracers "
        "lists blk function nop. Fix: boot a kernel built with CONFIG_HWLAT_TRACER=y")


def test_without_tracefs_the_missing_files_are_named():
    found = hwlat_tracer([_missing(TRACING), _missing(DEBUG_TRACING)])
    assert (found["available"], found["file"]) == (False, None)
    assert found["reason"] == (
        "tracefs is not mounted: neither /sys/kernel/tracing/available_tracers nor "
        "/sys/kernel/debug/tracing/available_tracers exists. Fix: mount -t tracefs nodev /sys/kernel/tracing and "
        "run as root (a kernel without CONFIG_TRACING has no tracefs)")


def test_an_unreadable_tracefs_is_not_called_unmounted():
    found = hwlat_tracer([_denied(TRACING), _missing(DEBUG_TRACING)])
    assert found["available"] is False
    assert found["reason"].startswith(
        "tracefs cannot be read: /sys/kernel/tracing/available_tracers: Permission denied: "
        "/sys/kernel/tracing/available_tracers; /sys/kernel/debug/tracing/available_tracers does not exist. Fix: ")


def test_nothing_read_is_said():
    assert hwlat_tracer([])["reason"].startswith("no available_tracers file was read")
