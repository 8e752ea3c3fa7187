# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: realtime_virt_coverage
type: aggregate
short_description: Record which role tasks ran, for the role-task coverage check
description:
  - Appends one JSON line per role task that ran to a file of its own (one per C(ansible-playbook)
    process) in the directory named by the E(REALTIME_VIRT_COVERAGE_DIR) environment variable;
    does nothing when that variable is unset or empty.
  - A role task is a task or handler whose file lies under C(roles/<name>/tasks/) or
    C(roles/<name>/handlers/) (a checkout, an installed collection or any roles path); tasks of
    playbooks and test plays are not recorded.
  - A task counts when it ran on at least one host - ok, changed, failed, or failed with
    C(ignore_errors). A skipped task, a loop whose items were all skipped and an unreachable host
    do not count. A task that ran in check mode counts.
  - C(tests/coverage/role_tasks.py) compares the records with the tasks of C(roles/).
requirements:
  - enabled through C(ANSIBLE_CALLBACKS_ENABLED=realtime_virt_coverage), with this directory on
    C(ANSIBLE_CALLBACK_PLUGINS)
"""

import json
import os
import re
import time

from ansible import context
from ansible.plugins.callback import CallbackBase

# The last "roles/<name>/" of the path, then the file relative to the role.
ROLE_FILE = re.compile(r"^(?:.*/)?roles/(?P<role>[^/]+)/(?P<file>(?:tasks|handlers)/.+)$")


def role_task(path):
    """(role, file, line) of a task's "file:line" path, or None when it is not a role task."""
    if not path:
        return None
    file_path, sep, line = str(path).rpartition(":")
    if not sep or not line.isdigit():
        return None
    match = ROLE_FILE.match(file_path)
    if not match:
        return None
    return match.group("role"), match.group("file"), int(line)


def _all_items_skipped(result):
    items = result.get("results")
    return isinstance(items, list) and bool(items) and all(
        isinstance(item, dict) and item.get("skipped") for item in items)


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "realtime_virt_coverage"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super(CallbackModule, self).__init__()
        self._directory = os.environ.get("REALTIME_VIRT_COVERAGE_DIR", "")
        self._file = None
        self._playbook = None
        self._seen = set()

    def v2_playbook_on_start(self, playbook):
        self._playbook = getattr(playbook, "_file_name", None)

    def v2_runner_on_ok(self, result):
        if result._result.get("skipped") or _all_items_skipped(result._result):
            return
        self._record(result, "changed" if result._result.get("changed") else "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, "ignored" if ignore_errors else "failed")

    def _check_mode(self, task):
        # The task's own check_mode when it sets one, else the run's --check.
        value = getattr(task, "check_mode", None)
        if isinstance(value, bool):
            return value
        return bool(context.CLIARGS.get("check", False))

    def _record(self, result, status):
        if not self._directory:
            return
        task = result._task
        where = role_task(task.get_path())
        if where is None:
            return
        check_mode = self._check_mode(task)
        key = where + (status, check_mode)
        if key in self._seen:
            return
        self._seen.add(key)
        role, path, line = where
        record = {
            "role": role,
            "file": path,
            "line": line,
            "name": str(task.name or ""),
            "action": str(task.action),
            "status": status,
            "check_mode": check_mode,
            "host": result._host.get_name(),
            "path": str(task.get_path()),
            "playbook": self._playbook,
            "time": round(time.time(), 3),
        }
        self._write(record)

    def _write(self, record):
        try:
            if self._file is None:
                os.makedirs(self._directory, exist_ok=True)
                self._file = os.path.join(self._directory, "%s-%d.jsonl" % (
                    time.strftime("%Y%m%dT%H%M%S"), os.getpid()))
            with open(self._file, "a") as handle:
                handle.write(json.dumps(record, sort_keys=True) + "\n")
        except (OSError, IOError) as exc:
            self._display.warning("realtime_virt_coverage: cannot write to %s, recording stops: %s" % (
                self._directory, exc))
            self._directory = ""
