# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""uri.py: is_local; the readers of libvirt never load the writer."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._libvirt.uri import is_local

PACKAGE = "ansible_collections.realtime.virt.plugins"
# the domain writer: what a reader must not carry in its payload
WRITER = ("render", "spec", "manager", "merge", "batch", "compare", "diff")
# the modules are imported in a subprocess, each with ansible-core's AnsibleModule
pytestmark = pytest.mark.reaches_ansible_core


@pytest.mark.parametrize("uri, local", [
    ("qemu:///system", True),
    ("qemu:///session", True),
    ("qemu+unix:///system", True),
    ("lxc://", True),
    ("qemu+ssh://host/system", False),
    ("qemu+tcp://10.0.0.1/system", False),
    ("", False),
    (None, False),
])
def test_is_local(uri, local):
    assert is_local(uri) is local


def _loaded(module):
    """The collection's modules (and lxml) in sys.modules after importing ``module`` in a fresh interpreter."""
    code = ("import json, sys; import %s; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith(%r) or m.split('.')[0] == 'lxml')))"
            % (module, PACKAGE))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path for path in sys.path if path))
    out = subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.PIPE, universal_newlines=True, env=env)
    return json.loads(out.stdout)


@pytest.mark.parametrize("module", [
    PACKAGE + ".modules.rt_host_plan",
    PACKAGE + ".module_utils._libvirt.observe",
    PACKAGE + ".module_utils._libvirt.uri",
])
def test_readers_reach_no_writer(module):
    loaded = _loaded(module)
    writer = [name for name in loaded if name.rsplit(".", 1)[-1] in WRITER and "._libvirt." in name]
    assert writer == []
    assert [name for name in loaded if name.split(".")[0] == "lxml"] == []
    assert module in loaded  # the import really happened
