# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Make the collection importable and the shared fixtures findable.

`make` creates .cache/collections/ansible_collections/realtime/virt as a
link to the repository; ansible-test units does the same on its own.  The
fake host trees every test builds (rt_node_trees, the PCI fake kernel, the
QAT shapes) live once in tests/unit/fixtures/.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

_UNIT = os.path.dirname(os.path.abspath(__file__))
_TOP = os.path.dirname(os.path.dirname(_UNIT))
_COLLECTIONS = os.path.join(_TOP, ".cache", "collections")
FIXTURES = os.path.join(_UNIT, "fixtures")
if os.path.isdir(_COLLECTIONS) and _COLLECTIONS not in sys.path:
    sys.path.insert(0, _COLLECTIONS)
if FIXTURES not in sys.path:
    sys.path.insert(0, FIXTURES)

# A skipped test proves nothing: on the machines make test runs on, every
# test must run. REALTIME_VIRT_ALLOW_SKIPS=1 lets a developer on another
# machine (no libvirt-python, say) run what can run.
_SKIPPED = []


def pytest_configure(config):
    # tests/matrix/run.sh deselects these: its virtualenvs carry ansible-core, not the ansible package
    config.addinivalue_line("markers", "ansible_package: needs a collection of the ansible package (kubevirt.core)")
    # tests/matrix/core_reach.py keeps such a file on the matrix's older minors
    config.addinivalue_line("markers", "reaches_ansible_core: the file reaches ansible-core in a way its imports do "
                                       "not show (a subprocess, an import by name)")


def pytest_collection_modifyitems(config, items):
    """REALTIME_VIRT_UNITS_REACHING_CORE=1 (tests/matrix/run.sh, older minors): only the files that reach ansible-core."""
    if os.environ.get("REALTIME_VIRT_UNITS_REACHING_CORE") != "1":
        return
    sys.path.insert(0, os.path.join(_TOP, "tests", "matrix"))
    import core_reach  # pylint: disable=import-outside-toplevel
    reach = core_reach.CoreReach(_TOP, [FIXTURES])
    kept, left = [], []
    for item in items:
        path = str(getattr(item, "path", None) or item.fspath)
        (kept if reach.reaches(path) else left).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


def pytest_runtest_logreport(report):
    if report.skipped and not hasattr(report, "wasxfail"):
        _SKIPPED.append(report.nodeid)


def pytest_terminal_summary(terminalreporter):
    if _SKIPPED:
        terminalreporter.write_line("units: %d test(s) skipped, which make test does not allow:" % len(_SKIPPED))
        for nodeid in _SKIPPED:
            terminalreporter.write_line("  skipped: %s" % nodeid)


def pytest_sessionfinish(session, exitstatus):
    if _SKIPPED and exitstatus == 0 and os.environ.get("REALTIME_VIRT_ALLOW_SKIPS") != "1":
        session.exitstatus = 1
