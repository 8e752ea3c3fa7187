#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Role-task coverage: did every task of roles/ run in some test?

  role_tasks.py [--roles DIR] [--records DIR] [--allowlist FILE] [--verbose | --list]

1. Lists every task of roles/*/tasks/**.yml and roles/*/handlers/**.yml from
   the YAML, with the line Ansible reports for it (the line of its first
   key). Blocks are walked (block, rescue, always) but not counted;
   include_tasks and include_role entries are tasks (Ansible reports them
   as ok or skipped); import_tasks and import_role are not (Ansible
   replaces them by the imported tasks before the run); meta tasks are not
   counted either: Ansible runs them in its strategy and no callback
   learns that they ran.
2. Reads the records the callback realtime_virt_coverage wrote
   (REALTIME_VIRT_COVERAGE_DIR, default tests/output/coverage, every
   *.jsonl file: the union of all recorded runs).
3. Reads the allowlist, the bullets of the section "## Role tasks no test
   runs here" of docs/testing.md:
       - `roles/<role>/tasks/<file>.yml` `<task name>`: why, and what tests it
4. Prints "role-task coverage: N of M tasks ran (K allowlisted)" and every
   task that never ran and is not allowlisted; exits 1 when there is one,
   when an allowlist entry names no task, a task that ran (stale) or a name
   two tasks of its file share, or when there are no records at all.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import argparse
import collections
import glob
import json
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

# The allowlist's heading, at whatever level the document puts it; the section ends at
# the next heading of that level or a higher one.
SECTION = "Role tasks no test runs here"
HEADING = re.compile(r"^(#+) (.*?)\s*$")
ENTRY = re.compile(r"^[-*]\s+`(?P<file>[^`]+)`\s+`(?P<name>[^`]+)`\s*:?\s*(?P<reason>.*)$")
# What a recorded status means: ran (ok, changed, failed, failed and ignored).
RAN = frozenset(("ok", "changed", "failed", "ignored"))
COUNTED = frozenset(("task", "handler"))
IMPORTS = frozenset(("import_tasks", "import_role", "import_playbook"))

# Task keywords (everything of a task mapping that is not its action); the
# module name is whatever key is left.
try:
    from ansible.playbook.handler import Handler
    KEYWORDS = frozenset(Handler.fattributes) | frozenset(("local_action",))
except ImportError:  # pragma: no cover
    KEYWORDS = frozenset((
        "action", "any_errors_fatal", "args", "async", "become", "become_exe", "become_flags",
        "become_method", "become_user", "changed_when", "check_mode", "collections", "connection",
        "debugger", "delay", "delegate_facts", "delegate_to", "diff", "environment", "failed_when",
        "ignore_errors", "ignore_unreachable", "listen", "local_action", "loop", "loop_control",
        "module_defaults", "name", "no_log", "notify", "poll", "port", "register", "remote_user",
        "retries", "run_once", "tags", "throttle", "timeout", "until", "vars", "when"))

Task = collections.namedtuple("Task", "role file line name action kind")
Entry = collections.namedtuple("Entry", "file name reason lineno")


def where(task):
    """roles/<role>/<file>:<line>, as a reader finds it."""
    return "roles/%s/%s:%d" % (task.role, task.file, task.line)


def _short(action):
    for prefix in ("ansible.builtin.", "ansible.legacy."):
        if action.startswith(prefix):
            return action[len(prefix):]
    return action


def _action(keys):
    for keyword in ("action", "local_action"):
        node = keys.get(keyword)
        if isinstance(node, yaml.ScalarNode):
            return (node.value.split() or [""])[0]
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == "module" and isinstance(value, yaml.ScalarNode):
                    return value.value
    for key in keys:
        if key not in KEYWORDS and not key.startswith("with_"):
            return key
    return ""


def _walk(node, found):
    """Task mappings of a task list, blocks walked into and not counted."""
    if not isinstance(node, yaml.SequenceNode):
        return
    for item in node.value:
        if not isinstance(item, yaml.MappingNode):
            continue
        keys = dict((key.value, value) for key, value in item.value if isinstance(key, yaml.ScalarNode))
        if "block" in keys:
            for section in ("block", "rescue", "always"):
                _walk(keys.get(section), found)
            continue
        found.append((item, keys))


def tasks_of_file(path, role, relative):
    """The tasks of one task or handler file."""
    with open(path) as handle:
        root = yaml.compose(handle, Loader=yaml.SafeLoader)
    found = []
    _walk(root, found)
    tasks = []
    default_kind = "handler" if relative.startswith("handlers/") else "task"
    for node, keys in found:
        action = _action(keys)
        name = keys.get("name")
        short = _short(action)
        if short == "meta":
            kind = "meta"
        elif short in IMPORTS:
            kind = "import"
        else:
            kind = default_kind
        tasks.append(Task(role, relative, node.start_mark.line + 1,
                          name.value if isinstance(name, yaml.ScalarNode) else None, action, kind))
    return tasks


def list_tasks(roles_dir):
    """Every task of roles_dir/*/tasks and roles_dir/*/handlers, sorted by role, file and line."""
    tasks = []
    for role in sorted(os.listdir(roles_dir)):
        role_dir = os.path.join(roles_dir, role)
        for part in ("tasks", "handlers"):
            top = os.path.join(role_dir, part)
            for dirpath, dirnames, filenames in os.walk(top):
                dirnames.sort()
                for filename in sorted(filenames):
                    if not filename.endswith((".yml", ".yaml")):
                        continue
                    path = os.path.join(dirpath, filename)
                    relative = os.path.relpath(path, role_dir).replace(os.sep, "/")
                    tasks.extend(tasks_of_file(path, role, relative))
    return sorted(tasks, key=lambda task: (task.role, task.file, task.line))


def read_records(directory):
    """(statuses by (role, file, line), the files read, lines that were not JSON records)."""
    ran = collections.defaultdict(set)
    files = sorted(glob.glob(os.path.join(directory, "*.jsonl")))
    bad = 0
    for path in files:
        with open(path) as handle:
            for line in handle:
                try:
                    record = json.loads(line)
                    key = (record["role"], record["file"], int(record["line"]))
                    status = record["status"]
                except (ValueError, KeyError, TypeError):
                    bad += 1
                    continue
                ran[key].add(status)
    return ran, files, bad


def read_allowlist(path):
    """(entries, problems) of the allowlist section of a Markdown file; no section, no entry."""
    entries, problems = [], []
    with open(path) as handle:
        lines = handle.read().splitlines()
    level = None
    for number, line in enumerate(lines, 1):
        heading = HEADING.match(line)
        if heading and level is None and heading.group(2) == SECTION:
            level = len(heading.group(1))
            continue
        if heading and level is not None and len(heading.group(1)) <= level:
            break
        if level is None:
            continue
        if re.match(r"^[-*]\s", line):
            match = ENTRY.match(line)
            if not match:
                problems.append("%s:%d: allowlist bullet is not \"- `roles/<role>/<file>` `<task name>`: why\": %s"
                                % (path, number, line.strip()))
                continue
            entries.append(Entry(match.group("file"), match.group("name"), match.group("reason").strip(), number))
        elif entries and line.startswith((" ", "\t")) and line.strip():
            last = entries[-1]
            entries[-1] = last._replace(reason=(last.reason + " " + line.strip()).strip())
    return entries, problems


Result = collections.namedtuple("Result", "counted ran allowlisted missing problems notes")


def compare(tasks, ran, entries, allowlist_name="the allowlist"):
    """Compare the listed tasks with the recorded runs and the allowlist."""
    counted = [task for task in tasks if task.kind in COUNTED]
    did_run = [task for task in counted if ran.get((task.role, task.file, task.line), set()) & RAN]
    ran_keys = set((task.role, task.file, task.line) for task in did_run)
    by_file = collections.defaultdict(list)
    for task in tasks:
        by_file["roles/%s/%s" % (task.role, task.file)].append(task)

    problems, notes = [], []
    allowlisted = {}
    seen = {}
    for entry in entries:
        label = "%s:%d: allowlist entry `%s` `%s`" % (allowlist_name, entry.lineno, entry.file, entry.name)
        if (entry.file, entry.name) in seen:
            problems.append("%s: listed twice (first on line %d)" % (label, seen[(entry.file, entry.name)]))
            continue
        seen[(entry.file, entry.name)] = entry.lineno
        if entry.file not in by_file:
            problems.append("%s: unknown entry, no task file %s" % (label, entry.file))
            continue
        named = [task for task in by_file[entry.file] if task.name == entry.name]
        if not named:
            problems.append("%s: unknown entry, no task of that name in %s" % (label, entry.file))
            continue
        if len(named) > 1:
            problems.append("%s: %d tasks of %s share that name (lines %s); names must be unique in a file for "
                            "an entry to say which one it means" % (
                                label, len(named), entry.file, ", ".join(str(task.line) for task in named)))
            continue
        task = named[0]
        if task.kind not in COUNTED:
            problems.append("%s: a %s task, which is not counted; remove the entry" % (label, task.kind))
            continue
        if (task.role, task.file, task.line) in ran_keys:
            problems.append("%s: stale entry, the task ran in a recorded test (%s); remove the entry"
                            % (label, where(task)))
            continue
        if not entry.reason:
            problems.append("%s: gives no reason" % label)
            continue
        allowlisted[(task.role, task.file, task.line)] = entry
    missing = [task for task in counted
               if (task.role, task.file, task.line) not in ran_keys
               and (task.role, task.file, task.line) not in allowlisted]

    for path, file_tasks in sorted(by_file.items()):
        names = collections.Counter(task.name for task in file_tasks if task.name)
        for name, count in sorted(names.items()):
            if count > 1:
                notes.append("%s: %d tasks are named %r (lines %s); an allowlist entry cannot name them" % (
                    path, count, name, ", ".join(str(task.line) for task in file_tasks if task.name == name)))
    meta = [task for task in tasks if task.kind == "meta"]
    if meta:
        notes.append("not counted: %d meta task(s) (%s); no callback sees a meta task run"
                     % (len(meta), ", ".join(where(task) for task in meta)))
    known = set((task.role, task.file, task.line) for task in tasks)
    roles = set(task.role for task in tasks)
    unknown = sorted(key for key in ran if key[0] in roles and key not in known)
    if unknown:
        notes.append("%d recorded task(s) of these roles are not in the tree, recorded before the roles changed? %s"
                     % (len(unknown), ", ".join("roles/%s/%s:%d" % key for key in unknown)))
    return Result(counted, did_run, allowlisted, missing, problems, notes)


def _task_line(task):
    return "  %-48s %s" % (where(task), task.name or "(no name, %s)" % task.action)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--roles", default=os.path.join(TOP, "roles"))
    parser.add_argument("--records", default=os.environ.get("REALTIME_VIRT_COVERAGE_DIR")
                        or os.path.join(TOP, "tests", "output", "coverage"))
    parser.add_argument("--allowlist", default=os.path.join(TOP, "docs", "testing.md"))
    parser.add_argument("--verbose", action="store_true", help="also list the tasks that ran and the allowlisted ones")
    parser.add_argument("--list", action="store_true", help="only list the tasks of the roles, as counted")
    args = parser.parse_args(argv)

    tasks = list_tasks(args.roles)
    if args.list:
        for task in tasks:
            print("%-8s %-48s %s" % (task.kind, where(task), task.name or ""))
        return 0
    ran, files, bad = read_records(args.records)
    entries, problems = read_allowlist(args.allowlist)
    result = compare(tasks, ran, entries, os.path.relpath(args.allowlist))
    problems = problems + result.problems
    if bad:
        problems.append("%d line(s) of %s are not coverage records" % (bad, args.records))
    if not files:
        problems.append("no recorded run in %s: run the tests with REALTIME_VIRT_COVERAGE_DIR set "
                        "(make does; see docs/testing.md)" % args.records)

    print("role-task coverage: %d of %d tasks ran (%d allowlisted)" % (
        len(result.ran), len(result.counted), len(result.allowlisted)))
    print("  from %d recorded run(s) in %s" % (len(files), args.records))
    for note in result.notes:
        print("note: %s" % note)
    if args.verbose:
        print("ran (%d):" % len(result.ran))
        for task in result.ran:
            print(_task_line(task))
        print("allowlisted (%d):" % len(result.allowlisted))
        for task in result.counted:
            if (task.role, task.file, task.line) in result.allowlisted:
                print(_task_line(task))
    if result.missing:
        print("never ran and not allowlisted (%d):" % len(result.missing))
        for task in result.missing:
            print(_task_line(task))
    for problem in problems:
        print("error: %s" % problem)
    if result.missing or problems:
        print("role-task coverage: FAILED (%d task(s) never ran, %d problem(s)); add a test, or an allowlist "
              "entry in %s if no test can run it on these machines" % (
                  len(result.missing), len(problems), os.path.relpath(args.allowlist)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
