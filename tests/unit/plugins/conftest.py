# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fixtures shared by the plugin tests."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "module_utils", "fixtures"))

import rt_node_trees  # noqa: E402  pylint: disable=wrong-import-position

from ansible_collections.realtime.virt.plugins.module_utils._node.gather import gather_node_facts  # noqa: E402


@pytest.fixture(scope="session")
def hosts(tmp_path_factory):
    """rt_node facts of the 2-CPU test host, the 2-socket SMT server and the 512-CPU box."""
    result = {}
    for name in ("test_host", "two_socket_smt", "big_512"):
        root = rt_node_trees.build_shape(str(tmp_path_factory.mktemp(name)), name)
        result[name] = gather_node_facts(root)[0]
    return result
