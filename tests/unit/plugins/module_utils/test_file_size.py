# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""No file under plugins/module_utils grows past 450 lines: split it along a real seam instead."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

LIMIT = 450
MODULE_UTILS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "plugins", "module_utils")


def _sizes():
    for folder, _dirs, files in os.walk(MODULE_UTILS):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path) as handle:
                    yield os.path.relpath(path, MODULE_UTILS), sum(1 for _line in handle)


def test_module_utils_are_found():
    sizes = dict(_sizes())
    assert "_libvirt/render.py" in sizes and "_libvirt/owned.py" in sizes
    assert sizes["_libvirt/uri.py"] > 10


def test_no_module_utils_file_is_over_the_limit():
    assert sorted((path, lines) for path, lines in _sizes() if lines > LIMIT) == []
