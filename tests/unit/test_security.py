# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Security basics of the roles and playbooks, checked on their YAML.

* ``shell``/``command``/``raw`` never receive a user variable inside a
  command string: a template expression there may only name private
  variables (``__<role>_*`` from vars/, or loop items built from them) and
  ``role_path``; user values go through ``argv`` (one list item each, no
  shell parsing) or a module.
* Every task that writes a file (template, copy, file, lineinfile,
  blockinfile; not ``state: absent``) sets ``owner`` and ``mode``.
* Tasks that handle something named like a secret set ``no_log: true``.

The walk covers every task list of every role (tasks/ and handlers/) and
every playbook, including blocks, rescue and always sections.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import os
import re

import pytest
import yaml

from jinja2 import Environment, meta

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMANDS = ("shell", "command", "raw", "script")
WRITERS = ("template", "copy", "file", "lineinfile", "blockinfile")
SECRET = re.compile(r"(passw|secret|token|private_key|api_key|credential)", re.IGNORECASE)
# names a command string may interpolate: private role variables and role_path
ALLOWED = re.compile(r"^(__[a-z0-9_]+|role_path|item|ansible_playbook_python)$")
EXPRESSION = re.compile(r"{{(.*?)}}|{%(.*?)%}", re.DOTALL)
QUOTED = re.compile(r"\|\s*(ansible\.builtin\.)?quote\s*$")


class _AnyName(dict):
    """Filters and tests the parser accepts whatever their name (Ansible's are not loaded here)."""

    def __contains__(self, key):
        return True

    def __getitem__(self, key):
        return lambda *args, **kwargs: None


_ENV = Environment()
_ENV.filters = _AnyName()
_ENV.tests = _AnyName()


def _short(action):
    for prefix in ("ansible.builtin.", "ansible.legacy."):
        if action.startswith(prefix):
            return action[len(prefix):]
    return action


def _tasks(items, where):
    for task in items or []:
        if not isinstance(task, dict):
            continue
        for section in ("block", "rescue", "always"):
            if section in task:
                yield from _tasks(task[section], where)
        if "block" not in task:
            yield where, task


def _files():
    paths = sorted(glob.glob(os.path.join(TOP, "roles", "*", "tasks", "*.yml"))
                   + glob.glob(os.path.join(TOP, "roles", "*", "handlers", "*.yml")))
    for path in paths:
        yield os.path.relpath(path, TOP), yaml.safe_load(open(path)) or []
    for path in sorted(glob.glob(os.path.join(TOP, "playbooks", "*.yml"))):
        plays = yaml.safe_load(open(path)) or []
        for play in plays:
            for section in ("pre_tasks", "tasks", "post_tasks", "handlers"):
                yield os.path.relpath(path, TOP), play.get(section) or []


ALL_TASKS = [item for path, items in _files() for item in _tasks(items, path)]


def _action(task):
    for key, value in task.items():
        name = _short(key)
        if name in COMMANDS + WRITERS:
            return name, value
    return None, None


def _label(where, task):
    return "%s: %s" % (where, task.get("name", "(unnamed)"))


def _names(text):
    """Variables a command string interpolates without shell quoting."""
    names = set()
    for match in EXPRESSION.finditer(text):
        expression = (match.group(1) or match.group(2) or "").strip()
        if match.group(1) is not None and QUOTED.search(expression):
            continue  # '{{ value | quote }}' reaches the shell as one quoted word
        source = "{{ %s }}" % expression if match.group(1) is not None else "{%% %s %%}{%% endif %%}" % expression
        try:
            names.update(meta.find_undeclared_variables(_ENV.parse(source)))
        except Exception:  # pylint: disable=broad-except
            # statement tags other than 'if': read the names by hand
            names.update(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\b", expression))
    return names


def test_the_walk_sees_the_roles():
    assert len(ALL_TASKS) > 50
    assert any(_action(task)[0] == "command" for _where, task in ALL_TASKS)


@pytest.mark.parametrize("where, task", [t for t in ALL_TASKS if _action(t[1])[0] in COMMANDS],
                         ids=lambda value: value if isinstance(value, str) else value.get("name", "?"))
def test_no_user_variable_inside_a_command_string(where, task):
    name, value = _action(task)
    strings = []
    if isinstance(value, str):
        strings.append(value)
    elif isinstance(value, dict):
        if "argv" in value:
            assert name == "command", "%s: argv is only for command" % _label(where, task)
            strings = []
        elif isinstance(value.get("cmd"), str):
            strings.append(value["cmd"])
    shell = task.get("args", {}).get("cmd") if isinstance(task.get("args"), dict) else None
    if isinstance(shell, str):
        strings.append(shell)
    for text in strings:
        bad = sorted(n for n in _names(text) if not ALLOWED.match(n))
        assert not bad, ("%s interpolates %s into a %s string; pass user values through argv"
                         % (_label(where, task), ", ".join(bad), name))


@pytest.mark.parametrize("where, task", [t for t in ALL_TASKS if _action(t[1])[0] in WRITERS],
                         ids=lambda value: value if isinstance(value, str) else value.get("name", "?"))
def test_every_written_file_has_owner_and_mode(where, task):
    name, value = _action(task)
    assert isinstance(value, dict), "%s: write %s with key: value arguments" % (_label(where, task), name)
    if value.get("state") == "absent" or (name == "lineinfile" and value.get("state") == "absent"):
        return
    if name == "file" and value.get("state") in ("touch", None) and "path" in value and "mode" not in value:
        pass  # reported below like any other write
    if name == "file" and value.get("state") == "link":
        return  # a symlink has no mode or owner of its own
    required = ("owner", "mode")
    if task.get("delegate_to") == "localhost" and task.get("become") is False:
        # written on the controller as the user who runs Ansible: it owns the file
        required = ("mode",)
    missing = [key for key in required if key not in value]
    assert not missing, "%s writes a file without %s" % (_label(where, task), " and ".join(missing))
    assert not re.match(r"^0?[0-7]{3}$", str(value["mode"])) or isinstance(value["mode"], str), \
        "%s: quote the mode (%r) so YAML keeps it octal" % (_label(where, task), value["mode"])


def test_secrets_are_kept_out_of_the_logs():
    leaks = []
    for where, task in ALL_TASKS:
        text = yaml.safe_dump({k: v for k, v in task.items() if k != "name"})
        if SECRET.search(text) and task.get("no_log") is not True:
            leaks.append(_label(where, task))
    assert leaks == []
