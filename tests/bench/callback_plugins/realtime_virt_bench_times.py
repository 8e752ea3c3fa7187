# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: realtime_virt_bench_times
type: aggregate
short_description: Write the wall time of each task of a play, for the benchmarks in tests/bench
description:
  - A task's time runs from the moment Ansible starts it to the moment its last result
    (of the whole loop, for a loop) comes back, so it holds what the task costs inside the
    play and leaves out what every C(ansible-playbook) pays once (start-up, parsing, inventory).
  - When the play ends, writes a JSON mapping of each task name to its seconds to the file named
    by E(REALTIME_VIRT_BENCH_TIMES); does nothing when that variable is unset or empty. A task
    that runs more than once keeps the sum of its runs.
requirements:
  - enabled through C(ANSIBLE_CALLBACKS_ENABLED=realtime_virt_bench_times), with this directory on
    C(ANSIBLE_CALLBACK_PLUGINS)
"""

import json
import os
import time

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "realtime_virt_bench_times"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super(CallbackModule, self).__init__(*args, **kwargs)
        self._path = os.environ.get("REALTIME_VIRT_BENCH_TIMES") or None
        self._times = {}
        self._started = {}

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._started[task._uuid] = (task.get_name(), time.monotonic())

    def _ended(self, result):
        task = result._task
        name, start = self._started.get(task._uuid, (task.get_name(), None))
        if start is None:
            return
        # a loop reports each item first and the whole task last: the last report wins
        self._times.setdefault(task._uuid, [name, 0.0, start])
        entry = self._times[task._uuid]
        entry[1] = time.monotonic() - entry[2]

    def v2_runner_on_ok(self, result):
        self._ended(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._ended(result)

    def v2_runner_on_skipped(self, result):
        self._ended(result)

    def v2_playbook_on_stats(self, stats):
        if not self._path:
            return
        totals = {}
        for name, seconds, dummy in self._times.values():
            totals[name] = totals.get(name, 0.0) + seconds
        with open(self._path, "w") as handle:
            json.dump(totals, handle, indent=1, sort_keys=True)
