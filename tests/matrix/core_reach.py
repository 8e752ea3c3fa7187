# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which unit test files reach ansible-core: the ones the matrix runs on its older minors.

A test file reaches ansible-core when it imports ``ansible`` (ansible-core's
package, not ``ansible_collections``), or imports a file that does: a file
of this collection (``ansible_collections.realtime.virt...``) or a helper
module beside the tests (tests/unit/fixtures, the test's own directory),
followed as far as the imports go.  Every other test file runs only this
collection's own code on the same Python, so it gives the same result under
every ansible-core minor: the matrix leaves it to the run on .venv's
version (docs/testing.md, "The ansible-core version matrix").

The imports are read from the source (``ast``), not executed. What they
cannot show (a test that runs ``ansible-playbook`` in a subprocess, imports
modules by name at run time or loads a file by its path) the test file
declares itself, with ``pytestmark = pytest.mark.reaches_ansible_core``
(registered in tests/unit/conftest.py): such a file is kept.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import os

COLLECTION = "ansible_collections.realtime.virt."
# pytest.mark.<DECLARED> in a test file: it reaches ansible-core in a way its imports do not show
DECLARED = "reaches_ansible_core"


def _imported_names(path):
    with open(path) as handle:
        tree = ast.parse(handle.read(), path)
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
            names.extend("%s.%s" % (node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Attribute) and node.attr == DECLARED:
            names.append("ansible")  # the file says it reaches ansible-core
    return names


def _is_ansible_core(name):
    return name == "ansible" or name.startswith("ansible.")


class CoreReach(object):
    """``reaches(path)``: does the file at ``path`` import ansible-core, itself or through what it imports?"""

    def __init__(self, top, helper_dirs=()):
        self.top = top
        self.helper_dirs = list(helper_dirs)
        self._known = {}
        self._names = {}

    def _file_of(self, name, importer):
        """The file of a module this collection or a test helper provides, else None."""
        if name.startswith(COLLECTION):
            relative = name[len(COLLECTION):].replace(".", os.sep)
            candidates = [os.path.join(self.top, relative + ".py"), os.path.join(self.top, relative, "__init__.py")]
        elif "." not in name:
            candidates = [os.path.join(folder, name + ".py")
                          for folder in [os.path.dirname(importer)] + self.helper_dirs]
        else:
            return None
        for candidate in candidates:
            if os.path.isfile(candidate):
                return os.path.abspath(candidate)
        return None

    def reaches(self, path, _visiting=None):
        path = os.path.abspath(path)
        if path in self._known:
            return self._known[path]
        visiting = _visiting if _visiting is not None else set()
        visiting.add(path)
        found = False
        if path not in self._names:
            self._names[path] = _imported_names(path)
        for name in self._names[path]:
            if _is_ansible_core(name):
                found = True
                break
            imported = self._file_of(name, path)
            if imported and imported not in visiting and self.reaches(imported, visiting):
                found = True
                break
        # a file met again while its own imports are still being read is
        # answered when that reading ends; only finished answers are kept
        visiting.discard(path)
        if found or not visiting:
            self._known[path] = found
        return found
