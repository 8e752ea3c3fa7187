# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The controller's half of realtime.virt.rt_host_plan: the roles' defaults.

Each stage option the task leaves out (``<stage>.<option>``) is given the
default of its role's variable (``<stage>_<option>`` in
``roles/<stage>/defaults/main.yml`` of this collection), and ``uri`` that of
``rt_domain_uri``; then the module runs on the host as it always did. The
defaults are written once, in the roles: the module's argument spec has none
for these options, and site.yml passes only what the inventory sets.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os

import yaml

from ansible.module_utils.common.validation import check_type_dict
from ansible.plugins.action import ActionBase

from ansible_collections.realtime.virt.plugins.modules.rt_host_plan import argument_spec

MODULE = "realtime.virt.rt_host_plan"
# plugins/action/ -> the collection's roles/
ROLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "roles")
# yaml.safe_load's loader, in C when PyYAML has it (a plan task reads the files once per host).
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# Options outside the stages that a role variable sets: {option: (role, variable)}.
TOP_LEVEL = {"uri": ("rt_domain", "rt_domain_uri")}


class RoleDefaultError(Exception):
    """A plan option whose role default cannot be used as it is."""


def role_variables(spec=None):
    """``{(stage or None, option): (role, variable)}`` for every option the roles' defaults fill."""
    spec = argument_spec() if spec is None else spec
    found = dict(((None, option), role) for option, role in TOP_LEVEL.items())
    for stage, stage_spec in spec.items():
        for option in sorted(stage_spec.get("options") or {}):
            found[(stage, option)] = (stage, "%s_%s" % (stage, option))
    return found


def _templated(value):
    if isinstance(value, str):
        return any(mark in value for mark in ("{{", "{%", "{#"))
    if isinstance(value, dict):
        return any(_templated(key) or _templated(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return any(_templated(item) for item in value)
    return False


def read_role_defaults(role, roles=ROLES):
    """The variables of ``roles/<role>/defaults/main.yml`` ({} when the file is missing or empty)."""
    path = os.path.join(roles, role, "defaults", "main.yml")
    if not os.path.exists(path):
        return {}
    with open(path) as handle:
        return yaml.load(handle, Loader=SAFE_LOADER) or {}


def role_default(role, variable, read=None):
    """The literal default of ``variable`` in its role's defaults file; a template or a missing one is refused."""
    defaults = (read or read_role_defaults)(role)
    where = "roles/%s/defaults/main.yml" % role
    if variable not in defaults:
        raise RoleDefaultError("%s has no default for %s, which rt_host_plan plans with" % (where, variable))
    value = defaults[variable]
    if _templated(value):
        raise RoleDefaultError(
            "the default of %s in %s is a template (%r), which rt_host_plan cannot evaluate on its own: "
            "set that option in the task (for example from the inventory's %s)" % (variable, where, value, variable))
    return copy.deepcopy(value)


def fill_role_defaults(args, spec=None, read=None):
    """``args`` (the task's) with every stage option it leaves out set to its role's default.

    An option the task gives (``None`` included) is kept; a stage given as a
    string is read as the module would read it (``k=v`` or JSON); a stage of
    another type than a mapping is left for the module's own type error.
    """
    args = dict(args)
    read = read or read_role_defaults
    cache = {}

    def cached(role):
        if role not in cache:
            cache[role] = read(role)
        return cache[role]

    for (stage, option), (role, variable) in role_variables(spec).items():
        if stage is None:
            if option not in args:
                args[option] = role_default(role, variable, cached)
            continue
        given = args.get(stage)
        if given is None:
            given = {}
        elif isinstance(given, str):
            try:
                given = check_type_dict(given)
            except TypeError:
                continue
        if not isinstance(given, dict):
            continue
        if option not in given:
            given = dict(given)
            given[option] = role_default(role, variable, cached)
        args[stage] = given
    return args


class ActionModule(ActionBase):
    """rt_host_plan's module, run with the roles' defaults filled in on the controller."""

    _supports_check_mode = True
    _supports_async = True

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp
        try:
            module_args = fill_role_defaults(self._task.args)
        except RoleDefaultError as error:
            result.update(failed=True, msg="rt_host_plan: %s" % error)
            return result
        except (yaml.YAMLError, IOError, OSError) as error:
            result.update(failed=True, msg="rt_host_plan: cannot read the roles' defaults under %s: %s. Fix: reinstall "
                                           "the collection, whose roles/*/defaults/main.yml the plan reads" % (ROLES, error))
            return result
        wrap_async = self._task.async_val and not self._connection.has_native_async
        result.update(self._execute_module(module_name=MODULE, module_args=module_args, task_vars=task_vars,
                                           wrap_async=wrap_async))
        if not wrap_async:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        return result
