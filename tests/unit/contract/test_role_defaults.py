# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Each role default is written once, in the role's defaults/main.yml.

playbooks/site.yml's plan task, and its copy in
tests/bench/fleet_site_stages.yml, pass a role variable only as
``{{ <variable> | default(omit) }}``: never ``| default(<a value>)``, nor
from a copy of the roles' defaults. rt_host_plan's argument spec and
DOCUMENTATION carry no default for a stage option or ``uri``: its action
plugin (plugins/action/rt_host_plan.py) reads the role's, which must be a
literal (a template could not be evaluated there), and which
meta/argument_specs.yml describes with the same value. The site planner
(module_utils/_site/plan.py) reads each stage option as the plugin filled
it, with no fallback value of its own.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import os
import re

import pytest
import yaml

from ansible_collections.realtime.virt.plugins.action import rt_host_plan as plan_action
from ansible_collections.realtime.virt.plugins.modules import rt_host_plan

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SITE = os.path.join(TOP, "playbooks", "site.yml")
BENCH = os.path.join(TOP, "tests", "bench", "fleet_site_stages.yml")
PLAYBOOKS = (SITE, BENCH)
STAGES = ("rt_host", "hugepages", "qat", "sriov", "rt_domain", "rt_validate", "ptp")
# ``<variable> | default(<argument>)`` in a Jinja expression
DEFAULT = re.compile(r"\b([A-Za-z_]\w*)\s*\|\s*default\(([^()]*)\)")


def _load(*path):
    with open(os.path.join(TOP, *path)) as handle:
        return yaml.safe_load(handle)


def _text(path):
    with open(path) as handle:
        return handle.read()


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
    """Every ``<role variable> | default(<argument>)`` whose argument is not ``omit``, and any copy of a defaults file."""
    found = []
    for variable, argument in DEFAULT.findall(text):
        if variable in defaults and argument.strip() != "omit":
            found.append("%s | default(%s), not default(omit)" % (variable, argument))
    code = re.sub(r"^\s*#.*$", "", text, flags=re.M)   # a comment may name the files
    for match in re.finditer(r"(?:include_vars|__site_defaults_|defaults/main\.yml)", code):
        found.append("reads the roles' defaults itself (%s)" % match.group(0))
    return found


def _tasks(path):
    found = {}
    for play in _load(path):
        for task in play.get("tasks", []):
            for inner in task.get("block", [task]):
                found[inner.get("name")] = inner
    return found


def plan_tasks():
    """``[(where, arguments)]`` of every rt_host_plan task of site.yml and the bench, the bench's root left out."""
    found = []
    for path in PLAYBOOKS:
        for name, task in _tasks(path).items():
            if "realtime.virt.rt_host_plan" in task:
                args = dict(task["realtime.virt.rt_host_plan"])
                args.pop("root", None)
                found.append(("%s: %s" % (os.path.relpath(path, TOP), name), args))
    return found


def _variable(stage, option):
    return "rt_domain_uri" if stage is None else "%s_%s" % (stage, option)


def _plan_options():
    """``[(stage or None, option)]`` of every option rt_host_plan fills from a role."""
    return sorted(plan_action.role_variables(), key=lambda key: (key[0] or "", key[1]))


# --- site.yml and the bench restate no default ---------------------------------------------------

@pytest.mark.parametrize("path", PLAYBOOKS, ids=lambda path: os.path.relpath(path, TOP))
def test_playbook_restates_no_role_default(path):
    assert restated(_text(path), role_defaults()) == []


@pytest.mark.parametrize("where, args", plan_tasks(), ids=[where for where, _args in plan_tasks()])
def test_plan_task_passes_each_option_only_when_the_inventory_sets_it(where, args):
    spec = rt_host_plan.argument_spec()
    for stage, option in _plan_options():
        if stage is None:
            assert args.get(option, "{{ rt_domain_uri | default(omit) }}") == "{{ rt_domain_uri | default(omit) }}"
        elif "Warm-up" not in where:
            assert sorted(args[stage]) == sorted(spec[stage]["options"]), stage
            assert args[stage][option] == "{{ %s | default(omit) }}" % _variable(stage, option), (stage, option)


def test_the_playbooks_have_plan_tasks():
    assert [where for where, _args in plan_tasks()] == [
        "playbooks/site.yml: Plan every stage before the first change",
        "tests/bench/fleet_site_stages.yml: Warm-up: rt_host_plan",
        "tests/bench/fleet_site_stages.yml: Plan: rt_host_plan",
        "tests/bench/fleet_site_stages.yml: Probe: rt_host_plan without the inventory argument"]


def test_site_runs_the_optional_stages_on_the_plans_inputs():
    tasks = _tasks(SITE)
    assert tasks["SR-IOV virtual functions of other devices"]["when"] == "__site_plan.inputs.sriov.pfs | length > 0"
    assert tasks["PTP on the host (ptp4l, phc2sys on the housekeeping CPUs)"]["when"] == \
        "__site_plan.inputs.ptp.interfaces | length > 0"
    assert tasks["Plan every stage before the first change"]["register"] == "__site_plan"


@pytest.mark.parametrize("text, wanted", [
    ("{{ rt_host_reboot | default('never') }}", ["rt_host_reboot | default('never'), not default(omit)"]),
    ("{{ qat_numvfs | default(__site_defaults_qat.qat_numvfs) }}",
     ["qat_numvfs | default(__site_defaults_qat.qat_numvfs), not default(omit)",
      "reads the roles' defaults itself (__site_defaults_)"]),
    ("when: sriov_pfs|default([]) | length > 0", ["sriov_pfs | default([]), not default(omit)"]),
    ("uri: \"{{ rt_domain_uri | default('qemu:///system') }}\"",
     ["rt_domain_uri | default('qemu:///system'), not default(omit)"]),
    ("{{ qat_numvfs | default(omit) }}", []),
    ("{{ qat_numvfs | default( omit ) }}", []),
    ("{{ rt_serial | default('100%') }}", []),   # not a role variable
    ("ansible.builtin.include_vars:\n  file: ../roles/{{ item }}/defaults/main.yml",
     ["reads the roles' defaults itself (include_vars)", "reads the roles' defaults itself (defaults/main.yml)"]),
])
def test_restated_defaults_are_found(text, wanted):
    assert restated(text, role_defaults()) == wanted


# --- rt_host_plan carries no default; the roles' are literal ---------------------------------------

def _documentation():
    return yaml.safe_load(rt_host_plan.DOCUMENTATION)["options"]


def test_rt_host_plan_argument_spec_has_no_stage_default():
    spec = rt_host_plan.argument_spec()
    carried = ["uri"] if "default" in spec["uri"] else []
    for stage in STAGES:
        assert spec[stage]["default"] == {}
        carried.extend("%s.%s" % (stage, option) for option, sub in spec[stage]["options"].items() if "default" in sub)
    assert carried == []


def test_rt_host_plan_documentation_has_no_stage_default():
    options = _documentation()
    carried = ["uri"] if "default" in options["uri"] else []
    for stage in STAGES:
        assert options[stage]["default"] == {}
        carried.extend("%s.%s" % (stage, option) for option, sub in options[stage]["suboptions"].items()
                       if "default" in sub)
    assert carried == []


@pytest.mark.parametrize("stage, option", _plan_options())
def test_rt_host_plan_documentation_names_the_role_variable(stage, option):
    options = _documentation()
    doc = options[option] if stage is None else options[stage]["suboptions"][option]
    description = " ".join(doc["description"]) if isinstance(doc["description"], list) else doc["description"]
    role = "rt_domain" if stage is None else stage
    assert "C(%s) of P(realtime.virt.%s#role)" % (_variable(stage, option), role) in description
    assert "left out, that variable's default in the role" in description


def _role_option(role, variable):
    return _load("roles", role, "meta", "argument_specs.yml")["argument_specs"]["main"]["options"][variable]


def narrower(plan, role):
    """Why rt_host_plan's spec of an option refuses a value its role's spec takes (None when it does not).

    The plan may take more (``raw`` where the role says ``dict``, no
    ``choices``), so that its own checks list every problem at once.
    """
    for key in ("type", "elements"):
        if plan.get(key, "str" if key == "type" else None) not in (role.get(key, "str" if key == "type" else None), "raw"):
            return "%s %r where the role says %r" % (key, plan.get(key), role.get(key))
    if plan.get("choices") and not (role.get("choices") and set(role["choices"]) <= set(plan["choices"])):
        return "choices %r where the role says %r" % (plan["choices"], role.get("choices"))
    return None


@pytest.mark.parametrize("stage, option", _plan_options())
def test_rt_host_plan_takes_every_value_the_role_takes(stage, option):
    spec = rt_host_plan.argument_spec()
    plan = spec[option] if stage is None else spec[stage]["options"][option]
    role, variable = plan_action.role_variables()[(stage, option)]
    assert narrower(plan, _role_option(role, variable)) is None


@pytest.mark.parametrize("plan, role, wanted", [
    ({"type": "str", "choices": ["never", "auto"]}, {"type": "str", "choices": ["never", "auto", "force"]}, "choices"),
    ({"type": "int"}, {"type": "str"}, "type"),
    ({"type": "list", "elements": "str"}, {"type": "list", "elements": "dict"}, "elements"),
    ({"type": "list", "elements": "raw"}, {"type": "list", "elements": "dict"}, None),
    ({"type": "raw"}, {"type": "str"}, None),
    ({"type": "str"}, {"type": "str", "choices": ["a", "b"]}, None),
    ({"type": "str", "choices": ["a", "b", "c"]}, {"type": "str", "choices": ["a", "b"]}, None),
    ({"type": "str", "choices": ["a"]}, {"type": "str"}, "choices"),
])
def test_a_narrower_plan_option_is_found(plan, role, wanted):
    found = narrower(plan, role)
    assert (found.split()[0] if found else None) == wanted


def _read_option(node, options):
    """The option ``node`` reads (``x.get("option", ...)`` or ``x["option"]``), or None."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value in options):
        return node.args[0].value
    if (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
            and node.slice.value in options):
        return node.slice.value
    return None


def fallbacks(source, options):
    """``[(line, option)]`` where ``source`` reads one of ``options`` with a value of its own in reserve:
    ``x.get("option", value)``, or ``x.get("option") or value`` / ``x["option"] or value`` where value
    is a literal that is not empty (``or []``, ``or {}`` only make None an empty one)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and len(node.args) == 2 and _read_option(node, options):
            found.append((node.lineno, node.args[0].value))
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            option = _read_option(node.values[0], options)
            reserve = node.values[-1]
            if option and isinstance(reserve, (ast.Constant, ast.List, ast.Dict, ast.Tuple)):
                try:
                    literal = ast.literal_eval(reserve)
                except ValueError:
                    literal = True
                if literal:
                    found.append((node.lineno, option))
    return sorted(found)


def test_the_site_planner_reads_stage_options_without_fallbacks():
    path = os.path.join(TOP, "plugins", "module_utils", "_site", "plan.py")
    options = set(option for stage, option in _plan_options() if stage is not None)
    assert fallbacks(_text(path), options) == []


@pytest.mark.parametrize("text, wanted", [
    ('host.get("isolated_cpus", "auto")', [(1, "isolated_cpus")]),
    ('stage.get("numvfs", "max") or stage.get("duration", 10)', [(1, "numvfs"), (1, "duration")]),
    ('host.get("isolated_cpus")', []),
    ('host["isolated_cpus"]', []),
    ('entry.get("pf", None)', []),
    ('domains.get("duration") or 10', [(1, "duration")]),
    ('host["isolated_cpus"] or "auto"', [(1, "isolated_cpus")]),
    ('stage["numvfs"] or []', []),
    ('stage["numvfs"] or {}', []),
    ('stage["pf"] or "x"', []),
])
def test_fallbacks_are_found(text, wanted):
    assert sorted(fallbacks(text, {"isolated_cpus", "numvfs", "duration"})) == sorted(wanted)


def test_rt_host_plan_fills_exactly_the_documented_options():
    options = _documentation()
    documented = [(None, "uri")] + [(stage, option) for stage in STAGES for option in options[stage]["suboptions"]]
    assert sorted(documented, key=lambda key: (key[0] or "", key[1])) == _plan_options()


def _templated(value):
    return any(mark in yaml.safe_dump(value) for mark in ("{{", "{%", "{#"))


@pytest.mark.parametrize("stage, option", _plan_options())
def test_every_plan_option_has_a_literal_role_default(stage, option):
    variable = _variable(stage, option)
    defaults = role_defaults()
    assert variable in defaults, "rt_host_plan has an option for %s, which no role's defaults file has" % variable
    role, value = defaults[variable]
    assert role == ("rt_domain" if stage is None else stage)
    assert not _templated(value), "%s's default in roles/%s is a template: rt_host_plan cannot use it" % (variable, role)
    assert plan_action.role_variables()[(stage, option)] == (role, variable)
    specs = role_spec_defaults()
    if variable in specs:
        assert specs[variable] == value


def test_the_template_check_sees_templates():
    assert _templated("{{ x }}") and _templated(["a", {"b": "{% if c %}d{% endif %}"}])
    assert not _templated("auto") and not _templated([]) and not _templated({"k": 1})
