# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The history of rt_validate runs the controller keeps, and what got worse (pure).

The history is one JSON document (the role keeps it as
``<rt_validate_report_root>/history.json``)::

    {"format": 1,
     "hosts": {"node1": [{"run": "20261207T101904Z", "time": "2026-12-07 10:19:04 UTC",
                          "verdict": "pass", "max_us": {"host isolated CPUs 2-3": 37},
                          "failing": []},
                         ...]}}

Per host, the last ``keep`` runs, oldest first: the run's id (the name of
its report directory) and time, the verdict (``fail``, ``warn``, ``pass``
as on the fleet page), the max latency of each judged measurement by
subject (an untuned baseline is a reference, not kept), and the failing
checks as ``<subject>: <check>``. A host that is not in this run keeps
its runs as they were. A run id that is already a host's last run replaces
it (the same run written twice is one run).

What got worse between a host's previous run and this one:

- a check that fails now and did not fail before (it passed, warned, was
  skipped, or was not run);
- a measurement whose max latency grew by more than ``factor`` (default
  1.5): now > factor * before, a max of 0 us counting as 1 us. A
  measurement new in this run, or without a result in either run, is no
  regression.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._common.plain import plain_copy
from ansible_collections.realtime.virt.plugins.module_utils._validate.fleet import VERDICTS, verdict

FORMAT = 1
DEFAULT_KEEP = 20
DEFAULT_FACTOR = 1.5
FIRST_RUN_FIX = "give the content of <rt_validate_report_root>/history.json, or {} before the first run"


class _Shown(object):
    """A value as an error message shows it: its repr, cut after 60 characters."""

    def __init__(self, value):
        self.text = repr(value)
        if len(self.text) > 60:
            self.text = "%s... (a %s)" % (self.text[:57], type(value).__name__)

    def __repr__(self):
        return self.text


def _whole(value):
    if isinstance(value, bool):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number == value or str(value).strip() == str(number) else None


def check_keep(keep, option="keep"):
    """``keep`` as a whole number of runs of at least 1, else an OptionError."""
    number = _whole(keep)
    if number is None or number < 1:
        raise OptionError(option, keep, "not a number of runs to keep per host",
                          "give a whole number of at least 1, such as %d (rt_validate_history_keep)" % DEFAULT_KEEP)
    return number


def check_factor(factor, option="factor"):
    """``factor`` as a number of at least 1, else an OptionError."""
    try:
        number = float(factor)
    except (TypeError, ValueError):
        number = None
    if isinstance(factor, bool) or number is None or math.isnan(number) or number < 1 or math.isinf(number):
        raise OptionError(option, factor, "not a factor of growth of the max latency",
                          "give a number of at least 1, such as %s (rt_validate_regression_factor)" % DEFAULT_FACTOR)
    return number


def check_history(history, option="history"):
    """A plain copy of ``history`` with every host's runs a list, else an OptionError."""
    if history is None:
        return {"format": FORMAT, "hosts": {}}
    if not isinstance(history, dict):
        raise OptionError(option, _Shown(history), "not a history of rt_validate runs (a mapping with 'hosts')",
                          FIRST_RUN_FIX)
    if not history:
        return {"format": FORMAT, "hosts": {}}
    if history.get("format") != FORMAT or not isinstance(history.get("hosts"), dict):
        raise OptionError(option + ".format", _Shown(history.get("format")),
                          "not a history this collection writes (format %d with a mapping 'hosts')" % FORMAT,
                          FIRST_RUN_FIX + "; move a file of another version aside")
    copy = plain_copy(history)
    for host, runs in copy["hosts"].items():
        if not isinstance(runs, list) or not all(isinstance(run, dict) for run in runs):
            raise OptionError("%s.hosts[%r]" % (option, host), _Shown(runs),
                              "not a list of runs", FIRST_RUN_FIX)
    return copy


def host_run(report, run, time=""):
    """One host's entry of the history for this run."""
    maxima = {}
    for item in report.get("measurements") or []:
        if not isinstance(item, dict) or item.get("status") == "baseline":
            continue
        value = (item.get("cyclictest") or {}).get("max_us")
        if value is None or isinstance(value, bool):
            continue
        subject = str(item.get("subject") or "measurement")
        maxima[subject] = max(int(value), maxima.get(subject, int(value)))
    failing = []
    for item in report.get("checks") or []:
        if isinstance(item, dict) and item.get("status") == "fail":
            name = "%s: %s" % (item.get("subject"), item.get("check"))
            if name not in failing:
                failing.append(name)
    return {"run": str(run), "time": str(time or ""), "verdict": verdict(report), "max_us": maxima,
            "failing": failing}


def update_history(history, reports, run, time="", keep=DEFAULT_KEEP):
    """The history with this run's reports appended, each host's runs trimmed to the last ``keep``."""
    keep = check_keep(keep)
    new = check_history(history)
    if not isinstance(run, str) or not run.strip():
        raise OptionError("run", run, "not the id of a run", "give the name of the run's report directory, "
                          "such as rt_validate_report_dir | basename")
    for report in reports:
        host = str(report.get("host") or "?")
        runs = [entry for entry in new["hosts"].get(host, []) if entry.get("run") != str(run)]
        runs.append(host_run(report, run, time))
        new["hosts"][host] = runs[max(0, len(runs) - keep):]
    new["format"] = FORMAT
    return new


def _number(value):
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def host_regressions(host, runs, factor=DEFAULT_FACTOR):
    """What got worse between the last two of one host's ``runs``."""
    if len(runs) < 2:
        return []
    before, now = runs[-2], runs[-1]
    found = []
    failed_before = set(before.get("failing") or [])
    for name in now.get("failing") or []:
        if name not in failed_before:
            found.append({"host": host, "kind": "check", "what": name, "before": "not failing", "now": "fail",
                          "run": now.get("run"), "previous_run": before.get("run")})
    earlier = before.get("max_us") or {}
    for subject, value in sorted((now.get("max_us") or {}).items()):
        old, new = _number(earlier.get(subject)), _number(value)
        if old is not None and new is not None and new > factor * max(old, 1.0):
            found.append({"host": host, "kind": "latency", "what": "max latency of %s" % subject,
                          "before": int(old), "now": int(new), "run": now.get("run"),
                          "previous_run": before.get("run")})
    return found


def regressions(history, hosts=None, factor=DEFAULT_FACTOR):
    """What got worse since each host's previous run, hosts by name (only ``hosts`` when given)."""
    factor = check_factor(factor)
    history = check_history(history)
    names = sorted(history["hosts"]) if hosts is None else sorted(set(str(h) for h in hosts))
    found = []
    for host in names:
        found.extend(host_regressions(host, history["hosts"].get(host) or [], factor))
    return found


def trend(runs):
    """``[(run, verdict, max_us)]`` of one host's runs: max_us the highest of the run's measurements (or None)."""
    out = []
    for entry in runs:
        values = [v for v in (_number(x) for x in (entry.get("max_us") or {}).values()) if v is not None]
        state = entry.get("verdict") if entry.get("verdict") in VERDICTS else "pass"
        out.append((str(entry.get("run") or ""), state, int(max(values)) if values else None))
    return out
