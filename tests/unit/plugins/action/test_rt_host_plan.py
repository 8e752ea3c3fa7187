# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""rt_host_plan's action plugin: a left-out option gets its role's default, a given one wins.

The expected values are written out here, as the roles' defaults files say
them today: a default changed in a role changes what the plan plans with,
and this file says so.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
from unittest import mock

import pytest
import yaml

from ansible_collections.realtime.virt.plugins.action import rt_host_plan as action
from ansible_collections.realtime.virt.plugins.modules import rt_host_plan as module

# What the plan uses for an option the task leaves out, literally (roles/*/defaults/main.yml).
ROLE_DEFAULTS = {
    "uri": "qemu:///system",
    "rt_host": {"isolated_cpus": "auto", "iommu": False, "kernel_args_extra": [], "reboot": "never"},
    "hugepages": {"pages": [], "default_size": ""},
    "qat": {"pfs": [], "numvfs": "max", "numvfs_per_pf": {}, "services": ""},
    "sriov": {"pfs": [], "vf_driver": "vfio-pci"},
    "rt_domain": {"domains": [], "domain_defaults": {}, "allow_unisolated": False, "hugepage_check": "fail"},
    "rt_validate": {"guests": [], "duration": 10},
    "ptp": {"interfaces": [], "profile": "e2e", "domain": "auto", "clock": "client", "transport": "auto",
            "software_timestamping": False, "free_running": False, "phc2sys": "auto", "cpus": "auto",
            "priority": 10, "unicast_masters": [], "options": {}},
}


def test_a_task_without_options_gets_every_roles_default():
    assert action.fill_role_defaults({}) == ROLE_DEFAULTS


def test_every_option_of_the_module_is_filled():
    spec = module.argument_spec()
    filled = action.fill_role_defaults({})
    assert sorted(filled) == sorted(["uri"] + list(module.STAGES))
    for stage in module.STAGES:
        assert sorted(filled[stage]) == sorted(spec[stage]["options"]), stage


def test_an_option_the_task_gives_wins():
    args = {"uri": "test:///default", "root": "/tmp/tree",
            "rt_host": {"isolated_cpus": "2-15", "reboot": None},
            "sriov": {"vf_driver": "ixgbevf"}, "ptp": {"interfaces": ["ens1f0"], "priority": 20},
            "inventory": ["h1"]}
    before = copy.deepcopy(args)
    filled = action.fill_role_defaults(args)
    assert args == before, "the task's own arguments are not changed"
    assert filled["uri"] == "test:///default"
    assert filled["root"] == "/tmp/tree"
    assert filled["inventory"] == ["h1"]
    assert filled["rt_host"] == {"isolated_cpus": "2-15", "reboot": None, "iommu": False, "kernel_args_extra": []}
    assert filled["sriov"] == {"pfs": [], "vf_driver": "ixgbevf"}
    assert filled["ptp"]["interfaces"] == ["ens1f0"]
    assert filled["ptp"]["priority"] == 20
    assert filled["ptp"]["profile"] == "e2e"
    assert filled["hugepages"] == ROLE_DEFAULTS["hugepages"]


def test_a_filled_default_is_a_copy():
    first = action.fill_role_defaults({})
    first["rt_host"]["kernel_args_extra"].append("x")
    first["ptp"]["options"]["y"] = 1
    assert action.fill_role_defaults({}) == ROLE_DEFAULTS


@pytest.mark.parametrize("stage, wanted", [
    ("vf_driver=ixgbevf", {"pfs": [], "vf_driver": "ixgbevf"}),            # k=v, as the module reads a dict
    ('{"vf_driver": "ixgbevf"}', {"pfs": [], "vf_driver": "ixgbevf"}),     # JSON
    (None, ROLE_DEFAULTS["sriov"]),
])
def test_a_stage_the_module_reads_as_a_mapping_is_filled(stage, wanted):
    assert action.fill_role_defaults({"sriov": stage})["sriov"] == wanted


@pytest.mark.parametrize("stage", [["0000:3b:00.0"], 3, "not a mapping"])
def test_a_stage_of_the_wrong_type_is_left_for_the_modules_error(stage):
    assert action.fill_role_defaults({"sriov": stage})["sriov"] == stage


def test_a_wrong_type_inside_a_stage_is_passed_as_given():
    # the module's argument spec refuses it, with its own message
    assert action.fill_role_defaults({"ptp": {"priority": "high"}})["ptp"]["priority"] == "high"


def _reader(files):
    def read(role):
        return files.get(role, {})
    return read


# rt_host's defaults file with rt_host_isolated_cpus a template
TEMPLATED = {"rt_host": {"rt_host_isolated_cpus": "{{ my_cpus }}", "rt_host_iommu": False,
                         "rt_host_kernel_args_extra": [], "rt_host_reboot": "never"},
             "rt_domain": {"rt_domain_uri": "qemu:///system"}}


def test_a_templated_role_default_is_refused():
    with pytest.raises(action.RoleDefaultError) as error:
        action.fill_role_defaults({}, spec={"rt_host": module.argument_spec()["rt_host"]}, read=_reader(TEMPLATED))
    assert "rt_host_isolated_cpus" in str(error.value)
    assert "roles/rt_host/defaults/main.yml" in str(error.value)
    assert "template" in str(error.value)


@pytest.mark.parametrize("value", ["{% if x %}1{% endif %}", ["a", "{{ b }}"], {"k": {"n": "{{ c }}"}}])
def test_a_template_anywhere_in_a_default_is_refused(value):
    with pytest.raises(action.RoleDefaultError):
        action.role_default("ptp", "ptp_options", read=_reader({"ptp": {"ptp_options": value}}))


def test_a_template_the_task_overrides_is_not_read():
    filled = action.fill_role_defaults({"rt_host": {"isolated_cpus": "2-3"}},
                                       spec={"rt_host": module.argument_spec()["rt_host"]}, read=_reader(TEMPLATED))
    assert filled["rt_host"]["isolated_cpus"] == "2-3"


def test_a_role_without_the_variable_is_refused():
    files = {"rt_domain": {"rt_domain_uri": "qemu:///system"}, "sriov": {"sriov_pfs": []}}
    with pytest.raises(action.RoleDefaultError) as error:
        action.fill_role_defaults({}, spec={"sriov": module.argument_spec()["sriov"]}, read=_reader(files))
    assert str(error.value) == "roles/sriov/defaults/main.yml has no default for sriov_vf_driver, which rt_host_plan plans with"


def test_the_roles_files_are_the_collections():
    assert action.read_role_defaults("sriov")["sriov_vf_driver"] == "vfio-pci"
    assert action.read_role_defaults("no_such_role") == {}


# -- the plugin itself, with Ansible's objects mocked -------------------------------------------

def _plugin(args, check_mode=False):
    task = mock.MagicMock(args=args, async_val=0, check_mode=check_mode, action="realtime.virt.rt_host_plan")
    connection = mock.MagicMock(has_native_async=False)
    connection._shell.tmpdir = None
    plugin = action.ActionModule(task, connection, mock.MagicMock(), loader=None, templar=None, shared_loader_obj=None)
    plugin._execute_module = mock.MagicMock(return_value={"changed": False, "plan": {}, "problems": []})
    plugin._remove_tmp_path = mock.MagicMock()
    return plugin


@pytest.mark.parametrize("check_mode", [False, True])
def test_the_plugin_runs_the_module_with_the_defaults_filled(check_mode):
    plugin = _plugin({"rt_host": {"isolated_cpus": "2-3"}}, check_mode=check_mode)
    result = plugin.run(task_vars={})
    assert result == {"changed": False, "plan": {}, "problems": []}
    call = plugin._execute_module.call_args
    assert call.kwargs["module_name"] == "realtime.virt.rt_host_plan"
    assert not call.kwargs["wrap_async"]
    args = call.kwargs["module_args"]
    assert args["rt_host"]["isolated_cpus"] == "2-3"
    assert args["rt_host"]["reboot"] == "never"
    assert args["uri"] == "qemu:///system"
    assert args["sriov"]["vf_driver"] == "vfio-pci"
    assert args["ptp"]["profile"] == "e2e"


def _refused(monkeypatch, read):
    """The message of a plan task whose roles' defaults ``read`` gives; the module must not have run."""
    monkeypatch.setattr(action, "read_role_defaults", read)
    plugin = _plugin({})
    result = plugin.run(task_vars={})
    assert result["failed"] is True
    plugin._execute_module.assert_not_called()
    return result["msg"]


def test_the_plugin_fails_clearly_on_an_unreadable_defaults_file(monkeypatch):
    def read(role, roles=action.ROLES):
        raise yaml.YAMLError("mapping values are not allowed here")
    msg = _refused(monkeypatch, read)
    assert "cannot read the roles' defaults" in msg and "mapping values" in msg


def test_the_plugin_fails_on_a_templated_default_without_running_the_module(monkeypatch):
    real = action.read_role_defaults

    def read(role, roles=action.ROLES):
        found = dict(real(role, roles))
        if role == "ptp":
            found["ptp_profile"] = "{{ my_profile }}"
        return found
    msg = _refused(monkeypatch, read)
    assert "ptp_profile" in msg and "template" in msg
