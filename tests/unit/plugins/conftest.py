# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fixtures shared by the plugin tests: host facts and the module harness."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import importlib
import json

import pytest
import yaml

from ansible.module_utils import basic

import rt_node_trees

from ansible_collections.realtime.virt.plugins.module_utils._node.gather import gather_node_facts

try:
    from ansible.module_utils.testing import patch_module_args
except ImportError:  # ansible-core before 2.19
    @contextlib.contextmanager
    def patch_module_args(args=None):
        old = basic._ANSIBLE_ARGS
        basic._ANSIBLE_ARGS = json.dumps({"ANSIBLE_MODULE_ARGS": args or {}}).encode()
        try:
            yield
        finally:
            basic._ANSIBLE_ARGS = old


class ModuleExit(Exception):
    """How a module's main() ended: its result, whether it failed, its warnings."""

    def __init__(self, result, failed, warnings=None):
        super(ModuleExit, self).__init__(result)
        self.result = result
        self.failed = failed
        self.warnings = warnings if warnings is not None else []


@pytest.fixture(scope="session")
def hosts(tmp_path_factory):
    """rt_node facts of the 2-CPU test host, the 2-socket SMT server and the 512-CPU box."""
    result = {}
    for name in ("test_host", "two_socket_smt", "big_512"):
        root = rt_node_trees.build_shape(str(tmp_path_factory.mktemp(name)), name)
        result[name] = gather_node_facts(root)[0]
    return result


@pytest.fixture(scope="session")
def module_doc():
    """``module_doc(module)``: its DOCUMENTATION with the options and attributes of its doc fragments.

    (``ansible-test sanity``'s validate-modules checks the real merge.)
    """
    def documentation(module):
        doc = yaml.safe_load(module.DOCUMENTATION)
        for name in doc.get("extends_documentation_fragment") or []:
            parts = name.split(".")
            holder = importlib.import_module("ansible_collections.realtime.virt.plugins.doc_fragments." + parts[2])
            fragment = yaml.safe_load(getattr(holder.ModuleDocFragment, parts[3].upper() if len(parts) > 3 else "DOCUMENTATION"))
            for key in ("options", "attributes"):
                merged = dict(fragment.get(key) or {})
                merged.update(doc.get(key) or {})
                doc[key] = merged
        return doc

    return documentation


@pytest.fixture
def run_module(monkeypatch):
    """Run a module's ``main()`` in-process: ``run_module(main, params, check=False, diff=False)``.

    Returns the :class:`ModuleExit` that ``exit_json``/``fail_json`` raised,
    with the warnings the module gave.  A module that returns without
    either, or exits another way, fails the test.
    """
    warnings = []

    def exit_json(self, **kwargs):
        raise ModuleExit(kwargs, False, list(warnings))

    def fail_json(self, **kwargs):
        raise ModuleExit(kwargs, True, list(warnings))

    monkeypatch.setattr(basic.AnsibleModule, "exit_json", exit_json)
    monkeypatch.setattr(basic.AnsibleModule, "fail_json", fail_json)
    monkeypatch.setattr(basic.AnsibleModule, "warn", lambda self, text: warnings.append(text))

    def runner(main, params, check=False, diff=False):
        del warnings[:]
        args = dict(params)
        args.setdefault("_ansible_check_mode", check)
        args.setdefault("_ansible_diff", diff)
        with patch_module_args(args):
            try:
                main()
            except ModuleExit as outcome:
                return outcome
            except SystemExit as error:
                pytest.fail("main() exited with %r without a result" % (error,))
        pytest.fail("main() returned without exit_json or fail_json")

    return runner
