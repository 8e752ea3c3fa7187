# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Options several modules share are written once: ``root`` (doc fragment
``realtime.virt.host_root``, ``_common/options.root_argument_spec``, one
check ``_kernel/reader.checked_root``), ``uri`` and ``pf`` (their fragments
and helpers), and the libvirt modules' end of ``main()``
(``_common/runner.run_result``)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import importlib
import os
import re

import pytest
import yaml

from ansible.module_utils import basic

from ansible_collections.realtime.virt.plugins.module_utils._common import runner
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import HostError, OptionError
from ansible_collections.realtime.virt.plugins.module_utils._common import options
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import checked_root

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MODULES = sorted(glob.glob(os.path.join(TOP, "plugins", "modules", "*.py")))
READERS = ["hugepages_alloc", "qat_services", "qat_vf_info", "rt_host_plan", "rt_isolation_info", "rt_node_facts",
           "sriov_vfs"]


def _source(path):
    with open(path) as handle:
        return handle.read()


def _documentation(source):
    return yaml.safe_load(re.search(r'^DOCUMENTATION = r?"""(.*?)^"""', source, re.S | re.M).group(1))


# option, its doc fragment, its argument-spec helper, the modules that take it, and
# the modules whose own option of that name means something else (rt_host_plan's
# uri has no default: its action plugin gives rt_domain_uri's).
SHARED = [
    ("root", "host_root", "root_argument_spec", READERS, ()),
    ("pf", "pci_pf", "pf_argument_spec", ["qat_services", "sriov_vfs"], ()),
    ("uri", "libvirt_connection", "uri_argument_spec", ["libvirt_rt_domain", "libvirt_rt_domain_info", "libvirt_rt_domains"],
     ("rt_host_plan",)),
]
# Where a module's argument spec is written when not in the module itself.
SPEC_SOURCE = {"libvirt_rt_domain": os.path.join(TOP, "plugins", "module_utils", "_libvirt", "options.py")}


@pytest.mark.parametrize("option, fragment, helper, takers, others", SHARED, ids=[row[0] for row in SHARED])
def test_every_module_that_takes_a_shared_option_uses_its_fragment_and_helper(option, fragment, helper, takers, others):
    users = []
    for path in MODULES:
        name = os.path.basename(path)[:-3]
        if name in others:
            continue
        source = _source(path)
        doc = _documentation(source)
        spec_source = _source(SPEC_SOURCE[name]) if name in SPEC_SOURCE else source
        assert option not in (doc.get("options") or {}), "%s documents %s itself" % (name, option)
        assert not re.search(r"\b%s\s*=\s*dict\(" % option, spec_source), "%s writes %s's spec itself" % (name, option)
        listed = "realtime.virt." + fragment in doc.get("extends_documentation_fragment", [])
        called = helper + "()" in spec_source
        assert listed == called, name
        if called:
            users.append(name)
    assert users == sorted(takers)


@pytest.mark.parametrize("option, fragment, helper, takers, others", SHARED, ids=[row[0] for row in SHARED])
def test_each_fragment_and_its_helper_agree(option, fragment, helper, takers, others):
    holder = importlib.import_module("ansible_collections.realtime.virt.plugins.doc_fragments." + fragment)
    doc = yaml.safe_load(holder.ModuleDocFragment.DOCUMENTATION)["options"][option]
    make = getattr(options, helper)
    spec = make()[option]
    assert (doc["type"], doc.get("default"), doc.get("required", False)) == \
        (spec["type"], spec.get("default"), spec.get("required", False))
    assert make() is not make()   # a fresh dict for each module


@pytest.mark.parametrize("helper, expected", [
    (options.root_argument_spec, {"root": {"type": "path", "default": "/"}}),
    (options.uri_argument_spec, {"uri": {"type": "str", "default": "qemu:///system"}}),
    (options.pf_argument_spec, {"pf": {"type": "str", "required": True}}),
])
def test_the_shared_specs(helper, expected):
    assert helper() == expected


def test_the_root_check_is_written_once():
    where = []
    for path in glob.glob(os.path.join(TOP, "plugins", "**", "*.py"), recursive=True):
        if re.search(r"isdir\(\s*root\b", _source(path)):
            where.append(os.path.relpath(path, TOP))
    assert where == ["plugins/module_utils/_kernel/reader.py"]


def test_checked_root_gives_back_a_directory(tmp_path):
    assert checked_root(str(tmp_path)) == str(tmp_path)


@pytest.mark.parametrize("root", ["/nonexistent/rt", None, 7, __file__])
def test_checked_root_names_option_value_and_fix(root):
    with pytest.raises(HostError) as info:
        checked_root(root)
    message = str(info.value)
    assert message.startswith("root=%r is not a directory" % (root,))
    assert "Fix: give the directory that stands for / of the host" in message
    assert "leave root at its default '/'" in message


class _Module(object):
    """The parts of AnsibleModule that runner.run_result uses."""

    def __init__(self):
        self.warnings = []
        self.deprecations = []

    def warn(self, text):
        self.warnings.append(text)

    def deprecate(self, msg, version=None, collection_name=None):
        self.deprecations.append((msg, version, collection_name))

    def exit_json(self, **result):
        raise _End(False, result, self.warnings, self.deprecations)

    def fail_json(self, **result):
        raise _End(True, result, self.warnings, self.deprecations)


class _End(Exception):
    def __init__(self, failed, result, warnings, deprecations=None):
        super(_End, self).__init__(result)
        self.failed, self.result, self.warnings = failed, result, warnings
        self.deprecations = deprecations or []


class _Manager(object):
    def __init__(self, result=None, error=None):
        self.result, self.error = result, error

    def run(self):
        if self.error:
            raise self.error
        return dict(self.result)


def _end(manager, **kwargs):
    with pytest.raises(_End) as info:
        runner.run_result(_Module(), "libvirt_rt_domains", lambda: manager, **kwargs)
    return info.value


def test_run_result_exits_with_the_result_and_its_warnings():
    end = _end(_Manager({"changed": True, "warnings": ["w1", "w2"], "domains": []}))
    assert (end.failed, end.result, end.warnings) == (False, {"changed": True, "domains": []}, ["w1", "w2"])


def test_run_result_fails_a_result_that_failed():
    end = _end(_Manager({"changed": True, "failed": True, "msg": "1 of 2 domains failed", "warnings": [], "domains": [1]}))
    assert end.failed
    assert end.result == {"msg": "libvirt_rt_domains: 1 of 2 domains failed", "changed": True, "domains": [1]}


def test_run_result_fails_an_error_naming_its_option():
    end = _end(_Manager(error=OptionError("remove_unlisted", True, "only has an effect with exclusive: true",
                                          "set exclusive: true as well")))
    assert end.failed
    assert end.result["msg"] == ("libvirt_rt_domains: remove_unlisted=True: only has an effect with exclusive: true. "
                                 "Fix: set exclusive: true as well")
    assert end.result["option"] == "remove_unlisted"


def test_run_result_details_are_the_modules():
    end = _end(_Manager(error=HostError("no such domain", "define it")),
               details=lambda error: dict(name="vm1", element=getattr(error, "element", None)))
    assert end.failed and end.result == {"msg": "libvirt_rt_domains: no such domain. Fix: define it", "name": "vm1",
                                         "element": None}


def test_require_libraries_fails_only_without_them(monkeypatch):
    module = _Module()
    runner.require_libraries(module, "libvirt-python", None)
    with pytest.raises(_End) as info:
        runner.require_libraries(module, "libvirt-python", "Traceback ...")
    assert info.value.failed and info.value.result["exception"] == "Traceback ..."
    assert info.value.result["msg"] == basic.missing_required_lib("libvirt-python")


def test_run_result_hands_deprecations_to_ansible_with_the_collection_and_version():
    end = _end(_Manager({"changed": False, "warnings": [], "deprecations": [("cpu.emulator_policy=cpuset is old", "2.0.0")]}))
    assert end.result == {"changed": False}
    assert end.deprecations == [("cpu.emulator_policy=cpuset is old", "2.0.0", "realtime.virt")]


def test_a_facts_module_has_every_attribute_of_a_read_only_module(module_doc):
    """attributes.facts carries only the facts attribute: a module listing it lists attributes.info too."""
    facts_modules = []
    for path in MODULES:
        fragments = _documentation(_source(path)).get("extends_documentation_fragment", [])
        if "realtime.virt.attributes.facts" in fragments:
            facts_modules.append(os.path.basename(path)[:-3])
            assert "realtime.virt.attributes.info" in fragments, path
    assert facts_modules == ["rt_node_facts"]
    from ansible_collections.realtime.virt.plugins.modules import rt_node_facts
    attributes = module_doc(rt_node_facts)["attributes"]
    assert dict((name, value["support"]) for name, value in attributes.items()) == {
        "check_mode": "full", "diff_mode": "N/A", "facts": "full"}
