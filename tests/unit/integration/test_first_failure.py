# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The excerpt run.sh prints for a failed integration target: the failed task, not a neighbour."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from integration_scripts import load

first_failure = load("first_failure")

LOG = """PLAY [x] ****
TASK [Passes] ****
ok: [localhost]
TASK [Breaks] ****
[ERROR]: Task failed: Module failed: non-zero return code
failed: [localhost] (item=a) =>
    stderr: the reason
TASK [Cleans up] ****
fatal: [localhost]: FAILED! => later
""".splitlines()


def test_the_excerpt_starts_at_the_failed_task_and_holds_its_reason():
    found = first_failure.first_failure(LOG)
    assert found[0] == "TASK [Breaks] ****"
    assert "    stderr: the reason" in found


def test_a_log_without_a_failure_gives_nothing():
    assert first_failure.first_failure(["TASK [Passes] ****", "ok: [localhost]"]) == []


def test_the_excerpt_is_cut_to_its_limit():
    found = first_failure.first_failure(["TASK [Long] ****", "fatal: [h]: FAILED!"] + ["x"] * 500)
    assert len(found) == first_failure.MAX_LINES
