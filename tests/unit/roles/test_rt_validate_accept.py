# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The rt_validate role's early refusal of a bad rt_validate_accept.

The report filter refuses a bad entry too, but only at the end of the run
(after a soak that may last hours). The role's assert at the top of
tasks/main.yml refuses it before anything runs. Its conditions use only
Jinja's own tests and filters, so they are evaluated here with plain Jinja,
in order, as ansible.builtin.assert does (it stops at the first false one);
``to_json`` of the message is given as json.dumps.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import jinja2
import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
TASK_NAME = "Refuse an entry of rt_validate_accept that is not a check name"


def _task():
    with open(os.path.join(TOP, "roles", "rt_validate", "tasks", "main.yml")) as handle:
        tasks = yaml.safe_load(handle)
    found = [task for task in tasks if task.get("name") == TASK_NAME]
    assert len(found) == 1, "tasks/main.yml has no single task %r" % TASK_NAME
    return found[0]["ansible.builtin.assert"]


def _assert(value):
    """The message of the role's assert for rt_validate_accept=value, or None when it passes."""
    task = _task()
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    env.filters["to_json"] = json.dumps
    for condition in task["that"]:
        if not env.compile_expression(condition)(rt_validate_accept=value):
            return env.from_string(task["fail_msg"]).render(rt_validate_accept=value)
    return None


def test_the_assert_runs_before_anything_else_of_the_role_but_the_os_family():
    with open(os.path.join(TOP, "roles", "rt_validate", "tasks", "main.yml")) as handle:
        names = [task.get("name") for task in yaml.safe_load(handle)]
    assert names.index(TASK_NAME) < names.index("Install cyclictest and the probe builder's tools")
    assert names.index(TASK_NAME) < names.index("Read the host's CPUs and kernel")


@pytest.mark.parametrize("value", [[], ["tuned-adm verify"], ["tuned-adm verify", "interrupts", "no such check"]])
def test_check_names_pass(value):
    assert _assert(value) is None


@pytest.mark.parametrize("value, shown", [
    ([""], '[""]'),
    (["interrupts", "   "], '["interrupts", "   "]'),
    (["interrupts", 5], '["interrupts", 5]'),
    ([None], "[null]"),
    ([["interrupts"]], '[["interrupts"]]'),
    ("tuned-adm verify", '"tuned-adm verify"'),
    ({"tuned-adm verify": True}, '{"tuned-adm verify": true}'),
    (None, "null"),
])
def test_what_names_no_check_is_refused_with_the_value_and_the_fix(value, shown):
    assert _assert(value) == (
        "rt_validate_accept=%s must be a list of check names, each a non-empty string. Fix: give the names as "
        "the CHECK column of the report shows them, such as ['tuned-adm verify'], and remove empty entries." % shown)


def test_the_report_is_built_with_the_option():
    # the filter's effect is tested with the filter; here only that the role hands the option to it
    with open(os.path.join(TOP, "roles", "rt_validate", "tasks", "report.yml")) as handle:
        tasks = yaml.safe_load(handle)
    build = [task for task in tasks if task.get("name") == "Build the report"][0]
    expression = " ".join(build["vars"]["__rt_validate_report"].split())
    assert expression == ("{{ __rt_validate_checks | realtime.virt.rt_validate_report(inventory_hostname, "
                          "accept=rt_validate_accept) }}")
