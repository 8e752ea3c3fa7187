# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""owned.py: the one declaration of what libvirt_rt_domain owns holds every element it writes."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib.util
import os

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._libvirt import conflicts, owned
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.diff import domain_diff
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.render import render
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.devices import device_kinds
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import parse_xml
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import build_spec

_SPEC = importlib.util.spec_from_file_location("libvirt_render_cases", os.path.join(os.path.dirname(__file__), "test_render.py"))
_CASES = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_CASES)

L3 = [{"level": 3, "type": "both", "id": 0, "size_kb": 22528, "cpus": [], "cpuset": ""}]
RDT = {"cpu_flags": {"rdt_a": True, "cat_l3": True, "cat_l2": False, "cdp_l3": True, "mba": True},
       "mounted": True, "path": "/sys/fs/resctrl", "caches": L3,
       "resources": {"L3": {"cbm_mask": 0x7ff, "min_cbm_bits": 1, "num_closids": 16, "shareable_bits": 0, "ways": 11},
                     "MB": {"min_bandwidth": 10, "bandwidth_gran": 10, "num_closids": 8}}}
HOST = dict(_CASES.HOST, resctrl=RDT)
PINNED = {"pinning": [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}], "emulator_cpuset": "0"}
TUNE = {"cachetune": [{"vcpus": "0-1", "caches": [{"id": 0, "level": 3, "type": "both", "size": 2, "unit": "MiB"}]}],
        "memorytune": [{"vcpus": "0-1", "nodes": [{"id": 0, "bandwidth": 50}]}]}
# every option at once (and the few that exclude each other apart)
RICH = dict(TUNE, name="vm", domain_type="kvm", vcpus=2, memory_mib=1024, machine="q35", iothreads=1,
            cpu=dict(PINNED, features=[{"name": "tsc-deadline"}], topology={"sockets": 1, "cores": 2, "threads": 1},
                     numa={"cells": [{"cpus": "0-1", "memory_mib": 1024}]}),
            realtime={"mask": "1", "priority": 10}, rng={"rate": {"period": 1000, "bytes": 64}},
            memory={"hugepages": {"page_size": "2M", "nodeset": "0"}, "numatune": {"nodeset": "0"}},
            hostdevs=["0000:6b:00.1"], disks=[{"path": "/a.qcow2", "format": "qcow2", "iothread": 1}],
            interfaces=[{"network": "default", "mac": "52:54:00:aa:bb:cc"}, {"bridge": "br0"}],
            serial_log="/var/log/vm.log", hardening={"hint_dedicated": True})
VARIANTS = [
    RICH,
    dict(RICH, boot={"kernel": "/k", "initrd": "/i", "cmdline": "console=ttyS0"},
         cpu=dict(PINNED, mode="custom", model="Skylake-Server", numa={"passthrough": True}), hardening={}),
    dict(RICH, hardening={"guest_suspend": False, "timers": [{"name": "tsc", "present": True}]}),
]


def _paths(node, path="domain"):
    for child in node:
        if isinstance(child.tag, str):
            yield path, child.tag
            yield from _paths(child, path + "/" + child.tag)


def _declared():
    return set((path, tag) for path, tag, _id, _owns, _replaces, _when in owned.ELEMENTS)


@pytest.mark.parametrize("options", VARIANTS + [dict({"name": "vm", "vcpus": 2, "memory_mib": 1024}, **row[0])
                                                for row in _CASES.TABLE])
def test_every_element_the_renderer_writes_is_declared(options):
    root = render(build_spec(options, HOST))
    assert sorted(set(_paths(root)) - _declared()) == []


def test_the_rich_domain_writes_what_the_declaration_owns():
    written = set()
    for options in VARIANTS:
        written |= set(_paths(render(build_spec(options, HOST))))
    owned_rows = set((path, tag) for path, tag, _id, owns, _r, _w in owned.ELEMENTS if owns in ("top", "listed", "device"))
    assert sorted(owned_rows - written) == []  # the variants above really cover the declaration


def test_declared_elements_sit_in_libvirts_order():
    for path, tag, _id, _owns, _replaces, _when in owned.ELEMENTS:
        order = owned.ORDER.get(path.rsplit("/", 1)[-1])
        if order:
            assert tag in order, (path, tag)


def test_derived_tables():
    assert owned.REPLACEABLE["domain/cputune"] == ("vcpupin", "emulatorpin", "iothreadpin", "vcpusched",
                                                   "cachetune", "memorytune")
    assert set(owned.OWNED_TOP) == {"vcpu", "memory", "cputune", "memoryBacking", "numatune", "cpu", "iothreads", "pm"}
    assert owned.DEVICE_KINDS == ("disk", "interface", "serial", "hostdev", "rng")
    assert owned.STRIPPED_KINDS == ("graphics", "sound")
    assert owned.ID_ATTR["iothreadpin"] == "iothread" and owned.ID_ATTR["iothreadsched"] == "iothreads"
    assert "console" in owned.REPLACES["devices"] and "console" not in owned.REPLACEABLE["domain/devices"]


def test_every_replaceable_row_names_a_rule_and_every_rule_a_row():
    named = set()
    for path, tag, _id, _owns, replaces, rule in owned.ELEMENTS:
        if replaces in (True, "mirror"):
            assert rule in conflicts.RULES, (path, tag, rule)
            named.add(rule)
        else:
            assert replaces is False and rule is None, (path, tag, rule)
    assert sorted(set(conflicts.RULES) - named) == []
    assert [name for name, rule in sorted(conflicts.RULES.items()) if not (rule.__doc__ or "").strip()] == []


def test_conflicts_for_reads_the_rule_of_the_childs_path_and_tag():
    plan = build_spec({"name": "vm", "vcpus": 2, "memory_mib": 1024, "iothreads": 1, "cpu": PINNED}, HOST)
    cputune = parse_xml(BASE).find("cputune")
    verdict = conflicts.conflicts_for("domain/cputune", plan, cputune)
    assert verdict(cputune.find("iothreadpin")) is False  # pinned with the emulator
    assert verdict(cputune.find("shares")) is None  # no row: no rule
    memory = parse_xml(BASE).find("memory")
    assert conflicts.conflicts_for("domain/cputune", plan, cputune)(memory) is None  # a tag of another parent
    assert conflicts.conflicts_for("domain/nowhere", plan)(memory) is None


BASE = """<domain type='kvm'><name>vm</name><memory unit='KiB'>1048576</memory><vcpu>2</vcpu><iothreads>1</iothreads>
<cputune><shares>2048</shares><iothreadpin iothread='1' cpuset='5'/>
<cachetune vcpus='0-1'><cache id='0' level='3' type='both' size='6' unit='MiB'/></cachetune>
<memorytune vcpus='0-1'><node id='0' bandwidth='20'/></memorytune></cputune>
<os><type arch='x86_64'>hvm</type></os><devices/></domain>"""


def test_the_diff_names_the_iothreadpin_cachetune_and_memorytune_options_replace():
    options = dict(TUNE, name="vm", domain_type="kvm", iothreads=1, base_xml=BASE, hardening={"enabled": False},
                   cpu=PINNED)
    base = parse_xml(BASE)
    plan = build_spec(options, HOST, base)
    wanted = render(plan, base)
    assert [dict(node.attrib) for node in wanted.findall("cputune/iothreadpin")] == [{"iothread": "1", "cpuset": "0"}]
    assert len(wanted.findall("cputune/cachetune")) == 1 and len(wanted.findall("cputune/memorytune")) == 1
    assert wanted.find("cputune/shares").text == "2048"  # not declared replaceable: kept
    header = domain_diff(None, wanted, device_kinds(plan, True), True, BASE)["after_header"]
    assert "cputune <iothreadpin cpuset='5' iothread='1'>" in header
    assert "cputune <cachetune vcpus='0-1'>" in header
    assert "cputune <memorytune vcpus='0-1'>" in header
    assert "shares" not in header
