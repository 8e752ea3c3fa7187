# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""A kernel path more than one reader names is written once, in _kernel/paths.py (or PCI's in _kernel/pci.py);
the paths below it are joined to that name, not spelled out again."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import glob
import os

from ansible_collections.realtime.virt.plugins.module_utils._kernel import paths, pci

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))))
OWNERS = {"plugins/module_utils/_kernel/paths.py", "plugins/module_utils/_kernel/pci.py"}


def named(module):
    return set(value for name, value in vars(module).items() if name.isupper() and isinstance(value, str))


def literals(source, wanted):
    """``[(line, text)]`` of the string literals of ``source`` that are one of ``wanted`` or start with one and a ``/``."""
    return sorted((node.lineno, node.value) for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and any(node.value == path or node.value.startswith(path + "/") for path in wanted))


def test_no_plugin_writes_a_shared_kernel_path_again():
    wanted = named(paths) | named(pci)
    assert {"/proc/cmdline", "/sys/devices/system/cpu", "/sys/bus/pci/devices"} <= wanted
    again = []
    for path in glob.glob(os.path.join(TOP, "plugins", "**", "*.py"), recursive=True):
        where = os.path.relpath(path, TOP)
        if where in OWNERS:
            continue
        with open(path) as handle:
            again.extend("%s:%d %s" % (where, line, text) for line, text in literals(handle.read(), wanted))
    assert again == []


def test_literals_finds_the_paths_and_paths_below_them():
    source = ('a = "/proc/cmdline"\nb = "/proc/cmdline is read"\nc = read("/proc/mounts")\n'
              'd = "/sys/devices/system/cpu/possible"\ne = "/sys/devices/system/cpuidle"\n')
    assert literals(source, {"/proc/cmdline", "/proc/mounts", "/sys/devices/system/cpu"}) == [
        (1, "/proc/cmdline"), (3, "/proc/mounts"), (4, "/sys/devices/system/cpu/possible")]
