# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/coverage/role_tasks.py: the task lister, the records, the allowlist
and their comparison, on the fixture roles of tests/unit/fixtures/role_coverage
(and, for the lister, on the real roles/)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(TOP, "tests", "coverage"))

import role_tasks  # noqa: E402  pylint: disable=wrong-import-position

FIXTURE = os.path.join(TOP, "tests", "unit", "fixtures", "role_coverage")
ROLES = os.path.join(FIXTURE, "roles")
ALLOWLIST = os.path.join(FIXTURE, "testing.md")

# Every task of the fixture roles as the lister must see it: (role, file, line, name, kind).
EXPECTED = [
    ("demo", "handlers/main.yml", 2, "Demo handler", "handler"),
    ("demo", "handlers/main.yml", 7, "Unused handler", "handler"),
    ("demo", "tasks/duplicates.yml", 3, "Same name", "task"),
    ("demo", "tasks/duplicates.yml", 7, "Same name", "task"),
    ("demo", "tasks/duplicates.yml", 11, None, "task"),
    ("demo", "tasks/extra.yml", 2, "Extra task", "task"),
    ("demo", "tasks/main.yml", 2, "Load the settings", "import"),
    ("demo", "tasks/main.yml", 5, "Say hello", "task"),
    ("demo", "tasks/main.yml", 11, "Never runs", "task"),
    ("demo", "tasks/main.yml", 16, "Count to three", "task"),
    ("demo", "tasks/main.yml", 22, "Skip every item", "task"),
    # the block "Try and recover" (line 28) is not a task; its sections are walked
    ("demo", "tasks/main.yml", 30, "Fail on purpose", "task"),
    ("demo", "tasks/main.yml", 34, "Recover", "task"),
    ("demo", "tasks/main.yml", 38, "Always runs", "task"),
    ("demo", "tasks/main.yml", 42, "Fail but carry on", "task"),
    ("demo", "tasks/main.yml", 47, "Include the extra tasks", "task"),
    ("demo", "tasks/main.yml", 50, "Include nothing", "task"),
    ("demo", "tasks/main.yml", 54, "Include the helper's persist tasks", "task"),
    ("demo", "tasks/main.yml", 59, "Only in check mode", "task"),
    ("demo", "tasks/main.yml", 64, "Run the handlers now", "meta"),
    ("demo", "tasks/settings.yml", 2, "Set a fact", "task"),
    ("helper", "tasks/persist.yml", 2, "Helper persist task", "task"),
]


def key(role, path, line):
    return (role, path, line)


def write_records(directory, records):
    directory.mkdir(parents=True, exist_ok=True)
    with open(str(directory / ("%d.jsonl" % len(list(directory.iterdir())))), "w") as handle:
        for role, path, line, status in records:
            handle.write(json.dumps({"role": role, "file": path, "line": line, "status": status, "name": "x"}) + "\n")


def test_the_lister_sees_every_task_of_the_fixture_roles():
    tasks = role_tasks.list_tasks(ROLES)
    assert [(t.role, t.file, t.line, t.name, t.kind) for t in tasks] == EXPECTED


@pytest.mark.parametrize("action, kind", [
    ("ansible.builtin.meta", "meta"),
    ("meta", "meta"),
    ("ansible.builtin.import_tasks", "import"),
    ("import_role", "import"),
    ("ansible.builtin.include_tasks", "task"),
    ("ansible.builtin.include_role", "task"),
    ("realtime.virt.sriov_vfs", "task"),
])
def test_kind_follows_the_action(tmp_path, action, kind):
    path = tmp_path / "main.yml"
    path.write_text("---\n- name: One\n  %s: x\n  when: true\n  loop: [1]\n" % action)
    assert [(t.line, t.action, t.kind) for t in role_tasks.tasks_of_file(str(path), "r", "tasks/main.yml")] == [
        (2, action, kind)]


@pytest.mark.parametrize("text, action", [
    ("- name: One\n  action: ansible.builtin.debug msg=hi\n", "ansible.builtin.debug"),
    ("- name: One\n  action:\n    module: ansible.builtin.ping\n", "ansible.builtin.ping"),
    ("- name: One\n  local_action: ansible.builtin.command true\n", "ansible.builtin.command"),
    ("- name: One\n  with_items: [1]\n  ansible.builtin.debug: {}\n", "ansible.builtin.debug"),
])
def test_the_action_is_found_whatever_its_spelling(tmp_path, text, action):
    path = tmp_path / "main.yml"
    path.write_text("---\n" + text)
    assert [t.action for t in role_tasks.tasks_of_file(str(path), "r", "tasks/main.yml")] == [action]


def test_nested_blocks_count_only_their_tasks(tmp_path):
    path = tmp_path / "main.yml"
    path.write_text("---\n"
                    "- name: Outer\n"
                    "  block:\n"
                    "    - name: Inner\n"
                    "      block:\n"
                    "        - name: Deep\n"
                    "          ansible.builtin.debug: {}\n"
                    "      always:\n"
                    "        - name: Deep always\n"
                    "          ansible.builtin.debug: {}\n")
    assert [(t.line, t.name) for t in role_tasks.tasks_of_file(str(path), "r", "tasks/main.yml")] == [
        (6, "Deep"), (9, "Deep always")]


def test_the_real_roles_are_listed():
    tasks = role_tasks.list_tasks(os.path.join(TOP, "roles"))
    by_name = dict(((t.role, t.file, t.name), t) for t in tasks)
    assert by_name[("rt_host", "tasks/bootloader.yml", "Regenerate the boot configuration now")].kind == "meta"
    assert by_name[("rt_host", "tasks/main.yml",
                    "Load the variables of this OS family (fails on a family the role does not support)")].kind == "import"
    assert by_name[("qat", "tasks/persist.yml", "Install the boot-time script and unit")].action == \
        "ansible.builtin.include_role"
    assert by_name[("sriov", "handlers/main.yml", "Reload systemd")].kind == "handler"
    assert len([t for t in tasks if t.kind in role_tasks.COUNTED]) > 150


def test_the_allowlist_is_read_from_its_section_only():
    entries, problems = role_tasks.read_allowlist(ALLOWLIST)
    assert problems == []
    assert [(e.file, e.name, e.lineno) for e in entries] == [
        ("roles/demo/tasks/main.yml", "Never runs", 9),
        ("roles/demo/handlers/main.yml", "Unused handler", 11),
    ]
    assert entries[0].reason == "its condition is false everywhere; the unit tests read it."


@pytest.mark.parametrize("text, found, problem", [
    ("", [], None),
    ("## Role tasks no test runs here\n", [], None),
    ("## Role tasks no test runs here\n- `roles/a/tasks/main.yml` `A`: why\n", [("roles/a/tasks/main.yml", "A")], None),
    ("## Role tasks no test runs here\n* `roles/a/tasks/main.yml` `A` why\n", [("roles/a/tasks/main.yml", "A")], None),
    ("## Role tasks no test runs here\n- roles/a/tasks/main.yml A: why\n", [], "allowlist bullet is not"),
    ("## Role tasks no test runs here\n\n### Sub\n- `f` `A`: why\n## Next\n- `f` `B`: x\n", [("f", "A")], None),
    # at another level: it ends at a heading of its own level or higher, not at a deeper one
    ("## Top\n### Role tasks no test runs here\n- `f` `A`: why\n#### Sub\n- `f` `B`: x\n### Next\n- `f` `C`: y\n",
     [("f", "A"), ("f", "B")], None),
    ("# Top\n### Role tasks no test runs here\n- `f` `A`: why\n## Up\n- `f` `B`: x\n", [("f", "A")], None),
    ("## Role tasks no test runs here, and more\n- `f` `A`: why\n", [], None),
])
def test_allowlist_formats(tmp_path, text, found, problem):
    path = tmp_path / "testing.md"
    path.write_text(text)
    entries, problems = role_tasks.read_allowlist(str(path))
    assert [(e.file, e.name) for e in entries] == found
    if problem:
        assert len(problems) == 1 and problem in problems[0]
    else:
        assert problems == []


def test_records_are_the_union_of_every_file(tmp_path):
    write_records(tmp_path, [("demo", "tasks/main.yml", 5, "changed")])
    write_records(tmp_path, [("demo", "tasks/main.yml", 5, "ok"), ("demo", "tasks/extra.yml", 2, "ok")])
    (tmp_path / "broken.jsonl").write_text("not json\n{\"role\": \"demo\"}\n")
    ran, files, bad = role_tasks.read_records(str(tmp_path))
    assert dict(ran) == {key("demo", "tasks/main.yml", 5): {"changed", "ok"}, key("demo", "tasks/extra.yml", 2): {"ok"}}
    assert (len(files), bad) == (3, 2)


# Everything of the fixture roles ran except what each case leaves out.
ALL_RUN = [(t[0], t[1], t[2]) for t in EXPECTED if t[4] in ("task", "handler")]


def ran_except(*left_out, **statuses):
    return dict((k, {statuses.get("status", "ok")}) for k in ALL_RUN if k not in left_out)


def entry(path, name, reason="why; tested by nothing", lineno=1):
    return role_tasks.Entry(path, name, reason, lineno)


NEVER = key("demo", "tasks/main.yml", 11)
UNUSED = key("demo", "handlers/main.yml", 7)
SAME_1 = key("demo", "tasks/duplicates.yml", 3)
SAME_2 = key("demo", "tasks/duplicates.yml", 7)
NO_NAME = key("demo", "tasks/duplicates.yml", 11)


@pytest.mark.parametrize("ran, entries, counts, missing, problems", [
    # everything ran, no allowlist
    (ran_except(), [], (20, 20, 0), [], []),
    # a task that never ran and is not allowlisted is missing
    (ran_except(NEVER), [], (20, 19, 0), [NEVER], []),
    # ... unless an allowlist entry names it
    (ran_except(NEVER, UNUSED), [entry("roles/demo/tasks/main.yml", "Never runs"),
                                 entry("roles/demo/handlers/main.yml", "Unused handler")], (20, 18, 2), [], []),
    # failed and ignored runs count; unknown statuses (skipped, unreachable) do not
    (ran_except(status="ignored"), [], (20, 20, 0), [], []),
    (ran_except(status="failed"), [], (20, 20, 0), [], []),
    (ran_except(status="skipped"), [], (20, 0, 0), ALL_RUN, []),
    (ran_except(status="unreachable"), [], (20, 0, 0), ALL_RUN, []),
    # stale entry: the task ran
    (ran_except(), [entry("roles/demo/tasks/main.yml", "Never runs")], (20, 20, 0), [], ["stale entry"]),
    # unknown entries: no such file, no such task
    (ran_except(), [entry("roles/demo/tasks/nothere.yml", "Never runs")], (20, 20, 0), [], ["no task file"]),
    (ran_except(NEVER), [entry("roles/demo/tasks/main.yml", "Never run")], (20, 19, 0), [NEVER],
     ["no task of that name"]),
    # a name two tasks of one file share cannot be allowlisted
    (ran_except(SAME_1, SAME_2), [entry("roles/demo/tasks/duplicates.yml", "Same name")], (20, 18, 0),
     [SAME_1, SAME_2], ["2 tasks of roles/demo/tasks/duplicates.yml share that name (lines 3, 7)"]),
    # meta and import tasks are not counted, so not allowlisted either
    (ran_except(), [entry("roles/demo/tasks/main.yml", "Run the handlers now")], (20, 20, 0), [],
     ["a meta task, which is not counted"]),
    (ran_except(), [entry("roles/demo/tasks/main.yml", "Load the settings")], (20, 20, 0), [],
     ["a import task, which is not counted"]),
    # an entry twice, an entry without reason
    (ran_except(NEVER), [entry("roles/demo/tasks/main.yml", "Never runs"),
                         entry("roles/demo/tasks/main.yml", "Never runs", lineno=2)], (20, 19, 1), [],
     ["listed twice (first on line 1)"]),
    (ran_except(NEVER), [entry("roles/demo/tasks/main.yml", "Never runs", reason="")], (20, 19, 0), [NEVER],
     ["gives no reason"]),
    # a task without a name is missing like any other
    (ran_except(NO_NAME), [], (20, 19, 0), [NO_NAME], []),
])
def test_compare(ran, entries, counts, missing, problems):
    result = role_tasks.compare(role_tasks.list_tasks(ROLES), ran, entries)
    assert (len(result.counted), len(result.ran), len(result.allowlisted)) == counts
    assert [(t.role, t.file, t.line) for t in result.missing] == missing
    assert len(result.problems) == len(problems)
    for found, wanted in zip(result.problems, problems):
        assert wanted in found


def test_compare_notes_duplicates_meta_and_records_of_an_older_tree():
    ran = ran_except()
    ran[key("demo", "tasks/main.yml", 999)] = {"ok"}
    ran[key("other_role", "tasks/main.yml", 1)] = {"ok"}
    notes = role_tasks.compare(role_tasks.list_tasks(ROLES), ran, []).notes
    assert notes == [
        "roles/demo/tasks/duplicates.yml: 2 tasks are named 'Same name' (lines 3, 7); an allowlist entry cannot name them",
        "not counted: 1 meta task(s) (roles/demo/tasks/main.yml:64); no callback sees a meta task run",
        "1 recorded task(s) of these roles are not in the tree, recorded before the roles changed? "
        "roles/demo/tasks/main.yml:999",
    ]


@pytest.mark.parametrize("records, allowlist, rc, first_line, listed", [
    # all ran but the two allowlisted tasks and the three of duplicates.yml: those fail
    ([k for k in ALL_RUN if k not in (NEVER, UNUSED, SAME_1, SAME_2, NO_NAME)], ALLOWLIST, 1,
     "role-task coverage: 15 of 20 tasks ran (2 allowlisted)",
     ["roles/demo/tasks/duplicates.yml:3", "roles/demo/tasks/duplicates.yml:7", "roles/demo/tasks/duplicates.yml:11"]),
    ([k for k in ALL_RUN if k not in (NEVER, UNUSED)], ALLOWLIST, 0,
     "role-task coverage: 18 of 20 tasks ran (2 allowlisted)", []),
    ([], ALLOWLIST, 1, "role-task coverage: 0 of 20 tasks ran (2 allowlisted)", ["no recorded run in"]),
])
def test_main_prints_the_figure_and_fails_on_missing_tasks(tmp_path, capsys, records, allowlist, rc, first_line,
                                                           listed):
    directory = tmp_path / "records"
    directory.mkdir()
    if records:
        write_records(directory, [k + ("ok",) for k in records])
    assert role_tasks.main(["--roles", ROLES, "--records", str(directory), "--allowlist", allowlist]) == rc
    out = capsys.readouterr().out
    assert out.splitlines()[0] == first_line
    for text in listed:
        assert text in out
    assert ("FAILED" in out) == (rc == 1)
