# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every source file the repository tracks names its licence.

Python, YAML and shell files carry ``SPDX-License-Identifier:
GPL-3.0-or-later`` in a comment near their top (after a shebang or a YAML
``---``), the form REUSE tools read.  Test fixtures under
``tests/unit/fixtures`` are data whose content tests compare, so they are
left as they are, and an empty file (the ``__init__.py`` files that
ansible-test's ``empty-init`` rule wants empty) holds nothing to license.
antsibull-changelog writes ``changelogs/changelog.yaml`` and its plugin cache
again at every release (``make release``), dropping any comment, so those two
are left out too; the licence of what they record is the collection's.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import itertools
import os
import subprocess

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARK = "SPDX-License-Identifier: GPL-3.0-or-later"
SUFFIXES = (".py", ".yml", ".yaml", ".sh")
EXEMPT = ("tests/unit/fixtures/",)
GENERATED = {"changelogs/changelog.yaml", "changelogs/.plugin-cache.yaml"}
HEAD_LINES = 8


def tracked():
    out = subprocess.run(["git", "ls-files", "-z"], cwd=TOP, stdout=subprocess.PIPE, check=True).stdout
    return sorted(path for path in out.decode("utf-8").split("\0")
                  if path.endswith(SUFFIXES) and not path.startswith(EXEMPT) and path not in GENERATED
                  and os.path.getsize(os.path.join(TOP, path)) > 0)


def test_the_walk_finds_each_kind_of_file():
    files = tracked()
    for suffix in SUFFIXES:
        assert any(path.endswith(suffix) for path in files), suffix


@pytest.mark.parametrize("path", tracked())
def test_file_names_its_licence_near_the_top(path):
    with open(os.path.join(TOP, path), encoding="utf-8") as handle:
        head = list(itertools.islice(handle, HEAD_LINES))
    assert any(line.startswith("#") and MARK in line for line in head), (
        "%s: no '# %s' in its first %d lines" % (path, MARK, HEAD_LINES))
