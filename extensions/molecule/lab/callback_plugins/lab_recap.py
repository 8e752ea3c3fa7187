# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: lab_recap
type: aggregate
short_description: Record each playbook run's recap for the lab molecule scenario
description:
  - Writes one JSON file per C(ansible-playbook) run into the directory named by the
    E(REALTIME_VIRT_LAB_RECAPS) environment variable (nothing when it is unset) - the
    playbook, whether it ran in check mode, its start and end time, the recap counters per host
    and the names of the tasks that reported a change.
  - The lab scenario's verify step compares them - the changes a C(--check) run predicted
    with the changes the first real run made, and the second run's changes with zero.
  - When E(REALTIME_VIRT_LAB_STEPS) names a file, also appends one JSON line per run to it
    (the playbook, check mode, extra variables, start and end) - the lab's steps table that
    C(make test) prints.
requirements:
  - enabled through C(ANSIBLE_CALLBACKS_ENABLED=lab_recap)
"""

import json
import os
import time

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "lab_recap"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super(CallbackModule, self).__init__()
        self._playbook = None
        # The process's start (its /proc directory's time), not this object's:
        # callbacks may be set up after the playbook began.
        try:
            self._started = os.stat("/proc/%d" % os.getpid()).st_mtime
        except OSError:
            self._started = time.time()
        self._changed_tasks = {}

    def v2_playbook_on_start(self, playbook):
        self._playbook = os.path.basename(playbook._file_name)

    def v2_runner_on_ok(self, result):
        if result._result.get("changed", False):
            host = result._host.get_name()
            self._changed_tasks.setdefault(host, []).append(result._task.get_name())

    def v2_playbook_on_stats(self, stats):
        from ansible import context
        steps = os.environ.get("REALTIME_VIRT_LAB_STEPS")
        if steps:
            step = {
                "playbook": self._playbook,
                "check_mode": bool(context.CLIARGS.get("check", False)),
                "extra_vars": list(context.CLIARGS.get("extra_vars", ()) or ()),
                "started": self._started,
                "finished": time.time(),
            }
            with open(steps, "a") as handle:
                handle.write(json.dumps(step, sort_keys=True) + "\n")
        directory = os.environ.get("REALTIME_VIRT_LAB_RECAPS")
        if not directory:
            return
        hosts = {}
        for host in sorted(stats.processed):
            summary = stats.summarize(host)
            summary["changed_tasks"] = self._changed_tasks.get(host, [])
            hosts[host] = summary
        record = {
            "playbook": self._playbook,
            "check_mode": bool(context.CLIARGS.get("check", False)),
            "started": self._started,
            "finished": time.time(),
            "hosts": hosts,
        }
        os.makedirs(directory, exist_ok=True)
        name = "%.6f-%s-%d.json" % (record["finished"], self._playbook, os.getpid())
        with open(os.path.join(directory, name), "w") as handle:
            json.dump(record, handle, indent=1, sort_keys=True)
