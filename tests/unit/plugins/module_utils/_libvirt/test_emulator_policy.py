# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""cpu.emulator_policy in the rt_domain role's words: housekeeping, isolate, share; cpuset deprecated."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.options import argument_spec
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.render import render
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import build_spec

HOST = {"online": [0, 1, 2, 3], "hugepage_sizes_kib": [2048], "numa_nodes": {0: [0, 1, 2, 3]},
        "devices": {"/dev/random", "/dev/urandom"}}
PINNED = [{"vcpu": 0, "cpuset": "2"}, {"vcpu": 1, "cpuset": "3"}]


def options(**cpu):
    return {"name": "emu", "domain_type": "qemu", "memory_mib": 64, "vcpus": 2,
            "cpu": dict({"mode": "maximum", "pinning": PINNED}, **cpu), "memory": {"locked": False}}


def emulatorpin(opts):
    root = render(build_spec(opts, HOST), None)
    return [node.get("cpuset") for node in root.findall("cputune/emulatorpin")]


def test_the_module_offers_the_roles_words_and_the_old_one():
    spec = argument_spec()["cpu"]["options"]["emulator_policy"]
    assert spec["choices"] == ["housekeeping", "isolate", "share", "cpuset"]
    assert spec["default"] == "housekeeping"


def test_housekeeping_pins_to_the_given_set_or_leaves_the_threads_alone():
    assert emulatorpin(options(emulator_policy="housekeeping", emulator_cpuset="0-1")) == ["0-1"]
    assert emulatorpin(options(emulator_policy="housekeeping")) == []
    assert build_spec(options(emulator_policy="housekeeping"), HOST)["deprecations"] == []


def test_isolate_pins_to_cpus_of_its_own():
    assert emulatorpin(options(emulator_policy="isolate", emulator_cpuset="1")) == ["1"]


def test_isolate_without_a_cpu_set_is_refused():
    with pytest.raises(OptionError) as error:
        build_spec(options(emulator_policy="isolate"), HOST)
    assert str(error.value).startswith("cpu.emulator_policy='isolate': isolate gives the emulator and IO threads")
    assert "Fix: give cpu.emulator_cpuset" in str(error.value)


def test_isolate_on_a_vcpus_cpu_is_refused():
    with pytest.raises(OptionError) as error:
        build_spec(options(emulator_policy="isolate", emulator_cpuset="1,3"), HOST)
    assert str(error.value).startswith("cpu.emulator_cpuset='1,3': isolate gives the emulator CPUs of its own, "
                                       "but CPU 3 also runs vCPU 1")


def test_cpuset_still_works_as_housekeeping_and_says_it_is_deprecated():
    old = options(emulator_policy="cpuset", emulator_cpuset="0")
    assert emulatorpin(old) == emulatorpin(options(emulator_policy="housekeeping", emulator_cpuset="0")) == ["0"]
    deprecations = build_spec(old, HOST)["deprecations"]
    assert len(deprecations) == 1
    assert deprecations[0].startswith("cpu.emulator_policy=cpuset is deprecated and will be removed in 2.0.0")
