# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""The import rules of .importlinter hold, and a broken rule is caught.

Each breakage copies plugins/ and the contract into a throwaway
collection tree, adds one forbidden import and runs lint-imports on it.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil
import subprocess
import sys

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
LINT = os.path.join(os.path.dirname(sys.executable), "lint-imports")
PKG = "ansible_collections.realtime.virt.plugins"


def lint(collections_path):
    env = dict(os.environ, PYTHONPATH=collections_path)
    config = os.path.join(collections_path, "ansible_collections", "realtime", "virt", ".importlinter")
    proc = subprocess.run([LINT, config, "--no-cache"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, env=env, timeout=120, check=False)
    return proc.returncode, proc.stdout


@pytest.fixture
def tree(tmp_path):
    top = tmp_path / "ansible_collections" / "realtime" / "virt"
    shutil.copytree(os.path.join(TOP, "plugins"), str(top / "plugins"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(os.path.join(TOP, ".importlinter"), str(top / ".importlinter"))
    return tmp_path, top


def test_the_collection_keeps_every_contract(tree):
    path, _top = tree
    rc, out = lint(str(path))
    assert rc == 0, out
    assert "4 kept, 0 broken" in out


@pytest.mark.parametrize("where, target, contract", [
    # module_utils reaching up into a module
    ("module_utils/_node/gather.py", PKG + ".modules import rt_node_facts",
     "Modules and filters sit on module_utils; module_utils never imports them"),
    # a module importing another module
    ("modules/qat_vf_info.py", PKG + ".modules import sriov_vfs", "Modules never import each other"),
    # a filter file importing another
    ("filter/qat.py", PKG + ".filter import cpuset", "Filter files never import each other"),
    # one subsystem importing a sibling
    ("module_utils/_sriov/manager.py", PKG + ".module_utils._qat import devices",
     "Subsystems sit on the node facts, the kernel layer and the shared vocabulary"),
    # the kernel layer importing the facts above it
    ("module_utils/_kernel/pci.py", PKG + ".module_utils._node import parsing",
     "Subsystems sit on the node facts, the kernel layer and the shared vocabulary"),
    # the shared vocabulary importing the kernel layer
    ("module_utils/_common/units.py", PKG + ".module_utils._kernel import reader",
     "Subsystems sit on the node facts, the kernel layer and the shared vocabulary"),
])
def test_a_forbidden_import_breaks_its_contract(tree, where, target, contract):
    path, top = tree
    module, name = target.split(" import ")
    with open(str(top / "plugins" / where), "a") as handle:
        handle.write("\nfrom %s import %s  # noqa: E402,F401\n" % (module, name))
    rc, out = lint(str(path))
    assert rc != 0, out
    assert "%s BROKEN" % contract in out
    assert target.split(" import ")[0] in out.replace("\n", "")
