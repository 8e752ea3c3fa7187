# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""The benchmarks under tests/bench run only in ``make bench``, not in ``make test``: the
repository paths they join (fixtures, playbooks, scripts) must exist, or a benchmark
breaks unseen, as bench_rt_node_facts.py's fixtures path once did."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import glob
import os

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(TOP, "tests", "bench")
# Made by make's set-up (the collection link, the virtualenv, caches), not held in git.
BUILT = (".cache", ".venv")


def joined_paths(source, bases):
    """``[(line, path)]`` of each ``os.path.join(BASE, "a", "b")`` in ``source`` whose base is one of ``bases``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join"
                and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in bases):
            continue
        parts = node.args[1:]
        if parts and all(isinstance(part, ast.Constant) and isinstance(part.value, str) for part in parts):
            found.append((node.lineno, os.path.join(bases[node.args[0].id], *[part.value for part in parts])))
    return found


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(BENCH, "*.py"))), ids=os.path.basename)
def test_a_benchmarks_repository_paths_exist(path):
    with open(path) as handle:
        source = handle.read()
    missing = ["line %d: %s" % (line, os.path.relpath(joined, TOP))
               for line, joined in joined_paths(source, {"TOP": TOP, "HERE": BENCH})
               if os.path.relpath(joined, TOP).split(os.sep)[0] not in BUILT and not os.path.exists(joined)]
    assert missing == []


def test_joined_paths_reads_literal_joins_only():
    source = ('a = os.path.join(TOP, "tests", "unit")\nb = os.path.join(HERE, "x.yml")\n'
              'c = os.path.join(TOP, name)\nd = os.path.join(other, "y")\n')
    assert joined_paths(source, {"TOP": "/t", "HERE": "/t/b"}) == [(1, "/t/tests/unit"), (2, "/t/b/x.yml")]
