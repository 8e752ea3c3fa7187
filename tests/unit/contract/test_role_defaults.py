# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Each role default is written once, in the role's defaults/main.yml.

playbooks/site.yml's plan stage reads the roles' defaults files
(``__site_defaults_<role>``) instead of restating a value as
``| default(...)``; rt_host_plan, which runs on the managed host and cannot
read a role, keeps the defaults of a module that is also run on its own,
and they must be the roles' defaults, in defaults/main.yml and in
meta/argument_specs.yml alike.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

import pytest
import yaml

from ansible_collections.realtime.virt.plugins.modules import rt_host_plan

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SITE = os.path.join(TOP, "playbooks", "site.yml")
STAGES = ("rt_host", "hugepages", "qat", "sriov", "rt_domain", "rt_validate", "ptp")
# ``<variable> | default(<argument>)`` in a Jinja expression
DEFAULT = re.compile(r"\b([A-Za-z_]\w*)\s*\|\s*default\(([^()]*)\)")


def _load(*path):
    with open(os.path.join(TOP, *path)) as handle:
        return yaml.safe_load(handle)


def role_defaults():
    """``{variable: (role, value)}`` of every roles/*/defaults/main.yml."""
    result = {}
    for role in sorted(os.listdir(os.path.join(TOP, "roles"))):
        if os.path.exists(os.path.join(TOP, "roles", role, "defaults", "main.yml")):
            for name, value in (_load("roles", role, "defaults", "main.yml") or {}).items():
                result[name] = (role, value)
    return result


def role_spec_defaults():
    """``{variable: default}`` of the roles' meta/argument_specs.yml (entry point main)."""
    result = {}
    for role in sorted(os.listdir(os.path.join(TOP, "roles"))):
        if os.path.exists(os.path.join(TOP, "roles", role, "meta", "argument_specs.yml")):
            options = _load("roles", role, "meta", "argument_specs.yml")["argument_specs"]["main"].get("options") or {}
            for name, spec in options.items():
                if "default" in spec:
                    result[name] = spec["default"]
    return result


def restated(text, defaults):
    """The ``| default(...)`` of role variables whose argument is not the role's defaults file."""
    found = []
    for variable, argument in DEFAULT.findall(text):
        if variable in defaults:
            wanted = "__site_defaults_%s.%s" % (defaults[variable][0], variable)
            if argument.strip() != wanted:
                found.append("%s | default(%s), not default(%s)" % (variable, argument, wanted))
    return found


def test_site_restates_no_role_default():
    with open(SITE) as handle:
        text = handle.read()
    assert restated(text, role_defaults()) == []


def test_site_reads_the_defaults_of_every_role_it_names():
    with open(SITE) as handle:
        text = handle.read()
    named = set(re.findall(r"__site_defaults_(\w+?)\.", text))
    loads = [task for task in yaml.safe_load(text)[0]["tasks"] if "ansible.builtin.include_vars" in task]
    assert len(loads) == 1
    load = loads[0]
    assert load["ansible.builtin.include_vars"] == {"file": "../roles/{{ item }}/defaults/main.yml",
                                                    "name": "__site_defaults_{{ item }}"}
    assert load["tags"] == ["always"]
    assert named and named <= set(load["loop"])
    assert set(load["loop"]) == set(STAGES)


def test_site_plan_passes_every_suboption_of_rt_host_plan():
    plays = _load("playbooks", "site.yml")
    plan = [task for task in plays[0]["tasks"] if "realtime.virt.rt_host_plan" in task][0]["realtime.virt.rt_host_plan"]
    spec = rt_host_plan.argument_spec()
    for stage in STAGES:
        assert sorted(plan[stage]) == sorted(spec[stage]["options"]), stage
        for option, value in plan[stage].items():
            variable = "%s_%s" % (stage, option)
            assert value == "{{ %s | default(__site_defaults_%s.%s) }}" % (variable, stage, variable)


@pytest.mark.parametrize("text, wanted", [
    ("{{ rt_host_reboot | default('never') }}", ["rt_host_reboot | default('never'), not default(__site_defaults_rt_host.rt_host_reboot)"]),
    ("{{ qat_numvfs | default(__site_defaults_sriov.qat_numvfs) }}", ["qat_numvfs | default(__site_defaults_sriov.qat_numvfs), "
                                                                      "not default(__site_defaults_qat.qat_numvfs)"]),
    ("when: sriov_pfs|default([]) | length > 0", ["sriov_pfs | default([]), not default(__site_defaults_sriov.sriov_pfs)"]),
    ("{{ qat_numvfs | default(__site_defaults_qat.qat_numvfs) }}", []),
    ("{{ rt_serial | default('100%') }}", []),   # not a role variable
])
def test_restated_defaults_are_found(text, wanted):
    assert restated(text, role_defaults()) == wanted


def _plan_defaults():
    """``{role variable: default}`` of rt_host_plan's argument spec."""
    spec = rt_host_plan.argument_spec()
    result = {"rt_domain_uri": spec["uri"]["default"]}
    for stage in STAGES:
        assert spec[stage]["default"] == {}
        for option, sub in spec[stage]["options"].items():
            result["%s_%s" % (stage, option)] = sub.get("default", "(none)")
    return result


@pytest.mark.parametrize("variable", sorted(_plan_defaults()))
def test_rt_host_plan_defaults_are_the_roles(variable):
    defaults = role_defaults()
    assert variable in defaults, "rt_host_plan has an option for %s, which no role has" % variable
    assert _plan_defaults()[variable] == defaults[variable][1]
    specs = role_spec_defaults()
    if variable in specs:
        assert specs[variable] == defaults[variable][1]
