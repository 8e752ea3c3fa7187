# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The roles' task files as written: the OS variables looked up one way in
every role (through the filter os_vars_files), and no Jinja program (a
loop or an assignment) in a task or vars file, where a filter computes."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
ROLES = os.path.join(TOP, "roles")

# The roles with OS variable files, and those without (what they name is
# the same on every OS the collection supports).
WITH_OS_VARS = ["hugepages", "ptp", "qat", "rt_domain", "rt_host", "rt_validate"]
WITHOUT_OS_VARS = ["rt_guest", "sriov"]


def _read(*parts):
    with open(os.path.join(ROLES, *parts)) as handle:
        return handle.read()


def test_which_roles_have_os_variables():
    roles = sorted(name for name in os.listdir(ROLES) if os.path.isdir(os.path.join(ROLES, name)))
    assert roles == sorted(WITH_OS_VARS + WITHOUT_OS_VARS)
    with_files = sorted(role for role in roles if glob.glob(os.path.join(ROLES, role, "vars", "[A-Z]*.yml")))
    assert with_files == WITH_OS_VARS
    with_set_vars = sorted(role for role in roles if os.path.isfile(os.path.join(ROLES, role, "tasks", "set_vars.yml")))
    assert with_set_vars == WITH_OS_VARS


def test_every_role_looks_its_os_variables_up_the_same_way():
    """set_vars.yml is one text in every role but for the role's name."""
    texts = dict((role, _read(role, "tasks", "set_vars.yml").replace(role, "ROLE")) for role in WITH_OS_VARS)
    first = texts[WITH_OS_VARS[0]]
    assert dict((role, text == first) for role, text in texts.items()) == dict((role, True) for role in WITH_OS_VARS)
    assert 'files: "{{ ansible_facts | realtime.virt.os_vars_files }}"' in first
    assert "- \"{{ role_path }}/vars\"" in first
    # the refusal names the role, the OS, the files looked for, that nothing changed, and the fix
    assert "realtime.virt.ROLE supports the Debian and RedHat OS families" in first
    assert "(no vars/{{ __ROLE_vars_files | join(' or vars/') }}). Nothing was changed." in first
    assert "Fix: run the role on a Debian or RedHat family host, or add" in first


def test_every_role_loads_its_os_variables_first():
    for role in WITH_OS_VARS:
        tasks = _read(role, "tasks", "main.yml")
        first_task = re.search(r"^- name: .*\n(?:  .*\n)*", tasks, re.M).group(0)
        assert "ansible.builtin.import_tasks: set_vars.yml" in first_task, role


PROGRAM = re.compile(r"{%-?\s*(for|set)\b")


def test_no_jinja_program_in_role_tasks_or_vars():
    found = []
    for path in sorted(glob.glob(os.path.join(ROLES, "*", "tasks", "*.yml"))
                       + glob.glob(os.path.join(ROLES, "*", "vars", "*.yml"))):
        with open(path) as handle:
            for number, line in enumerate(handle, 1):
                if PROGRAM.search(line):
                    found.append("%s:%d" % (os.path.relpath(path, TOP), number))
    assert found == []
