# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""--diff shows before and after in one form: a one-option change is the lines it touches.

'before' is what libvirt 9.0 stored for the options of test_compare.py
(its LIBVIRT_XML); 'after' must be that XML with the change applied.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import difflib
import importlib.util
import os

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._libvirt.compare import differences
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.diff import domain_diff
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.render import fill_identity, render
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.devices import device_kinds
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import parse_xml
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import build_spec

_SPEC = importlib.util.spec_from_file_location("libvirt_compare_cases", os.path.join(os.path.dirname(__file__), "test_compare.py"))
_CASES = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_CASES)
HOST, OPTIONS, LIBVIRT_XML = _CASES.HOST, _CASES.OPTIONS, _CASES.LIBVIRT_XML


def run(options=None, current_xml=LIBVIRT_XML, base_xml=None):
    opts = copy.deepcopy(OPTIONS)
    opts.update(options or {})
    if base_xml is not None:
        opts["base_xml"] = base_xml
    base = parse_xml(base_xml) if base_xml else None
    plan = build_spec(opts, HOST, base)
    wanted = render(plan, base)
    current = parse_xml(current_xml) if current_xml else None
    fill_identity(wanted, current)
    kinds = device_kinds(plan, base is not None)
    changed = bool(differences(wanted, current, kinds))
    return changed, domain_diff(current, wanted, kinds, changed, base_xml)


def changed_lines(diff):
    return [line for line in difflib.unified_diff(diff["before"].splitlines(), diff["after"].splitlines(), lineterm="", n=0)
            if not line.startswith(("---", "+++", "@@"))]


def test_nothing_to_change_shows_no_line():
    changed, diff = run()
    assert not changed
    assert diff["before"] == diff["after"]
    assert "<vcpusched" in diff["before"]


def test_before_is_libvirts_xml_in_the_one_form():
    _changed, diff = run()
    assert parse_xml(diff["before"]).findtext("devices/emulator") == "/usr/bin/qemu-system-x86_64"
    assert 'machine="pc-i440fx-7.2"' in diff["before"]


@pytest.mark.parametrize("options, lines", [
    ({"realtime": {"mask": "0-1,^1", "priority": 2}},
     ['-    <vcpusched vcpus="0" scheduler="fifo" priority="1"/>',
      '+    <vcpusched vcpus="0" scheduler="fifo" priority="2"/>']),
    ({"realtime": {"mask": ""}},   # the real-time mask now takes both vCPUs; libvirt stores one element per vCPU
     ['+    <vcpusched vcpus="1" scheduler="fifo" priority="1"/>']),
    ({"rng": {"profile": "openstack", "backend": "/dev/urandom"}},
     ['-      <rate bytes="1024" period="1000"/>',
      '-      <backend model="random">/dev/random</backend>',
      '+      <backend model="random">/dev/urandom</backend>']),
    ({"rng": {"rate": {"bytes": 2048, "period": 1000}}},
     ['-      <rate bytes="1024" period="1000"/>',
      '+      <rate bytes="2048" period="1000"/>']),
    ({"memory_mib": 256, "cpu": dict(OPTIONS["cpu"], numa=None)},
     ['-  <memory unit="KiB">131072</memory>',
      '-  <currentMemory unit="KiB">131072</currentMemory>',
      '+  <memory unit="KiB">262144</memory>',
      '+  <currentMemory unit="KiB">262144</currentMemory>',
      '-  <numatune>',
      '-    <memnode cellid="0" mode="strict" nodeset="0"/>',
      '-  </numatune>',
      '-  <cpu mode="maximum" check="none">',
      '-    <numa>',
      '-      <cell id="0" cpus="0-1" memory="131072" unit="KiB"/>',
      '-    </numa>',
      '-  </cpu>',
      '+  <cpu mode="maximum" check="none"/>']),
    ({"cpu": dict(OPTIONS["cpu"], features=[{"name": "tsc-deadline", "policy": "require"}])},
     ['+    <feature policy="require" name="tsc-deadline"/>']),
    ({"serial_log": None},   # libvirt's console copy of the serial port goes with it
     ['-    <serial type="file">',
      '-      <source path="/tmp/rtsmoke.log"/>',
      '-      <target type="isa-serial" port="0">',
      '-        <model name="isa-serial"/>',
      '-      </target>',
      '-    </serial>',
      '-    <console type="file">',
      '-      <source path="/tmp/rtsmoke.log"/>',
      '-      <target type="serial" port="0"/>',
      '-    </console>']),
    ({"serial_log": "/tmp/other.log"},
     ['-      <source path="/tmp/rtsmoke.log"/>',
      '+      <source path="/tmp/other.log"/>',
      '-      <source path="/tmp/rtsmoke.log"/>',
      '+      <source path="/tmp/other.log"/>']),
])
def test_a_one_option_change_is_exactly_the_lines_it_touches(options, lines):
    changed, diff = run(options)
    assert changed
    assert changed_lines(diff) == lines


def test_a_new_feature_goes_where_libvirt_writes_it():
    _changed, diff = run({"cpu": dict(OPTIONS["cpu"], features=[{"name": "tsc-deadline", "policy": "require"}])})
    cpu = parse_xml(diff["after"]).find("cpu")
    assert [child.tag for child in cpu] == ["feature", "numa"]


def test_a_new_domain_has_an_empty_before():
    changed, diff = run(current_xml=None)
    assert changed and diff["before"] == ""
    assert "<vcpusched" in diff["after"]


def test_replaced_base_children_are_named_in_the_header():
    base = LIBVIRT_XML.replace("<vcpusched vcpus='0' scheduler='fifo' priority='1'/>",
                               "<vcpusched vcpus='0-1' scheduler='idle'/>").replace(
        "<pmu state='off'/>", "<pmu state='on'/>").replace("<shares>", "<shares>")
    _changed, diff = run(base_xml=base)
    header = diff["after_header"]
    assert "cputune <vcpusched scheduler='idle' vcpus='0-1'>" in header
    assert "features <pmu state='on'>" in header
    assert "memoryBacking" not in header and "vcpupin" not in header   # equal to ours: nothing replaced
    _changed, plain = run(base_xml=LIBVIRT_XML)
    assert "after_header" not in plain
