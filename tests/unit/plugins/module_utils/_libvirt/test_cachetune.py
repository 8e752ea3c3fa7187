# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""cachetune and memorytune: checked against a Skylake-SP style host's resctrl, rendered, compared.

The host (RDT below) has a 22 MiB L3 per socket in 11 ways of 2 MiB,
min_cbm_bits 1 and 16 classes of service, and memory bandwidth in steps
of 10 % from 10 %: the numbers of rt_node_trees' two_socket_smt shape.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.render import render
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.devices import device_kinds
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import parse_xml
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.compare import differences
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import build_spec

L3 = [{"level": 3, "type": "both", "id": socket, "size_kb": 22528, "cpus": [], "cpuset": ""} for socket in (0, 1)]
RDT = {"cpu_flags": {"rdt_a": True, "cat_l3": True, "cat_l2": False, "cdp_l3": True, "mba": True},
       "mounted": True, "path": "/sys/fs/resctrl", "caches": L3,
       "resources": {"L3": {"cbm_mask": 0x7ff, "min_cbm_bits": 1, "num_closids": 16, "shareable_bits": 0, "ways": 11},
                     "MB": {"min_bandwidth": 10, "bandwidth_gran": 10, "num_closids": 8}}}
NO_RDT = {"cpu_flags": {"rdt_a": False, "cat_l3": False, "cat_l2": False, "cdp_l3": False, "mba": False},
          "mounted": False, "path": None, "resources": {}, "caches": []}
HOST = {"online": [0, 1, 2, 3], "hugepage_sizes_kib": [2048], "numa_nodes": {0: [0, 1, 2, 3]}, "devices": set(),
        "resctrl": RDT}


def options(**extra):
    opts = {"name": "vm", "domain_type": "qemu", "memory_mib": 64, "vcpus": 2, "hardening": {"enabled": False},
            "cpu": {"pinning": [{"vcpu": 0, "cpuset": "1"}, {"vcpu": 1, "cpuset": "2"}]}}
    opts.update(extra)
    return opts


def cache(size=4, unit="MiB", **extra):
    entry = {"id": 0, "level": 3, "type": "both", "size": size, "unit": unit}
    entry.update(extra)
    return entry


def test_cachetune_and_memorytune_are_rendered_in_cputune():
    plan = build_spec(options(cachetune=[{"vcpus": "0-1", "caches": [cache(4)]}],
                              memorytune=[{"vcpus": "0-1", "nodes": [{"id": 0, "bandwidth": 50}]}]), HOST)
    root = render(plan)
    assert [dict(n.attrib) for n in root.findall("cputune/cachetune")] == [{"vcpus": "0-1"}]
    assert [dict(n.attrib) for n in root.findall("cputune/cachetune/cache")] == [
        {"id": "0", "level": "3", "type": "both", "size": "4096", "unit": "KiB"}]
    assert [dict(n.attrib) for n in root.findall("cputune/memorytune/node")] == [{"id": "0", "bandwidth": "50"}]


def test_libvirts_own_units_are_no_difference_and_a_change_is():
    plan = build_spec(options(cachetune=[{"vcpus": "0-1", "caches": [cache(4)]}]), HOST)
    libvirt = ("<domain type='qemu'><name>vm</name><memory unit='KiB'>65536</memory><vcpu>2</vcpu><cputune>"
               "<vcpupin vcpu='0' cpuset='1'/><vcpupin vcpu='1' cpuset='2'/>"
               "<cachetune vcpus='0-1'><cache id='0' level='3' type='both' size='4' unit='MiB'/></cachetune>"
               "</cputune><os><type>hvm</type><boot dev='hd'/></os><features><acpi/><apic/></features>"
               "<cpu mode='maximum'/><clock offset='utc'/><devices/></domain>")
    assert differences(render(plan), parse_xml(libvirt), device_kinds(plan, False)) == []
    larger = libvirt.replace("size='4' unit='MiB'", "size='6' unit='MiB'")
    assert differences(render(plan), parse_xml(larger), device_kinds(plan, False)) == [
        "domain/cputune/cachetune/cache: attribute size is '6', wanted '4096'"]
    plain = build_spec(options(), HOST)
    assert "domain/cputune/cachetune: not wanted <cachetune vcpus='0-1'>" in differences(
        render(plain), parse_xml(libvirt), device_kinds(plain, False))


@pytest.mark.parametrize("entries, option, why", [
    ([{"vcpus": "0", "caches": [cache(3)]}], "cachetune[0].caches[0].size=3",
     "3072 KiB is not a whole number of 2048 KiB ways (L3 cache 0: 22528 KiB in 11 ways)"),
    ([{"vcpus": "0", "caches": [cache(22)]}], "cachetune[0].caches[0].size=22",
     "11 ways of 2048 KiB, but the host gives from 1 to 10 (the default group keeps 1 of the 11 ways)"),
    ([{"vcpus": "0", "caches": [cache(4, id=2)]}], "cachetune[0].caches[0].id=2",
     "the host has no level 3 cache with that id (ids: 0, 1)"),
    ([{"vcpus": "0", "caches": [cache(4, level=2)]}], "cachetune[0].caches[0].level=2",
     "resctrl has no L2 resource (it has: L3)"),
    ([{"vcpus": "0", "caches": [cache(4, type="code")]}], "cachetune[0].caches[0].type='code'",
     "resctrl has no L3CODE resource"),
    ([{"vcpus": "0", "caches": [cache(4)]}, {"vcpus": "0-1", "caches": [cache(2)]}], "cachetune[1].vcpus='0-1'",
     "vCPUs 0 are in another group already"),
    ([{"vcpus": "4", "caches": [cache(4)]}], "cachetune[0].vcpus='4'", "highest allowed id 1"),
    ([{"vcpus": str(v), "caches": [cache(2)]} for v in range(2)] * 8, "cachetune=16",
     "16 groups, but the host has 16 classes of service and the default group keeps one"),
])
def test_a_cache_request_the_host_cannot_give_is_refused(entries, option, why):
    with pytest.raises(OptionError) as error:
        build_spec(options(cachetune=entries), HOST)
    assert str(error.value).startswith(option) and why in str(error.value) and "Fix:" in str(error.value)


@pytest.mark.parametrize("nodes, option, why", [
    ([{"id": 0, "bandwidth": 55}], "memorytune[0].nodes[0].bandwidth=55", "in steps of 10%"),
    ([{"id": 0, "bandwidth": 5}], "memorytune[0].nodes[0].bandwidth=5", "10% and up"),
    ([{"id": 0, "bandwidth": 120}], "memorytune[0].nodes[0].bandwidth=120", "percentage from 1 to 100"),
    ([{"id": 3, "bandwidth": 50}], "memorytune[0].nodes[0].id=3", "the L3 cache ids: 0, 1"),
])
def test_a_bandwidth_the_host_cannot_give_is_refused(nodes, option, why):
    with pytest.raises(OptionError) as error:
        build_spec(options(memorytune=[{"vcpus": "0-1", "nodes": nodes}]), HOST)
    assert str(error.value).startswith(option) and why in str(error.value)


def test_a_host_without_resctrl_refuses_before_libvirt_and_says_how():
    host = dict(HOST, resctrl=NO_RDT)
    with pytest.raises(OptionError) as error:
        build_spec(options(cachetune=[{"vcpus": "0", "caches": [cache(4)]}]), host)
    text = str(error.value)
    assert text.startswith("cachetune=") and "offers no cache allocation (no cat_l3 or cat_l2 flag)" in text
    assert "mount -t resctrl resctrl /sys/fs/resctrl" in text
    flagged = dict(NO_RDT, cpu_flags=dict(NO_RDT["cpu_flags"], cat_l3=True))
    with pytest.raises(OptionError) as error:
        build_spec(options(cachetune=[{"vcpus": "0", "caches": [cache(4)]}]), dict(HOST, resctrl=flagged))
    assert "resctrl (Intel RDT) is not mounted on this host" in str(error.value)


def test_a_remote_uri_checks_only_the_shape():
    plan = build_spec(options(cachetune=[{"vcpus": "0", "caches": [cache(3)]}]), {})
    assert plan["cachetune"] == [{"vcpus": [0], "caches": [{"id": 0, "level": 3, "type": "both", "size_kib": 3072}]}]
