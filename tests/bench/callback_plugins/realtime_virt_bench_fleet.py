# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: realtime_virt_bench_fleet
type: aggregate
short_description: Write each task's outcome per host and the controller's peak memory, for tests/bench/bench_fleet.py
description:
  - Counts, for each task of the play, the hosts that returned ok, failed (ignored or not), were skipped or
    unreachable, and keeps the first line of each failed host's message (the benchmark checks that exactly the
    hosts it built with a problem failed their plan, and for the right reason).
  - When the play ends, writes that mapping and the peak resident memory of the C(ansible-playbook) main
    process (C(getrusage(RUSAGE_SELF).ru_maxrss), kB; the process that holds the inventory, every host's
    variables and results; its forked workers and the module processes are not in it) as JSON to the file
    named by E(REALTIME_VIRT_BENCH_FLEET); does nothing when that variable is unset or empty.
requirements:
  - enabled through C(ANSIBLE_CALLBACKS_ENABLED=realtime_virt_bench_fleet), with this directory on
    C(ANSIBLE_CALLBACK_PLUGINS)
"""

import json
import os
import resource

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "realtime_virt_bench_fleet"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super(CallbackModule, self).__init__(*args, **kwargs)
        self._path = os.environ.get("REALTIME_VIRT_BENCH_FLEET") or None
        self._tasks = {}

    def _entry(self, result):
        name = result._task.get_name()
        return self._tasks.setdefault(name, {"ok": 0, "failed": {}, "skipped": 0, "unreachable": 0})

    def v2_runner_on_ok(self, result):
        self._entry(result)["ok"] += 1

    def v2_runner_on_failed(self, result, ignore_errors=False):
        message = str(result._result.get("msg") or "")
        problems = result._result.get("problems")
        if isinstance(problems, list) and problems:
            message = " | ".join(str(problem) for problem in problems)
        self._entry(result)["failed"][result._host.get_name()] = message.splitlines()[0][:500] if message else ""

    def v2_runner_on_skipped(self, result):
        self._entry(result)["skipped"] += 1

    def v2_runner_on_unreachable(self, result):
        self._entry(result)["unreachable"] += 1

    def v2_playbook_on_stats(self, stats):
        if not self._path:
            return
        with open(self._path, "w") as handle:
            json.dump({"tasks": self._tasks, "controller_max_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss},
                      handle, indent=1, sort_keys=True)
