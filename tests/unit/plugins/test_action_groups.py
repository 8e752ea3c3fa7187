# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The action groups of meta/runtime.yml and the modules' ``action_group`` attribute say the same.

``ansible-test sanity`` does not compare them for a collection, so a module
added to a group without the attribute (or the other way round) is caught
here.  That ``module_defaults`` reaches the modules is proven by the
integration target ``libvirt_module_defaults``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import os

import pytest
import yaml

from ansible_collections.realtime.virt.plugins.doc_fragments.attributes import ModuleDocFragment

# every module is imported by name, and each imports ansible-core's AnsibleModule
pytestmark = pytest.mark.reaches_ansible_core

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
PREFIX = "realtime.virt.attributes."


def _modules():
    names = sorted(name[:-3] for name in os.listdir(os.path.join(TOP, "plugins", "modules"))
                   if name.endswith(".py") and not name.startswith("_"))
    return dict((name, importlib.import_module("ansible_collections.realtime.virt.plugins.modules." + name))
                for name in names)


def _membership(fragment):
    """The groups (short names) a doc fragment of attributes.py puts a module in."""
    text = getattr(ModuleDocFragment, fragment[len(PREFIX):].upper())
    attribute = (yaml.safe_load(text).get("attributes") or {}).get("action_group")
    if attribute is None:
        return set()
    assert all(group.startswith("realtime.virt.") for group in attribute["membership"]), attribute
    return set(group[len("realtime.virt."):] for group in attribute["membership"])


def test_runtime_groups_and_module_documentation_agree():
    with open(os.path.join(TOP, "meta", "runtime.yml")) as handle:
        groups = yaml.safe_load(handle).get("action_groups") or {}
    modules = _modules()
    assert groups == {"libvirt": ["libvirt_rt_domain", "libvirt_rt_domains", "libvirt_rt_domain_info"]}
    for name, module in modules.items():
        fragments = yaml.safe_load(module.DOCUMENTATION).get("extends_documentation_fragment") or []
        documented = set()
        for fragment in fragments:
            if fragment.startswith(PREFIX):
                documented |= _membership(fragment)
        in_runtime = set(group for group, members in groups.items() if name in members)
        assert documented == in_runtime, name
