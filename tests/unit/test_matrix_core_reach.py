# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""The matrix's rule for its older minors: a test file runs there when it reaches ansible-core."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests", "matrix"))

import core_reach  # noqa: E402  pylint: disable=wrong-import-position

PKG = "ansible_collections.realtime.virt.plugins.module_utils"


def _write(root, relative, text):
    path = os.path.join(str(root), relative)
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, "w") as handle:
        handle.write(text)
    return path


def test_a_test_reaches_ansible_core_through_the_collections_files_and_helpers(tmp_path):
    _write(tmp_path, "plugins/module_utils/core_user.py", "from ansible.module_utils.basic import AnsibleModule\n")
    _write(tmp_path, "plugins/module_utils/middle.py", "from %s import core_user\n" % PKG)
    _write(tmp_path, "plugins/module_utils/pure.py", "import os\nimport json\n")
    _write(tmp_path, "fixtures/helper.py", "import ansible\n")
    _write(tmp_path, "fixtures/plain_helper.py", "import re\n")
    reach = core_reach.CoreReach(str(tmp_path), [os.path.join(str(tmp_path), "fixtures")])

    direct = _write(tmp_path, "tests/test_direct.py", "from ansible.module_utils.common.arg_spec import ArgumentSpecValidator\n")
    two_steps = _write(tmp_path, "tests/test_two_steps.py", "from %s.middle import core_user\n" % PKG)
    through_helper = _write(tmp_path, "tests/test_helper.py", "import helper\n")
    pure = _write(tmp_path, "tests/test_pure.py", "import pytest\nimport plain_helper\nfrom %s import pure\n" % PKG)
    # ansible_collections is not ansible-core, nor is a module that only names it
    other_collection = _write(tmp_path, "tests/test_other.py", "import ansible_collections.kubevirt.core\nimport ansible_runner\n")

    assert reach.reaches(direct) is True
    assert reach.reaches(two_steps) is True
    assert reach.reaches(through_helper) is True
    assert reach.reaches(pure) is False
    assert reach.reaches(other_collection) is False


def test_a_cycle_of_imports_is_followed_to_its_end(tmp_path):
    _write(tmp_path, "plugins/module_utils/a.py", "from %s import b\n" % PKG)
    _write(tmp_path, "plugins/module_utils/b.py", "from %s import a\nfrom %s import c\n" % (PKG, PKG))
    _write(tmp_path, "plugins/module_utils/c.py", "from ansible.module_utils import six\n")
    _write(tmp_path, "plugins/module_utils/d.py", "from %s import e\n" % PKG)
    _write(tmp_path, "plugins/module_utils/e.py", "from %s import d\n" % PKG)
    reach = core_reach.CoreReach(str(tmp_path))
    first = _write(tmp_path, "tests/test_cycle.py", "from %s import a\n" % PKG)
    second = _write(tmp_path, "tests/test_cycle_again.py", "from %s import b\n" % PKG)
    closed = _write(tmp_path, "tests/test_closed_cycle.py", "from %s import d\n" % PKG)
    assert reach.reaches(first) is True
    assert reach.reaches(second) is True
    assert reach.reaches(closed) is False


def test_this_collections_tests_are_sorted_as_their_imports_say():
    reach = core_reach.CoreReach(TOP, [os.path.join(TOP, "tests", "unit", "fixtures")])
    unit = os.path.join(TOP, "tests", "unit")
    # the CPU set parser imports nothing of ansible-core
    assert reach.reaches(os.path.join(unit, "plugins", "module_utils", "_common", "test_cpuset.py")) is False
    # only through _libvirt/options.py, which validates with ansible-core's ArgumentSpecValidator
    assert reach.reaches(os.path.join(unit, "plugins", "module_utils", "_libvirt", "test_options.py")) is True
    # the filters and modules, run through ansible-core
    assert reach.reaches(os.path.join(unit, "plugins", "test_bad_input.py")) is True
    # its imports show nothing of ansible-core, but it imports every module by name: declared
    assert reach.reaches(os.path.join(unit, "plugins", "test_action_groups.py")) is True
    # make test's own coverage callback, which only runs on .venv's ansible-core
    assert reach.reaches(os.path.join(unit, "coverage", "test_callback.py")) is False


def test_a_file_declares_what_its_imports_do_not_show(tmp_path):
    reach = core_reach.CoreReach(str(tmp_path))
    declared = _write(tmp_path, "tests/test_declared.py",
                      "import subprocess\nimport pytest\npytestmark = pytest.mark.reaches_ansible_core\n")
    other_mark = _write(tmp_path, "tests/test_other_mark.py", "import pytest\npytestmark = pytest.mark.slow\n")
    assert reach.reaches(declared) is True
    assert reach.reaches(other_mark) is False
