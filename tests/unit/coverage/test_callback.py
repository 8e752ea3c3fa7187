# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""The callback realtime_virt_coverage in a real ansible-playbook run of the
fixture roles (tests/unit/fixtures/role_coverage), once normally and once with
--check, and the environment tests/coverage/recording.py builds."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
COVERAGE = os.path.join(TOP, "tests", "coverage")
sys.path.insert(0, COVERAGE)

import recording  # noqa: E402  pylint: disable=wrong-import-position
import role_tasks  # noqa: E402  pylint: disable=wrong-import-position

# Not marked reaches_ansible_core: the callback is make test's own tool,
# which only ever runs with .venv's ansible-core, so the matrix's older
# minors leave this file to make units (docs/testing.md).

FIXTURE = os.path.join(TOP, "tests", "unit", "fixtures", "role_coverage")
PLAYBOOK = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")


def run_playbook(tmp_path, records, *extra):
    config = tmp_path / "ansible.cfg"
    config.write_text("[defaults]\nretry_files_enabled = false\n")
    env = dict(os.environ)
    env.update({
        "ANSIBLE_CONFIG": str(config),
        "ANSIBLE_ROLES_PATH": os.path.join(FIXTURE, "roles"),
        "ANSIBLE_CALLBACK_PLUGINS": recording.CALLBACK_DIR,
        "ANSIBLE_CALLBACKS_ENABLED": recording.CALLBACK_NAME,
        "ANSIBLE_NOCOLOR": "1",
        "REALTIME_VIRT_COVERAGE_DIR": str(records),
    })
    command = [PLAYBOOK, "-i", "localhost,", "-c", "local", "-e", "ansible_python_interpreter=%s" % sys.executable,
               os.path.join(FIXTURE, "play.yml")] + list(extra)
    proc = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:]
    return proc.stdout


def read(directory):
    records = []
    for path in sorted(glob.glob(os.path.join(str(directory), "*.jsonl"))):
        with open(path) as handle:
            records.append([json.loads(line) for line in handle])
    return records


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The records of a normal run and of a --check run, one file each."""
    tmp_path = tmp_path_factory.mktemp("callback")
    records = tmp_path / "records"
    run_playbook(tmp_path, records)
    run_playbook(tmp_path, records, "--check")
    files = read(records)
    assert len(files) == 2
    return files


# (file, line, name) -> status of every role task the normal run must record.
NORMAL = {
    ("tasks/settings.yml", 2, "Set a fact"): "ok",
    ("tasks/main.yml", 5, "Say hello"): "changed",
    ("tasks/main.yml", 16, "Count to three"): "ok",
    ("tasks/main.yml", 30, "Fail on purpose"): "failed",
    ("tasks/main.yml", 34, "Recover"): "ok",
    ("tasks/main.yml", 38, "Always runs"): "ok",
    ("tasks/main.yml", 42, "Fail but carry on"): "ignored",
    ("tasks/main.yml", 47, "Include the extra tasks"): "ok",
    ("tasks/extra.yml", 2, "Extra task"): "ok",
    ("tasks/main.yml", 54, "Include the helper's persist tasks"): "ok",
    ("tasks/persist.yml", 2, "Helper persist task"): "ok",
    ("handlers/main.yml", 2, "Demo handler"): "ok",
}


def test_a_normal_run_records_the_role_tasks_that_ran(runs):
    normal = runs[0]
    assert dict(((r["file"], r["line"], r["name"]), r["status"]) for r in normal) == NORMAL
    assert all(r["check_mode"] is False and r["host"] == "localhost" for r in normal)
    # the include_role'd tasks_from file is the helper role's, not demo's
    assert [r["role"] for r in normal if r["file"] == "tasks/persist.yml"] == ["helper"]
    assert set(r["role"] for r in normal) == {"demo", "helper"}
    assert all(r["path"].endswith("roles/%s/%s:%d" % (r["role"], r["file"], r["line"])) for r in normal)


@pytest.mark.parametrize("name", [
    "Never runs",            # skipped
    "Skip every item",       # a loop whose items were all skipped
    "Include nothing",       # a skipped include
    "Only in check mode",    # skipped outside check mode
    "Unused handler",        # never notified
    "Run the handlers now",  # meta: no callback sees it
    "Load the settings",     # import_tasks: replaced by its tasks
    "A task of the play, not of a role",
    "Apply demo",            # the play's include_role
])
def test_what_did_not_run_or_is_not_a_role_task_is_not_recorded(runs, name):
    assert name not in [r["name"] for r in runs[0]]


def test_a_check_mode_run_is_recorded_as_such(runs):
    check = runs[1]
    statuses = dict(((r["file"], r["line"]), r["status"]) for r in check)
    assert statuses[("tasks/main.yml", 59)] == "ok"  # Only in check mode
    assert statuses[("tasks/main.yml", 5)] == "changed"
    assert all(r["check_mode"] is True for r in check)


def test_every_record_is_a_task_the_lister_counts(runs):
    counted = set((t.role, t.file, t.line) for t in role_tasks.list_tasks(os.path.join(FIXTURE, "roles"))
                  if t.kind in role_tasks.COUNTED)
    assert set((r["role"], r["file"], r["line"]) for run in runs for r in run) <= counted


def test_nothing_is_written_without_the_directory(tmp_path):
    config = tmp_path / "ansible.cfg"
    config.write_text("[defaults]\nretry_files_enabled = false\n")
    env = dict(os.environ, ANSIBLE_CONFIG=str(config), ANSIBLE_CALLBACK_PLUGINS=recording.CALLBACK_DIR,
               ANSIBLE_CALLBACKS_ENABLED=recording.CALLBACK_NAME)
    env.pop("REALTIME_VIRT_COVERAGE_DIR", None)
    env["ANSIBLE_ROLES_PATH"] = os.path.join(FIXTURE, "roles")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    proc = subprocess.run([PLAYBOOK, "-i", "localhost,", "-c", "local", "-e",
                           "ansible_python_interpreter=%s" % sys.executable, os.path.join(FIXTURE, "play.yml")],
                          env=env, cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert list(cwd.iterdir()) == []
    assert "realtime_virt_coverage" not in proc.stdout


@pytest.mark.parametrize("path, expected", [
    ("/x/roles/demo/tasks/main.yml:5", ("demo", "tasks/main.yml", 5)),
    ("roles/demo/handlers/main.yml:2", ("demo", "handlers/main.yml", 2)),
    ("/c/ansible_collections/realtime/virt/roles/qat/tasks/persist.yml:12", ("qat", "tasks/persist.yml", 12)),
    ("/a/roles/outer/files/roles/inner/tasks/sub/x.yml:3", ("inner", "tasks/sub/x.yml", 3)),
    ("/x/playbooks/site.yml:4", None),
    ("/x/tests/integration/targets/t/tasks/main.yml:4", None),
    ("/x/roles/demo/defaults/main.yml:1", None),
    ("", None),
    ("/x/roles/demo/tasks/main.yml", None),
])
def test_role_task_of_a_path(path, expected):
    sys.path.insert(0, os.path.join(COVERAGE, "callback_plugins"))
    import realtime_virt_coverage  # pylint: disable=import-error
    assert realtime_virt_coverage.role_task(path) == expected


@pytest.mark.parametrize("environ, expected", [
    ({}, ("DEFAULT", "CB", "realtime_virt_coverage")),
    ({"REALTIME_VIRT_COVERAGE_DIR": ""}, ("", "CB", "realtime_virt_coverage")),
    ({"REALTIME_VIRT_COVERAGE_DIR": "/d", "ANSIBLE_CALLBACK_PLUGINS": "/lab/cb",
      "ANSIBLE_CALLBACKS_ENABLED": "lab_recap"}, ("/d", "/lab/cb:CB", "lab_recap,realtime_virt_coverage")),
    # already there: not added twice
    ({"ANSIBLE_CALLBACK_PLUGINS": "CB:/lab/cb", "ANSIBLE_CALLBACKS_ENABLED": "realtime_virt_coverage,lab_recap"},
     ("DEFAULT", "CB:/lab/cb", "realtime_virt_coverage,lab_recap")),
    ({"ANSIBLE_CALLBACK_PLUGINS": ":", "ANSIBLE_CALLBACKS_ENABLED": ""},
     ("DEFAULT", "CB", "realtime_virt_coverage")),
])
def test_recording_environ_combines_with_other_callbacks(environ, expected):
    environ = dict((k, v.replace("CB", recording.CALLBACK_DIR)) for k, v in environ.items())
    env = recording.recording_environ(environ)
    got = (env["REALTIME_VIRT_COVERAGE_DIR"], env["ANSIBLE_CALLBACK_PLUGINS"], env["ANSIBLE_CALLBACKS_ENABLED"])
    assert got == tuple(v.replace("DEFAULT", recording.DEFAULT_DIR).replace("CB", recording.CALLBACK_DIR)
                        for v in expected)
