# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The bad-input catalogue: one table, every module and role entry point.

Each row gives an entry point, the bad input and the words the failure
message must hold: the option, the value (where the message can carry it)
and the fix.  Modules run their real ``main()`` in-process against a fake
libvirt or a fixture /sys tree; a row passes only when

* the module fails through ``fail_json`` (no exception escapes ``main()``),
* the message holds every expected word,
* nothing was written: libvirt was never even opened, the fixture tree is
  byte for byte the same, the fake kernel logged no write, no state file.

Role entry points go through the role's ``meta/argument_specs.yml`` (the
check ``include_role`` runs before the first task) or through the plan
filter the role calls before its first change.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections
import importlib
import copy
import hashlib
import os

import pytest
import yaml

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

import qat_trees
import rt_node_trees
from pci_kernel import FakeKernel

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._node.gather import gather_node_facts
from ansible_collections.realtime.virt.plugins.module_utils._qat import services as qat_services_utils
from ansible_collections.realtime.virt.plugins.module_utils._sriov import manager as sriov_state
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.modules import hugepages_alloc, qat_services, qat_vf_info
from ansible_collections.realtime.virt.plugins.modules import libvirt_rt_domain_info, rt_host_plan, rt_node_facts, sriov_vfs
from ansible_collections.realtime.virt.plugins.modules import rt_isolation_info
from ansible_collections.realtime.virt.plugins.action.rt_host_plan import fill_role_defaults

try:
    import libvirt
    from lxml import etree
    from ansible_collections.realtime.virt.plugins.module_utils._libvirt import batch as _batch
    from ansible_collections.realtime.virt.plugins.module_utils._libvirt import manager as _domain
    from ansible_collections.realtime.virt.plugins.module_utils._libvirt.render import render
    from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import to_text
    from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import build_spec
    from ansible_collections.realtime.virt.plugins.modules import libvirt_rt_domain, libvirt_rt_domains
except ImportError:  # pragma: no cover - the libvirt rows are skipped then
    libvirt = None

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def _filter_plugins():
    """Every filter the collection ships, by name, loaded from plugins/filter/."""
    found = {}
    for name in sorted(os.listdir(os.path.join(TOP, "plugins", "filter"))):
        if name.endswith(".py") and not name.startswith("_"):
            plugin = importlib.import_module("ansible_collections.realtime.virt.plugins.filter." + name[:-3])
            found.update(plugin.FilterModule().filters())
    return found


FILTERS = _filter_plugins()

Case = collections.namedtuple("Case", "id entry args expect")
TRACEBACK_WORDS = ("Traceback", "Exception", "Error:", "KeyError", "TypeError", "AttributeError", "NoneType")

# A domain the module accepts on the fixture host (CPUs 0-3, node 0, 2M pages).
DOMAIN = {"name": "rtv-bad", "uri": "qemu:///system", "state": "present", "domain_type": "qemu", "memory_mib": 64,
          "vcpus": 2, "cpu": {"mode": "maximum", "pinning": [{"vcpu": 0, "cpuset": "1"}, {"vcpu": 1, "cpuset": "2"}]},
          "realtime": {"mask": "0"}, "memory": {"locked": False}, "rng": {}}

# Role variables the roles accept (what the demo inventory sets).
ROLE_VARS = {
    "rt_host": {"rt_host_isolated_cpus": "auto", "rt_host_reboot": "never"},
    "hugepages": {"hugepages_pages": [{"size": "2M", "count": 128, "node": 0}]},
    "qat": {"qat_numvfs": "max"},
    "sriov": {"sriov_pfs": [{"pf": "0000:3b:00.0", "count": 4}]},
    "rt_domain": {"rt_domain_domains": [{"name": "vm1", "vcpus": 1, "memory_mib": 64, "cpus": "auto"}]},
    "rt_validate": {"rt_validate_duration": 10},
    "rt_guest": {"rt_guest_isolated_cpus": "auto", "rt_guest_reboot": "never"},
    "ptp": {"ptp_interfaces": ["eth0"]},
}
# rt_node_facts' time_sync of a host with one interface that timestamps in software only (as a veth)
SOFTWARE_ONLY = {"interfaces": [{"name": "veth0", "software_transmit": True, "software_receive": True,
                                 "hardware_transmit": False, "hardware_receive": False, "hardware_raw_clock": False,
                                 "phc_index": None}]}

# Filters that never refuse their input: they format or parse what they are given.
NEVER_REFUSE = {
    "rt_domain_hugepage_sizes": "sizes of placed domains; a domain without hugepages adds none",
    "rt_domain_summary": "a line of text per placed domain",
    "rt_grubby_entries": "parses grubby's output; lines it does not know are skipped",
    "rt_validate_cyclictest": "parses any text; a run without a summary gives error, not an exception",
    "rt_validate_oslat": "parses any text; output without oslat's JSON gives error, not an exception",
    "rt_tuned_profiles": "parses tuned-adm list; lines that are no profile entry are skipped",
    "rt_tuned_active": "parses tuned-adm active; output without the active-profile line gives an empty list",
}

CASES = [
    # ---- libvirt_rt_domain: wrong types, ranges, syntax (AnsibleModule and the plan) -------------
    Case("dom-vcpus-not-int", "libvirt_rt_domain", {"vcpus": "two"}, ["vcpus", "int"]),
    Case("dom-memory-not-int", "libvirt_rt_domain", {"memory_mib": "lots"}, ["memory_mib", "int"]),
    Case("dom-vcpus-zero", "libvirt_rt_domain", {"vcpus": 0}, ["vcpus=0", "at least 1"]),
    Case("dom-passthrough-under-tcg", "libvirt_rt_domain", {"domain_type": "qemu", "cpu": {"mode": "host-passthrough"}},
         ["cpu.mode='host-passthrough'", "maximum"]),
    Case("dom-vcpus-negative", "libvirt_rt_domain", {"vcpus": -2}, ["vcpus=-2", "at least 1"]),
    Case("dom-memory-zero", "libvirt_rt_domain", {"memory_mib": 0}, ["memory_mib=0", "at least 1"]),
    Case("dom-state-unknown", "libvirt_rt_domain", {"state": "started"}, ["state", "started", "present, running, stopped, absent"]),
    Case("dom-type-unknown", "libvirt_rt_domain", {"domain_type": "xen"}, ["domain_type", "xen", "kvm, qemu"]),
    Case("dom-unknown-option", "libvirt_rt_domain", {"vpcus": 2}, ["vpcus", "Supported parameters"]),
    Case("dom-name-missing", "libvirt_rt_domain", {"name": None}, ["name"]),
    Case("dom-name-empty", "libvirt_rt_domain", {"name": ""}, ["name=''", "non-empty"]),
    Case("dom-name-slash", "libvirt_rt_domain", {"name": "a/b"}, ["name='a/b'", "no '/'"]),
    Case("dom-name-newline", "libvirt_rt_domain", {"name": "rt\nvm"}, ["name='rt\\nvm'", "control character", "rename"]),
    Case("dom-name-tab", "libvirt_rt_domain", {"name": "rt\tvm"}, ["name='rt\\tvm'", "control character"]),
    Case("dom-mask-out-of-range", "libvirt_rt_domain", {"realtime": {"mask": "0-5"}}, ["realtime.mask='0-5'", "highest allowed id 1"]),
    Case("dom-mask-garbage", "libvirt_rt_domain", {"realtime": {"mask": "zero"}}, ["realtime.mask='zero'", "expected N, N-M or ^N"]),
    Case("dom-mask-reversed", "libvirt_rt_domain", {"realtime": {"mask": "1-0"}}, ["realtime.mask='1-0'", "greater than its end"]),
    Case("dom-mask-double-comma", "libvirt_rt_domain", {"realtime": {"mask": "0,,1"}}, ["realtime.mask='0,,1'", "empty token"]),
    Case("dom-mask-excludes-all", "libvirt_rt_domain", {"realtime": {"mask": "^0,^1"}}, ["realtime.mask='^0,^1'", "selects no vCPU", "mask"]),
    Case("dom-mask-unpinned", "libvirt_rt_domain", {"realtime": {"mask": "0-1"}, "cpu": {"pinning": [{"vcpu": 0, "cpuset": "1"}]}},
         ["realtime.mask='0-1'", "not pinned", "cpu.pinning"]),
    Case("dom-priority-zero", "libvirt_rt_domain", {"realtime": {"priority": 0}}, ["realtime.priority=0", "1 to 99"]),
    Case("dom-priority-100", "libvirt_rt_domain", {"realtime": {"priority": 100}}, ["realtime.priority=100", "1 to 99"]),
    Case("dom-priority-not-int", "libvirt_rt_domain", {"realtime": {"priority": "high"}}, ["priority", "int"]),
    Case("dom-scheduler-unknown", "libvirt_rt_domain", {"realtime": {"scheduler": "deadline"}}, ["scheduler", "deadline", "fifo, rr"]),
    Case("dom-pin-cpuset-offline", "libvirt_rt_domain", {"cpu": {"pinning": [{"vcpu": 0, "cpuset": "9"}, {"vcpu": 1, "cpuset": "2"}]}},
         ["cpu.pinning[0].cpuset='9'", "not online", "online: 0-3"]),
    Case("dom-pin-cpuset-malformed", "libvirt_rt_domain", {"cpu": {"pinning": [{"vcpu": 0, "cpuset": "1-"}, {"vcpu": 1, "cpuset": "2"}]}},
         ["cpu.pinning[0].cpuset='1-'", "expected N, N-M"]),
    Case("dom-pin-cpuset-negative", "libvirt_rt_domain", {"cpu": {"pinning": [{"vcpu": 0, "cpuset": "-1"}, {"vcpu": 1, "cpuset": "2"}]}},
         ["cpu.pinning[0].cpuset='-1'", "cannot be negative"]),
    Case("dom-pin-cpuset-exclusion", "libvirt_rt_domain", {"cpu": {"pinning": [{"vcpu": 0, "cpuset": "^1"}, {"vcpu": 1, "cpuset": "2"}]}},
         ["cpu.pinning[0].cpuset='^1'", "not allowed here"]),
    Case("dom-pin-vcpu-missing-vcpu", "libvirt_rt_domain", {"cpu": {"pinning": [{"vcpu": 5, "cpuset": "1"}]}, "realtime": None},
         ["cpu.pinning[0].vcpu=5", "vCPUs 0-1"]),
    Case("dom-pin-twice", "libvirt_rt_domain", {"cpu": {"pinning": [{"vcpu": 0, "cpuset": "1"}, {"vcpu": 0, "cpuset": "2"}]}},
         ["cpu.pinning[1].vcpu=0", "pinned twice"]),
    Case("dom-pin-required-cpuset", "libvirt_rt_domain", {"cpu": {"pinning": [{"vcpu": 0}]}}, ["cpuset", "pinning"]),
    Case("dom-emulator-offline", "libvirt_rt_domain", {"cpu": {"emulator_cpuset": "4-7"}},
         ["cpu.emulator_cpuset='4-7'", "not online"]),
    Case("dom-timer-unknown", "libvirt_rt_domain", {"hardening": {"timers": [{"name": "jiffies", "tickpolicy": "delay"}]}},
         ["name", "jiffies", "rtc"]),
    Case("dom-timer-hidden-with-policy", "libvirt_rt_domain",
         {"hardening": {"timers": [{"name": "hpet", "present": False, "tickpolicy": "delay"}]}},
         ["hardening.timers[0].tickpolicy='delay'", "not present", "Fix:"]),
    Case("dom-hint-dedicated-under-tcg", "libvirt_rt_domain", {"hardening": {"hint_dedicated": True}},
         ["hardening.hint_dedicated=True", "domain_type kvm", "Fix:"]),
    Case("dom-disk-iothread-missing", "libvirt_rt_domain", {"iothreads": 1, "disks": [{"path": "/a", "iothread": 3}]},
         ["disks[0].iothread=3", "IO threads 1-1", "Fix:"]),
    Case("dom-cachetune-no-resctrl", "libvirt_rt_domain",
         {"cachetune": [{"vcpus": "0", "caches": [{"id": 0, "size": 2, "unit": "MiB"}]}]},
         ["cachetune=", "cannot give the domain cache allocation", "Fix:"]),
    Case("dom-memorytune-bandwidth-over-100", "libvirt_rt_domain",
         {"memorytune": [{"vcpus": "0", "nodes": [{"id": 0, "bandwidth": 150}]}]},
         ["memorytune", "Fix:"]),
    Case("dom-iothreads-negative", "libvirt_rt_domain", {"iothreads": -1}, ["iothreads=-1", "0 (no IO thread) or more"]),
    Case("dom-emulator-share-no-spare-vcpu", "libvirt_rt_domain",
         {"cpu": {"mode": "maximum", "emulator_policy": "share",
                  "pinning": [{"vcpu": 0, "cpuset": "1"}, {"vcpu": 1, "cpuset": "2"}]}, "realtime": {"mask": ""}},
         ["cpu.emulator_policy='share'", "every vCPU real-time", "Fix:"]),
    Case("dom-emulator-isolate-on-a-vcpu", "libvirt_rt_domain",
         {"cpu": {"mode": "maximum", "emulator_policy": "isolate", "emulator_cpuset": "2",
                  "pinning": [{"vcpu": 0, "cpuset": "1"}, {"vcpu": 1, "cpuset": "2"}]}},
         ["cpu.emulator_cpuset='2'", "CPU 2 also runs vCPU 1", "Fix: choose a CPU no vCPU is pinned to"]),
    Case("dom-cpu-mode-unknown", "libvirt_rt_domain", {"cpu": {"mode": "host"}}, ["mode", "host", "host-passthrough"]),
    Case("dom-custom-without-model", "libvirt_rt_domain", {"cpu": {"mode": "custom"}}, ["cpu.model=None", "cpu.mode is custom"]),
    Case("dom-feature-bad-name", "libvirt_rt_domain", {"cpu": {"features": [{"name": "vmx<x>"}]}},
         ["cpu.features[0].name='vmx<x>'", "not a CPU feature name"]),
    Case("dom-feature-twice", "libvirt_rt_domain", {"cpu": {"features": [{"name": "vmx"}, {"name": "vmx"}]}},
         ["cpu.features[1].name='vmx'", "listed twice"]),
    Case("dom-topology-mismatch", "libvirt_rt_domain", {"cpu": {"topology": {"sockets": 2, "cores": 2}}},
         ["cpu.topology", "sockets x cores x threads = 4 but vcpus is 2"]),
    Case("dom-topology-negative", "libvirt_rt_domain", {"cpu": {"topology": {"sockets": -1, "cores": -2}}},
         ["cpu.topology.sockets=-1", "at least 1"]),
    Case("dom-topology-zero", "libvirt_rt_domain", {"cpu": {"topology": {"sockets": 0, "cores": 2}}},
         ["cpu.topology.sockets=0", "at least 1"]),
    Case("dom-page-size-unknown", "libvirt_rt_domain", {"memory": {"hugepages": {"page_size": "16M"}}},
         ["memory.hugepages.page_size='16M'", "no 16384 KiB hugepages", "/sys/kernel/mm/hugepages"]),
    Case("dom-page-size-garbage", "libvirt_rt_domain", {"memory": {"hugepages": {"page_size": "big"}}},
         ["memory.hugepages.page_size='big'", "use 2M or 1G"]),
    Case("dom-memory-not-page-multiple", "libvirt_rt_domain", {"memory_mib": 65, "memory": {"hugepages": {"page_size": "2M"}}},
         ["memory_mib=65", "whole number of 2048 KiB hugepages"]),
    Case("dom-hugepage-nodeset-missing-node", "libvirt_rt_domain", {"memory": {"hugepages": {"page_size": "2M", "nodeset": "3"}}},
         ["memory.hugepages.nodeset='3'", "no NUMA node 3"]),
    Case("dom-numatune-mode", "libvirt_rt_domain", {"memory": {"numatune": {"mode": "strictest", "nodeset": "0"}}},
         ["mode", "strictest", "strict, preferred"]),
    Case("dom-numatune-node-missing", "libvirt_rt_domain", {"memory": {"numatune": {"nodeset": "1"}}},
         ["memory.numatune.nodeset='1'", "no NUMA node 1"]),
    Case("dom-numa-cells-sum", "libvirt_rt_domain", {"cpu": {"numa": {"cells": [{"cpus": "0-1", "memory_mib": 32}]}}},
         ["cpu.numa.cells", "adds up to 32 MiB, memory_mib is 64"]),
    Case("dom-numa-both", "libvirt_rt_domain", {"cpu": {"numa": {"passthrough": True, "cells": [{"cpus": "0-1", "memory_mib": 64}]}}},
         ["cpu.numa", "mutually exclusive"]),
    Case("dom-rng-profile-unknown", "libvirt_rt_domain", {"rng": {"profile": "vmware"}},
         ["rng.profile='vmware'", "openstack, ovirt", "rng_profiles"]),
    Case("dom-rng-profile-bad-keys", "libvirt_rt_domain", {"rng": {"profile": "mine"}, "rng_profiles": {"mine": {"speed": 1}}},
         ["rng_profiles.mine", "speed", "backend, rate and model"]),
    Case("dom-rng-profile-not-dict", "libvirt_rt_domain", {"rng": {"profile": "mine"}, "rng_profiles": {"mine": "fast"}},
         ["rng_profiles.mine='fast'", "mapping"]),
    Case("dom-rng-backend-not-dev", "libvirt_rt_domain", {"rng": {"backend": "/etc/passwd"}},
         ["rng.backend='/etc/passwd'", "/dev/urandom"]),
    Case("dom-rng-backend-absent", "libvirt_rt_domain", {"rng": {"backend": "/dev/hwrng"}},
         ["rng.backend='/dev/hwrng'", "no such device", "/dev/urandom"]),
    Case("dom-rng-rate-negative", "libvirt_rt_domain", {"rng": {"rate": {"bytes": -5}}}, ["rng.rate", "-5", "greater than 0"]),
    Case("dom-rng-rate-no-bytes", "libvirt_rt_domain", {"rng": {"rate": {"period": 100}}}, ["bytes", "rate"]),
    Case("dom-rng-model-unknown", "libvirt_rt_domain", {"rng": {"model": "egd"}}, ["model", "egd", "virtio"]),
    Case("dom-hostdev-not-pci", "libvirt_rt_domain", {"hostdevs": ["0000:zz:00.1"]},
         ["hostdevs[0]='0000:zz:00.1'", "DDDD:BB:SS.F"]),
    Case("dom-hostdev-eth", "libvirt_rt_domain", {"hostdevs": ["eth0"]}, ["hostdevs[0]='eth0'", "DDDD:BB:SS.F"]),
    Case("dom-hostdev-function-8", "libvirt_rt_domain", {"hostdevs": ["0000:6b:00.8"]}, ["hostdevs[0]='0000:6b:00.8'", "DDDD:BB:SS.F"]),
    Case("dom-hostdev-slot-high", "libvirt_rt_domain", {"hostdevs": ["0000:6b:20.1"]}, ["hostdevs[0]='0000:6b:20.1'", "above 0x1f"]),
    Case("dom-hostdev-shell", "libvirt_rt_domain", {"hostdevs": ["$(reboot)"]}, ["hostdevs[0]='$(reboot)'", "DDDD:BB:SS.F"]),
    Case("dom-hostdev-twice", "libvirt_rt_domain", {"hostdevs": ["0000:6b:00.1", "6b:00.1"]},
         ["hostdevs[1]='6b:00.1'", "listed twice"]),
    Case("dom-mac-bad", "libvirt_rt_domain", {"interfaces": [{"network": "default", "mac": "52:54:00:zz:00:01"}]},
         ["interfaces[0].mac='52:54:00:zz:00:01'", "xx:xx:xx:xx:xx:xx"]),
    Case("dom-interface-both", "libvirt_rt_domain", {"interfaces": [{"network": "default", "bridge": "br0"}]},
         ["interfaces[0]", "exactly one of network or bridge"]),
    Case("dom-disk-bus", "libvirt_rt_domain", {"disks": [{"path": "/var/lib/x.img", "bus": "nvme"}]}, ["bus", "nvme", "virtio"]),
    Case("dom-disk-target-twice", "libvirt_rt_domain", {"disks": [{"path": "/a.img", "target": "vda"}, {"path": "/b.img", "target": "vda"}]},
         ["disks[1].target='vda'", "used twice"]),
    Case("dom-boot-no-kernel", "libvirt_rt_domain", {"boot": {"cmdline": "quiet"}}, ["kernel", "boot"]),
    Case("dom-base-xml-broken", "libvirt_rt_domain", {"base_xml": "<domain><name>x</domain>"}, ["base_xml", "not well-formed XML"]),
    Case("dom-autostart-absent", "libvirt_rt_domain", {"state": "absent", "autostart": True},
         ["autostart=True", "state absent undefines the domain", "Fix: leave autostart out"]),
    Case("dom-autostart-off-absent", "libvirt_rt_domain", {"state": "absent", "autostart": False},
         ["autostart=False", "state absent", "Fix: leave autostart out"]),
    Case("dom-autostart-not-bool", "libvirt_rt_domain", {"autostart": "at boot"}, ["autostart", "bool"]),
    Case("dom-base-xml-not-domain", "libvirt_rt_domain", {"base_xml": "<network/>"}, ["base_xml='<network>'", "root element must be <domain>"]),

    # ---- hugepages_alloc ------------------------------------------------------------------------
    Case("hp-size-unknown", "hugepages_alloc", {"pages": [{"size": "16M", "count": 4}]}, ["pages[0].size='16M'", "Fix: choose one of 2M, 1G"]),
    Case("hp-size-garbage", "hugepages_alloc", {"pages": [{"size": "huge", "count": 4}]}, ["pages[0].size='huge'", "write 2M or 1G"]),
    Case("hp-count-negative", "hugepages_alloc", {"pages": [{"size": "2M", "count": -1}]}, ["pages[0].count=-1", ">= 0"]),
    Case("hp-count-not-int", "hugepages_alloc", {"pages": [{"size": "2M", "count": "many"}]}, ["count", "int"]),
    Case("hp-node-missing", "hugepages_alloc", {"pages": [{"size": "2M", "count": 4, "node": 3}]}, ["pages[0]", "node 3", "Fix:"]),
    Case("hp-over-memory", "hugepages_alloc", {"pages": [{"size": "1G", "count": 9000, "node": 0}]},
         ["pages='9000 x 1G'", "8192 MiB", "Fix: lower the counts"]),
    Case("hp-twice", "hugepages_alloc", {"pages": [{"size": "2M", "count": 4, "node": 0}, {"size": "2M", "count": 8, "node": 0}]},
         ["pages[1]", "already requested by pages[0]", "Fix:"]),
    Case("hp-node-and-global", "hugepages_alloc", {"pages": [{"size": "2M", "count": 4, "node": 0}, {"size": "2M", "count": 8}]},
         ["pages[1]", "both per NUMA node and without a node", "Fix:"]),
    Case("hp-missing-pages", "hugepages_alloc", {"pages": None}, ["pages"]),
    Case("hp-missing-size", "hugepages_alloc", {"pages": [{"count": 4}]}, ["size", "pages"]),
    Case("hp-retries-negative", "hugepages_alloc", {"retries": -1}, ["retries=-1", ">= 0"]),
    Case("hp-delay-not-float", "hugepages_alloc", {"delay": "soon"}, ["delay", "float"]),

    # ---- sriov_vfs ------------------------------------------------------------------------------
    Case("vf-pf-not-pci", "sriov_vfs", {"pf": "6b:00"}, ["pf='6b:00'", "lspci -D"]),
    Case("vf-pf-shell", "sriov_vfs", {"pf": "0000:6b:00.0; reboot"}, ["pf='0000:6b:00.0; reboot'", "lspci -D"]),
    Case("vf-pf-absent", "sriov_vfs", {"pf": "0000:6c:00.0"}, ["0000:6c:00.0", "does not exist", "lspci -D"]),
    Case("vf-count-word", "sriov_vfs", {"count": "lots"}, ["count='lots'", "'max'"]),
    Case("vf-count-negative", "sriov_vfs", {"count": "-3"}, ["count=-3", "negative"]),
    Case("vf-count-over-total", "sriov_vfs", {"count": "17"}, ["17", "sriov_totalvfs", "16"]),
    Case("vf-driver-bad-name", "sriov_vfs", {"driver": "vfio pci"}, ["driver='vfio pci'", "/sys/bus/pci/drivers"]),
    Case("vf-driver-not-loaded", "sriov_vfs", {"driver": "igb_uio"}, ["igb_uio", "not loaded"]),
    Case("vf-missing-count", "sriov_vfs", {"count": None}, ["count"]),

    # ---- read-only modules ------------------------------------------------------------------------
    Case("facts-root-missing", "rt_node_facts", {"root": "/nonexistent/rt"}, ["root='/nonexistent/rt'", "not a directory", "default '/'"]),
    Case("facts-unknown-option", "rt_node_facts", {"rooot": "/"}, ["rooot", "Supported parameters"]),
    Case("iso-root-missing", "rt_isolation_info", {"root": "/nonexistent/iso"},
         ["root='/nonexistent/iso'", "not a directory", "Fix:"]),
    Case("iso-sysctl-path", "rt_isolation_info", {"sysctls": ["kernel/sched_rt_runtime_us"]},
         ["sysctls='kernel/sched_rt_runtime_us'", "not a sysctl name", "Fix:"]),
    Case("iso-sysctl-dotdot", "rt_isolation_info", {"sysctls": ["kernel..x"]}, ["sysctls='kernel..x'", "Fix:"]),
    Case("iso-pf-short", "rt_isolation_info", {"pfs": ["3b:00.0"]}, ["pfs='3b:00.0'", "lspci -D"]),
    Case("iso-sysctls-type", "rt_isolation_info", {"sysctls": {"kernel.x": 1}}, ["sysctls", "list"]),
    Case("iso-unknown-option", "rt_isolation_info", {"rooot": "/"}, ["rooot", "Supported parameters"]),
    # ---- qat_services ---------------------------------------------------------------------------
    Case("svc-pf-not-pci", "qat_services", {"pf": "6b:00.0"}, ["pf='6b:00.0'", "lspci -D"]),
    Case("svc-unknown", "qat_services", {"services": "crypto"}, ["services='crypto'", "unknown service", "sym;asym"]),
    Case("svc-three", "qat_services", {"services": "sym;asym;dc"}, ["services='sym;asym;dc'", "at most 2"]),
    Case("svc-twice", "qat_services", {"services": "dc;dc"}, ["services='dc;dc'", "twice"]),
    Case("svc-dcc-mixed", "qat_services", {"services": "dcc;dc"}, ["services='dcc;dc'", "stand alone"]),
    Case("svc-shell", "qat_services", {"services": "dc; reboot"}, ["services='dc; reboot'", "unknown service"]),
    Case("svc-pf-absent", "qat_services", {"pf": "0000:6c:00.0"}, ["0000:6c:00.0", "does not exist", "lspci -D"]),
    Case("svc-missing", "qat_services", {"services": None}, ["services"]),
    Case("qat-root-missing", "qat_vf_info", {"root": "/nonexistent/qat"}, ["root='/nonexistent/qat'", "not a directory", "give the directory"]),
    Case("qat-unknown-option", "qat_vf_info", {"pf": "0000:6b:00.0"}, ["pf", "Supported parameters"]),

    # ---- role argument specs ----------------------------------------------------------------------
    Case("role-ptp-profile-choice", "role:ptp", {"ptp_profile": "g8275.3"}, ["ptp_profile", "g8275.3", "e2e"]),
    Case("role-ptp-clock-choice", "role:ptp", {"ptp_clock": "slave"}, ["ptp_clock", "slave", "client"]),
    Case("role-ptp-priority-type", "role:ptp", {"ptp_priority": "high"}, ["ptp_priority", "int"]),
    Case("plan-ptp-unknown-interface", "filter:ptp_plan", {"interfaces": ["eth9"]},
         ["ptp_interfaces: 'eth9' is not a network interface", "veth0", "Fix:"]),
    Case("plan-ptp-no-hardware-clock", "filter:ptp_plan", {"interfaces": ["veth0"]},
         ["'veth0' has no hardware timestamping", "ptp_software_timestamping: true"]),
    Case("plan-ptp-domain-out-of-range", "filter:ptp_plan",
         {"interfaces": ["veth0"], "options": {"profile": "g8275.1", "domain": 99, "software_timestamping": True}},
         ["ptp_domain=99", "24-43"]),
    Case("plan-ptp-isolated-cpus", "filter:ptp_plan",
         {"interfaces": ["veth0"], "options": {"cpus": "2", "isolated": "2-3", "housekeeping": "0-1",
                                               "software_timestamping": True}},
         ["ptp_cpus='2'", "isolated CPUs 2", "0-1"]),
    Case("plan-ptp-own-key", "filter:ptp_plan",
         {"interfaces": ["veth0"], "options": {"options": {"domainNumber": 3}, "software_timestamping": True}},
         ["ptp_options: domainNumber", "ptp_domain"]),
    Case("plan-ptp-not-facts", "filter:ptp_plan", {"time_sync": "eth0", "interfaces": ["eth0"]},
         ["'eth0'", "not rt_node_facts' time_sync", "Fix:"]),
    Case("role-rt_host-reboot-choice", "role:rt_host", {"rt_host_reboot": "sometimes"}, ["rt_host_reboot", "sometimes", "never, auto, force"]),
    Case("role-rt_host-runtime-type", "role:rt_host", {"rt_host_sched_rt_runtime_us": "off"}, ["rt_host_sched_rt_runtime_us", "int"]),
    Case("role-rt_host-iommu-type", "role:rt_host", {"rt_host_iommu": "maybe"}, ["rt_host_iommu", "bool"]),
    Case("role-rt_host-extra-type", "role:rt_host", {"rt_host_kernel_args_extra": {"a": 1}}, ["rt_host_kernel_args_extra", "list"]),
    Case("role-rt_host-timeout-type", "role:rt_host", {"rt_host_reboot_timeout": "long"}, ["rt_host_reboot_timeout", "int"]),
    Case("role-rt_guest-reboot-choice", "role:rt_guest", {"rt_guest_reboot": "sometimes"},
         ["rt_guest_reboot", "sometimes", "never, auto, force"]),
    Case("role-rt_guest-state-choice", "role:rt_guest", {"rt_guest_state": "gone"}, ["rt_guest_state", "gone", "present, absent"]),
    Case("role-rt_guest-extra-type", "role:rt_guest", {"rt_guest_kernel_args_extra": {"a": 1}}, ["rt_guest_kernel_args_extra", "list"]),
    Case("role-rt_guest-timeout-type", "role:rt_guest", {"rt_guest_connect_timeout": "long"}, ["rt_guest_connect_timeout", "int"]),
    Case("role-hugepages-count-type", "role:hugepages", {"hugepages_pages": [{"size": "2M", "count": "many"}]}, ["count", "int"]),
    Case("role-hugepages-size-missing", "role:hugepages", {"hugepages_pages": [{"count": 4}]}, ["size", "hugepages_pages"]),
    Case("role-hugepages-unknown-key", "role:hugepages", {"hugepages_pages": [{"size": "2M", "count": 4, "nodes": 0}]}, ["nodes"]),
    Case("role-hugepages-pages-type", "role:hugepages", {"hugepages_pages": "128x2M"}, ["hugepages_pages", "dict"]),
    Case("role-hugepages-retries-type", "role:hugepages", {"hugepages_retries": "often"}, ["hugepages_retries", "int"]),
    Case("role-qat-services-choice", "role:qat", {"qat_services": "crypto"}, ["qat_services", "crypto", "sym;asym"]),
    Case("role-qat-pfs-type", "role:qat", {"qat_pfs": {"pf": 1}}, ["qat_pfs", "list"]),
    Case("role-qat-numvfs-per-pf-type", "role:qat", {"qat_numvfs_per_pf": ["0000:6b:00.0"]}, ["qat_numvfs_per_pf", "dict"]),
    # ansible-core 2.19 says "of type str", older ones "of type <class 'str'>"
    Case("role-sriov-pfs-type", "role:sriov", {"sriov_pfs": "0000:3b:00.0"}, ["sriov_pfs", "of type ", "str", "dict"]),
    Case("role-sriov-pf-missing", "role:sriov", {"sriov_pfs": [{"count": 2}]}, ["pf", "sriov_pfs"]),
    Case("role-sriov-persist-type", "role:sriov", {"sriov_persist": "sometimes"}, ["sriov_persist", "bool"]),
    Case("role-rt_domain-domains-type", "role:rt_domain", {"rt_domain_domains": {"name": "vm1"}}, ["rt_domain_domains", "list"]),
    Case("role-rt_domain-check-choice", "role:rt_domain", {"rt_domain_hugepage_check": "loud"},
         ["rt_domain_hugepage_check", "loud", "fail, warn, ignore"]),
    Case("role-rt_validate-timeout-type", "role:rt_validate", {"rt_validate_probe_timeout": "long"},
         ["rt_validate_probe_timeout", "int"]),
    Case("role-rt_validate-type-choice", "role:rt_validate", {"rt_validate_probe_domain_type": "xen"},
         ["rt_validate_probe_domain_type", "xen", "kvm, qemu"]),
    Case("role-rt_validate-drift-type", "role:rt_validate", {"rt_validate_drift": "sometimes"}, ["rt_validate_drift", "bool"]),
    Case("role-rt_validate-sysctls-type", "role:rt_validate", {"rt_validate_drift_sysctls": ["kernel.sched_rt_runtime_us"]},
         ["rt_validate_drift_sysctls", "dict"]),
    Case("role-rt_validate-ksm-type", "role:rt_validate", {"rt_validate_ksm_allowed": ["off"]},
         ["rt_validate_ksm_allowed", "int"]),
    Case("role-rt_validate-drift-pages-type", "role:rt_validate", {"rt_validate_drift_hugepages": "128x2M"},
         ["rt_validate_drift_hugepages", "dict"]),
    Case("role-rt_validate-accept-type", "role:rt_validate", {"rt_validate_accept": {"tuned-adm verify": True}},
         ["rt_validate_accept", "list"]),

    # ---- plan filters the roles run before their first change ------------------------------------
    Case("plan-isolated-garbage", "filter:rt_cpu_plan", {"isolated_cpus": "1-x"}, ["rt_host_isolated_cpus='1-x'", "Fix: write a CPU set"]),
    Case("plan-isolated-offline", "filter:rt_cpu_plan", {"isolated_cpus": "1-9"}, ["rt_host_isolated_cpus='1-9'", "not online", "Fix:"]),
    Case("plan-isolated-all", "filter:rt_cpu_plan", {"isolated_cpus": "0-1"}, ["rt_host_isolated_cpus='0-1'", "leaving none", "Fix:"]),
    # the fixture host (CPUs 0-1) read as a guest, its domain on kvm1
    Case("guest-isolated-all", "filter:rt_guest_cpu_plan", {"isolated_cpus": "0-1"},
         ["rt_guest_isolated_cpus='0-1'", "leaving none", "Fix:"]),
    Case("guest-mask-outside", "filter:rt_guest_cpu_plan", {"domain": {"name": "vm1", "vcpus": 8, "realtime": {"mask": "6-7"}}},
         ["rt_guest_isolated_cpus='auto'", "realtime.mask of domain vm1 on kvm1", "vCPU(s) 6-7", "Fix:"]),
    Case("guest-mask-every-vcpu", "filter:rt_guest_cpu_plan", {"domain": {"name": "vm1", "vcpus": 2, "realtime": {}}},
         ["rt_guest_isolated_cpus='auto'", "every vCPU of the guest (0-1)", "Fix:"]),
    Case("plan-isolated-reversed", "filter:rt_cpu_plan", {"isolated_cpus": "1-0"}, ["rt_host_isolated_cpus='1-0'", "Fix:"]),
    Case("plan-isolated-shell", "filter:rt_cpu_plan", {"isolated_cpus": "$(reboot)"}, ["rt_host_isolated_cpus='$(reboot)'", "Fix:"]),
    Case("plan-kernel-extra-type", "filter:rt_kernel_args", {"extra": {"quiet": True}}, ["quiet", "not a list", "Fix:"]),
    Case("plan-kernel-extra-newline", "filter:rt_kernel_args", {"extra": ["quiet\nreboot"]}, ["quiet\\nreboot", "Fix:"]),
    Case("plan-kernel-extra-quote", "filter:rt_kernel_args", {"extra": ["a='b c'"]}, ["a='b c'", "Fix:"]),
    Case("plan-hugepages-over-memory", "filter:hugepages_plan", {"pages": [{"size": "2M", "count": 10 ** 7, "node": 0}]},
         ["hugepages_pages='10000000 x 2M'", "Fix: lower the counts"]),
    Case("plan-hugepages-not-list", "filter:hugepages_plan", {"pages": "2M:128"}, ["hugepages_pages='2M:128'", "not a list", "Fix:"]),
    Case("plan-hugepages-default-unknown", "filter:hugepages_plan", {"pages": [], "default_size": "3M"},
         ["hugepages_default_size='3M'", "Fix:"]),
    Case("plan-hugepages-after-not-list", "filter:hugepages_after", {"pools": "2M:64"},
         ["hugepages_result.pages='2M:64'", "not a list of pools", "Fix:"]),
    Case("plan-hugepages-after-count", "filter:hugepages_after", {"pools": [{"node": 0, "size_kb": 2048, "requested": -1}]},
         ["hugepages_result.pages[0].requested=-1", "integer >= 0", "Fix:"]),
    Case("plan-node-after-isolated", "filter:rt_domain_node_after", {"isolated": "1-x", "housekeeping": "0"},
         ["isolated='1-x'", "Fix: pass rt_host's rt_host_isolated_cpuset"]),
    Case("plan-node-after-pools", "filter:rt_domain_node_after", {"pools": "2M:64", "isolated": "1"},
         ["hugepages_result.pages='2M:64'", "not a list of pools", "Fix:"]),
    Case("plan-qat-domain-twice", "filter:qat_vf_select", {"requests": [{"domain": "a", "count": 1}, {"domain": "a", "count": 1}]},
         ["'a'", "requested twice", "one request per domain"]),
    Case("plan-qat-count-negative", "filter:qat_vf_select", {"requests": [{"domain": "a", "count": -1}]}, ["count=-1", "0 or more"]),
    Case("plan-qat-too-many", "filter:qat_vf_select", {"requests": [{"domain": "a", "count": 5}]}, ["'a'", "5"]),
    Case("plan-qat-bad-vf-address", "filter:qat_vf_select", {"vfs": [{"pci_address": "nope", "numa_node": 0}], "requests": []},
         ["'nope'", "0000:6b:00.1"]),
    Case("plan-os-vars-files-not-facts", "filter:os_vars_files", {"value": "Debian"},
         ["'Debian'", "not a dictionary of facts", "Fix: pass ansible_facts"]),
    Case("undo-sriov-recorded-not-text", "filter:sriov_recorded_pfs", {"value": ["0000:3b:00.0 4 vfio-pci"]},
         ["['0000:3b:00.0 4 vfio-pci']", "not the text of a state file", "Fix:"]),
    Case("undo-sriov-users-going-not-list", "filter:sriov_vf_users", {"going": "0000:3b:02.0"},
         ["'0000:3b:02.0'", "not a list of VF PCI addresses", "Fix:"]),
    Case("undo-hugepages-users-not-list", "filter:hugepages_domain_pages", {"value": "vm1"},
         ["'vm1'", "not a list of domains", "Fix:"]),
    Case("undo-hugepages-fstab-mount-no-opts", "filter:hugepages_fstab_written", {"mounts": [{"path": "/mnt/huge"}]},
         ["mounts[0]", "'/mnt/huge'", "Fix: pass hugepages_plan's mounts"]),
    Case("plan-cpuset-list-garbage", "filter:cpuset_list", {"value": "0-3,x"}, ["'0-3,x'", "'x'", "Use ids, ranges"]),
    Case("plan-cpuset-string-negative", "filter:cpuset_string", {"value": [0, -1]}, ["-1", "non-negative"]),
    Case("plan-kernel-compare-bad-word", "filter:rt_kernel_args_compare", {"wanted": ["nohz_full=1 2"]},
         ["wanted='nohz_full=1 2'", "Fix:"]),
    Case("plan-readiness-not-facts", "filter:rt_readiness_report", {"value": {"cpus": {}}},
         ["rt_readiness_report", "rt_node_facts", "ansible_facts.rt_node"]),
    Case("plan-placement-too-many-vcpus", "filter:rt_domain_placement",
         {"domains": [{"name": "a", "vcpus": 5, "memory_mib": 64, "cpus": "auto"}]},
         ["rt_domain_domains[0] (a).cpus='auto'", "5 vCPUs", "Fix:"]),
    Case("plan-placement-emulator-unknown", "filter:rt_domain_placement",
         {"domains": [{"name": "a", "vcpus": 1, "memory_mib": 64, "cpus": "auto", "emulator": "pinned"}]},
         ["rt_domain_domains[0] (a).emulator='pinned'", "not an emulator policy", "Fix:"]),
    Case("plan-placement-emulator-isolate-no-cpu", "filter:rt_domain_placement",
         {"domains": [{"name": "a", "vcpus": 3, "memory_mib": 64, "cpus": "auto", "emulator": "isolate"}]},
         ["rt_domain_domains[0] (a).cpus='auto'", "emulator CPU of their own", "Fix:"]),
    Case("plan-kubevirt-not-a-vm", "filter:kubevirt_vm_to_rt_domain", {"manifest": {"kind": "Pod", "apiVersion": "v1"}},
         ["kind='Pod'", "VirtualMachine", "Fix:"]),
    Case("plan-kubevirt-cores-string", "filter:kubevirt_vm_to_rt_domain",
         {"manifest": {"kind": "VirtualMachineInstance", "apiVersion": "kubevirt.io/v1", "metadata": {"name": "v"},
                       "spec": {"domain": {"cpu": {"cores": "two"}, "memory": {"guest": "1Gi"}}}}},
         ["spec.domain.cpu.cores='two'", "whole number", "Fix:"]),
    Case("plan-kubevirt-unmapped-fail", "filter:kubevirt_vm_to_rt_domain",
         {"manifest": {"kind": "VirtualMachineInstance", "apiVersion": "kubevirt.io/v1", "metadata": {"name": "v"},
                       "spec": {"domain": {"memory": {"guest": "1Gi"}}, "networks": [{"name": "d", "pod": {}}]}},
          "unmapped": "fail"},
         ["spec.networks[0]", "pod network", "Fix:"]),
    Case("plan-kubevirt-missing-instancetype", "filter:kubevirt_vm_to_rt_domain",
         {"manifest": {"kind": "VirtualMachine", "apiVersion": "kubevirt.io/v1", "metadata": {"name": "v"},
                       "spec": {"instancetype": {"name": "u1.huge"}, "template": {"spec": {"domain": {}}}}},
          "instancetypes": []},
         ["spec.instancetype.name='u1.huge'", "no VirtualMachineClusterInstancetype of that name", "Fix:"]),
    Case("plan-kubevirt-back-realtime-shared", "filter:rt_domain_to_kubevirt_vm",
         {"domains": [{"name": "v", "vcpus": 2, "memory_mib": 1024, "realtime": {}}]},
         ["rt_domain_domains[0].realtime={}", "dedicated CPUs", "Fix:"]),
    Case("plan-placement-name-twice", "filter:rt_domain_placement",
         {"domains": [{"name": "a", "vcpus": 1, "memory_mib": 64}, {"name": "a", "vcpus": 1, "memory_mib": 64}]},
         ["rt_domain_domains[1].name='a'", "used twice", "Fix:"]),
    Case("plan-attach-too-few-vfs", "filter:rt_domain_attach_vfs", {"selection": {"a": []}},
         ["(a).qat_vfs=1", "gave 0 VFs", "Fix:"]),
    Case("plan-vf-free-not-list", "filter:rt_domain_vf_free", {"vfs": "0000:6b:00.1"}, ["vfs='0000:6b:00.1'", "Fix:"]),
    Case("validate-domains-not-list", "filter:rt_validate_domain_checks", {"value": {"name": "vm1"}},
         ["libvirt_rt_domain_info", "dict"]),
    Case("validate-threshold-not-number", "filter:rt_validate_latency_check", {"threshold_us": "fast"},
         ["threshold_us='fast'", "microseconds"]),
    Case("validate-hwlat-threshold-not-number", "filter:rt_validate_hwlat", {"threshold_us": "10 us"},
         ["threshold_us='10 us'", "microseconds", "Fix:"]),
    Case("validate-hwlat-tracer-not-slurp", "filter:rt_validate_hwlat_tracer", {"value": "hwlat nop"},
         ["'results' list of ansible.builtin.slurp", "str"]),
    Case("validate-report-not-list", "filter:rt_validate_report", {"value": "all good"}, ["list of checks", "str"]),
    Case("validate-report-accept-empty-name", "filter:rt_validate_report", {"value": [], "accept": ["KSM", ""]},
         ["rt_validate_accept=['KSM', '']", "entry 1 ('') is not the name of a check", "Fix:"]),
    Case("validate-report-accept-not-name", "filter:rt_validate_report", {"value": [], "accept": [{"check": "KSM"}]},
         ["rt_validate_accept=[{'check': 'KSM'}]", "not the name of a check", "Fix:"]),
    Case("validate-report-accept-not-list", "filter:rt_validate_report", {"value": [], "accept": "KSM"},
         ["rt_validate_accept='KSM'", "not a list of check names", "Fix:"]),
    Case("validate-duration-unit", "filter:rt_validate_duration", {"value": "12 hours"},
         ["rt_validate_duration='12 hours'", "expected a duration", "30s, 10m, 12h"]),
    Case("validate-html-not-reports", "filter:rt_validate_html", {"value": {"host": "node1"}},
         ["rt_validate_html", "list of rt_validate JSON reports", "dict"]),
    Case("validate-html-regression-factor", "filter:rt_validate_html", {"value": [], "regression_factor": 0.5},
         ["rt_validate_html", "regression_factor=0.5", "not a factor of growth", "Fix:", "at least 1"]),
    Case("validate-history-keep-zero", "filter:rt_validate_history", {"history": {}, "keep": 0},
         ["rt_validate_history", "keep=0", "not a number of runs to keep", "Fix:", "rt_validate_history_keep"]),
    Case("validate-history-not-mapping", "filter:rt_validate_history", {"history": ["node1"], "keep": 20},
         ["rt_validate_history", "history=['node1']", "not a history of rt_validate runs", "Fix:", "history.json"]),
    Case("validate-regressions-factor", "filter:rt_validate_regressions", {"history": {}, "regression_factor": "x"},
         ["rt_validate_regressions", "regression_factor='x'", "not a factor of growth", "Fix:",
          "rt_validate_regression_factor"]),
    Case("validate-prometheus-not-report", "filter:rt_validate_prometheus", {"value": ["node1"], "time": 0},
         ["rt_validate_prometheus", "JSON report of one host", "list"]),
    Case("validate-prometheus-time", "filter:rt_validate_prometheus", {"value": {"host": "node1"}, "time": "now"},
         ["rt_validate_prometheus", "time='now'", "not the time of the run", "Fix:"]),
    Case("validate-junit-not-reports", "filter:rt_validate_junit", {"value": "node1"},
         ["rt_validate_junit", "list of rt_validate JSON reports", "str"]),
    Case("validate-guests-group-not-a-name", "filter:rt_validate_guest_plan",
         {"guests": [], "group": ["rt_guests"], "groups": {"rt_guests": ["vm1"]}},
         ["rt_validate_guests_group=['rt_guests']", "expected the name of an inventory group", "Fix:"]),
    Case("validate-guest-twice", "filter:rt_validate_guest_plan", {"guests": ["vm1", "vm1"]},
         ["rt_validate_guests[1]='vm1'", "listed twice", "Fix:"]),
    Case("validate-guest-state-not-target", "filter:rt_validate_guest_state", {"value": "vm1"},
         ["one target of rt_validate_guest_plan"]),
    Case("validate-guest-check-not-state", "filter:rt_validate_guest_check", {"state": "done"},
         ["a state of rt_validate_guest_state"]),
    Case("validate-isolated-garbage", "filter:rt_validate_isolation_checks", {"isolated": "1-x"},
         ["rt_validate_isolated_cpus='1-x'", "Fix: give a CPU set"]),
    Case("validate-isolated-offline", "filter:rt_validate_isolation_checks", {"isolated": "5"},
         ["rt_validate_isolated_cpus='5'", "not online", "Fix:"]),
    Case("validate-isolated-all", "filter:rt_validate_isolation_checks", {"isolated": "0-1"},
         ["rt_validate_isolated_cpus='0-1'", "leaving none", "Fix:"]),
    Case("validate-ksm-word", "filter:rt_validate_isolation_checks", {"ksm_allowed": ["stopped"]},
         ["rt_validate_ksm_allowed=['stopped']", "Fix:"]),
    Case("validate-drift-sysctls-list", "filter:rt_validate_drift_checks", {"sysctls": ["kernel.sched_rt_runtime_us"]},
         ["rt_validate_drift_sysctls=['kernel.sched_rt_runtime_us']", "Fix:"]),
    Case("validate-drift-args-word", "filter:rt_validate_drift_checks", {"kernel_args": ["nohz_full=1 2"]},
         ["rt_validate_drift_kernel_args='nohz_full=1 2'", "Fix:"]),
    Case("validate-drift-pool-size", "filter:rt_validate_drift_checks", {"hugepages": [{"size": "3M", "count": 1}]},
         ["rt_validate_drift_hugepages[0].size='3M'", "Fix:"]),
    Case("validate-pmc-not-text", "filter:rt_validate_pmc", {"value": ["portState SLAVE"]},
         ["rt_validate_pmc", "expected pmc's output text", "list", "Fix:", "stdout"]),
    Case("validate-ptp-unknown-option", "filter:rt_validate_ptp_checks", {"max_ofset_ns": 100},
         ["rt_validate_ptp_checks", "unknown option max_ofset_ns", "Fix:", "max_offset_ns"]),
    Case("validate-ptp-negative-offset", "filter:rt_validate_ptp_checks", {"max_offset_ns": -5},
         ["rt_validate_ptp_checks", "max_offset_ns=-5", "not a number of nanoseconds", "Fix:"]),
    Case("validate-ptp-free-running-word", "filter:rt_validate_ptp_checks", {"free_running": "yes"},
         ["rt_validate_ptp_checks", "free_running='yes'", "not a boolean", "Fix: give true or false"]),
    Case("validate-ptp-pmc-not-text", "filter:rt_validate_ptp_checks", {"pmc": 3},
         ["rt_validate_ptp_checks", "pmc=3", "Fix:", "rt_validate_pmc"]),
    Case("validate-ptp-log-not-text", "filter:rt_validate_ptp_checks", {"ptp4l_log": ["master offset 5"]},
         ["rt_validate_ptp_checks", "ptp4l_log=['master offset 5']", "not text", "Fix:"]),
    Case("validate-ptp-daemon-cpus", "filter:rt_validate_ptp_checks",
         {"daemons": [{"name": "ptp4l", "pid": 9, "cpus_allowed": "0-x"}], "isolated": "2"},
         ["rt_validate_ptp_checks", "daemons[0].cpus_allowed='0-x'", "Fix: give a CPU set"]),
    Case("validate-ptp-isolated-garbage", "filter:rt_validate_ptp_checks", {"isolated": "two"},
         ["rt_validate_ptp_checks", "isolated='two'", "Fix: give a CPU set"]),
    Case("validate-ptp-measurement-negative", "filter:rt_validate_ptp_measurement", {"max_offset_ns": -1},
         ["rt_validate_ptp_measurement", "max_offset_ns=-1", "Fix:"]),
    Case("validate-ptp-measurement-unknown", "filter:rt_validate_ptp_measurement", {"ptp4l_log": ""},
         ["rt_validate_ptp_measurement", "unknown option ptp4l_log", "Fix: use only", "max_offset_ns"]),
    Case("validate-chrony-not-text", "filter:rt_validate_chrony_checks", {"tracking": {"refid": "PHC0"}},
         ["rt_validate_chrony_checks", "tracking={'refid': 'PHC0'}", "not text", "Fix:", "chronyc -c tracking"]),
    Case("validate-chrony-negative", "filter:rt_validate_chrony_checks", {"max_offset_ns": -1000},
         ["rt_validate_chrony_checks", "max_offset_ns=-1000", "Fix:"]),
    Case("validate-chrony-unknown", "filter:rt_validate_chrony_checks", {"threshold_ns": 1000},
         ["rt_validate_chrony_checks", "unknown option threshold_ns", "Fix:", "max_offset_ns"]),
    Case("validate-drift-pf", "filter:rt_validate_drift_checks", {"sriov_pfs": [{"pf": "eth0", "count": 1}]},
         ["rt_validate_drift_sriov_pfs[0].pf='eth0'", "lspci -D"]),
    Case("host-plan-missing-pf", "rt_host_plan", {"sriov": {"pfs": [{"pf": "0000:7f:00.0", "count": 2}]}},
         ["sriov_pfs[0].pf='0000:7f:00.0'", "does not exist", "Fix: check the address", "nothing was changed"]),
    Case("host-plan-two-stages", "rt_host_plan",
         {"rt_host": {"isolated_cpus": "0-1"}, "hugepages": {"pages": [{"size": "2M", "count": -1}]}},
         ["2 problem(s)", "rt_host_isolated_cpus='0-1'", "hugepages_pages[0].count=-1"]),
    Case("host-plan-ptp-interface", "rt_host_plan", {"ptp": {"interfaces": ["eth9"], "profile": "g8275.1", "domain": 3}},
         ["ptp_interfaces: 'eth9' is not a network interface of this host", "ptp_domain=3", "24-43", "nothing was changed"]),
    Case("host-plan-reboot-choice", "rt_host_plan", {"rt_host": {"reboot": "sometimes"}}, ["reboot", "never, auto, force"]),
    Case("info-names-type", "libvirt_rt_domain_info", {"names": {"vm1": True}}, ["names", "list"]),
    Case("info-unknown-option", "libvirt_rt_domain_info", {"uir": "qemu:///system"}, ["uir", "Supported parameters"]),

    # ---- libvirt_rt_domains: "item" changes the one item (DOMAIN); the rest are the task's options.
    # Every message names the item; an item that fails is never defined, and with no valid item
    # libvirt is not even opened.
    Case("doms-item-vcpus-not-int", "libvirt_rt_domains", {"item": {"vcpus": "two"}},
         ["domains[0] (rtv-bad): ", "vcpus", "int"]),
    Case("doms-item-priority-100", "libvirt_rt_domains", {"item": {"realtime": {"priority": 100}}},
         ["domains[0] (rtv-bad): realtime.priority=100", "1 to 99"]),
    Case("doms-item-mask-out-of-range", "libvirt_rt_domains", {"item": {"realtime": {"mask": "0-5"}}},
         ["domains[0] (rtv-bad): realtime.mask='0-5'", "highest allowed id 1"]),
    Case("doms-item-pin-offline", "libvirt_rt_domains",
         {"item": {"cpu": {"pinning": [{"vcpu": 0, "cpuset": "9"}, {"vcpu": 1, "cpuset": "2"}]}}},
         ["domains[0] (rtv-bad): cpu.pinning[0].cpuset='9'", "not online", "Fix:"]),
    Case("doms-item-page-size", "libvirt_rt_domains", {"item": {"memory": {"hugepages": {"page_size": "16M"}}}},
         ["domains[0] (rtv-bad): memory.hugepages.page_size='16M'", "/sys/kernel/mm/hugepages"]),
    Case("doms-item-state-unknown", "libvirt_rt_domains", {"item": {"state": "started"}},
         ["domains[0] (rtv-bad): ", "state", "present, running, stopped, absent"]),
    Case("doms-item-unknown-option", "libvirt_rt_domains", {"item": {"vpcus": 2}},
         ["domains[0] (rtv-bad): Unsupported parameters: vpcus", "Supported parameters include"]),
    Case("doms-item-no-name", "libvirt_rt_domains", {"item": {"name": None}}, ["domains[0]: ", "name"]),
    Case("doms-item-name-newline", "libvirt_rt_domains", {"item": {"name": "rt\nvm"}},
         ["domains[0] ('rt\\nvm'): name='rt\\nvm'", "control character"]),
    Case("doms-item-not-mapping", "libvirt_rt_domains", {"domains": ["rtv-bad"]},
         ["domains[0]: each item must be a mapping", "str"]),
    Case("doms-item-other-uri", "libvirt_rt_domains", {"item": {"uri": "qemu+ssh://h/system"}},
         ["domains[0] (rtv-bad): uri='qemu+ssh://h/system'", "one connection", "Fix:"]),
    Case("doms-item-base-xml-broken", "libvirt_rt_domains", {"item": {"base_xml": "<domain><name>x</domain>"}},
         ["domains[0] (rtv-bad): base_xml", "not well-formed XML"]),
    Case("doms-item-autostart-absent", "libvirt_rt_domains", {"item": {"state": "absent", "autostart": True}},
         ["domains[0] (rtv-bad): autostart=True", "state absent", "Fix: leave autostart out"]),
    Case("doms-defaults-autostart-not-bool", "libvirt_rt_domains", {"defaults": {"autostart": "on boot"}},
         ["defaults=", "autostart", "bool"]),
    Case("doms-name-twice", "libvirt_rt_domains", {"domains": [DOMAIN, DOMAIN]},
         ["2 of 2 domains failed", "domains[0] (rtv-bad): name='rtv-bad'", "domains[1] (rtv-bad)", "Fix:"]),
    Case("doms-defaults-bad-type", "libvirt_rt_domains", {"defaults": {"vcpus": "many"}},
         ["defaults=", "vcpus", "int", "Fix:"]),
    Case("doms-defaults-name", "libvirt_rt_domains", {"defaults": {"name": "x"}}, ["defaults.name='x'", "Fix:"]),
    Case("doms-defaults-unknown", "libvirt_rt_domains", {"defaults": {"vpcus": 2}},
         ["defaults='vpcus'", "not an option of realtime.virt.libvirt_rt_domain"]),
    Case("doms-remove-without-exclusive", "libvirt_rt_domains", {"remove_unlisted": True},
         ["remove_unlisted=True", "exclusive: true", "Fix:"]),
    Case("doms-fail-fast-not-bool", "libvirt_rt_domains", {"fail_fast": "sometimes"}, ["fail_fast", "bool"]),
    Case("doms-domains-missing", "libvirt_rt_domains", {"domains": None}, ["domains"]),
    Case("doms-unknown-option", "libvirt_rt_domains", {"exclusiv": True}, ["exclusiv", "Supported parameters"]),
]


def _merge(base, changes):
    result = copy.deepcopy(base)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = _merge(result[key], value)
        elif value is None:
            result.pop(key, None)
        else:
            result[key] = value
    return result


def _tree_digest(root):
    digest = hashlib.sha256()
    for top, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(top, name)
            digest.update(path.encode())
            if not os.path.islink(path):
                with open(path, "rb") as handle:
                    digest.update(handle.read())
    return digest.hexdigest()


class Harness(object):
    """Runs one case's entry point; records what it touched."""

    def __init__(self, tmp_path, monkeypatch, run_module):
        self.tmp = tmp_path
        self.monkeypatch = monkeypatch
        self.run_module = run_module
        self.touched = []

    def _run(self, main, params):
        outcome = self.run_module(main, params)
        return outcome.result, outcome.failed

    # -- modules ---------------------------------------------------------------------------------
    def libvirt_rt_domain(self, args):
        if libvirt is None:
            pytest.skip("libvirt-python is not installed")
        root = rt_node_trees.build_shape(str(self.tmp / "host"), "test_host", cores_per_socket=4)
        before = _tree_digest(root)
        opened = []

        def connect(uri):
            opened.append(uri)
            raise libvirt.libvirtError("test double: libvirt must not be opened for bad input")
        self.monkeypatch.setattr(libvirt, "open", connect)
        self.monkeypatch.setattr(_domain, "HostReader", lambda top: HostReader(root))
        result, failed = self._run(libvirt_rt_domain.main, _merge(DOMAIN, args))
        self.touched = opened + (["host tree"] if _tree_digest(root) != before else [])
        return result, failed

    def libvirt_rt_domains(self, args):
        """``args["item"]`` changes the one item; other keys are the task's options."""
        if libvirt is None:
            pytest.skip("libvirt-python is not installed")
        root = rt_node_trees.build_shape(str(self.tmp / "host"), "test_host", cores_per_socket=4)
        before = _tree_digest(root)
        opened = []

        def connect(uri):
            opened.append(uri)
            raise libvirt.libvirtError("test double: libvirt must not be opened for bad input")
        self.monkeypatch.setattr(libvirt, "open", connect)
        self.monkeypatch.setattr(_batch, "HostReader", lambda top: HostReader(root))
        args = dict(args)
        params = {"domains": [_merge(DOMAIN, args.pop("item", {}))]}
        params.update(args)
        if params["domains"] is None:
            del params["domains"]
        result, failed = self._run(libvirt_rt_domains.main, params)
        self.touched = opened + (["host tree"] if _tree_digest(root) != before else [])
        return result, failed

    def hugepages_alloc(self, args):
        root = rt_node_trees.build_shape(str(self.tmp / "host"), "test_host")
        before = _tree_digest(root)
        params = _merge({"pages": [{"size": "2M", "count": 4, "node": 0}], "root": root, "delay": 0}, args)
        result, failed = self._run(hugepages_alloc.main, params)
        if _tree_digest(root) != before:
            self.touched.append("host tree")
        return result, failed

    def sriov_vfs(self, args):
        tree = qat_trees.PciTree(str(self.tmp / "root"))
        qat_trees.add_qat_pf(tree, "0000:6b:00.0", "4xxx", total=16)
        kernel = FakeKernel(tree)
        self.monkeypatch.setattr(sriov_state, "SysfsWriter", lambda root: kernel)
        state = str(self.tmp / "sriov-vfs.conf")
        params = _merge({"pf": "0000:6b:00.0", "count": "4", "root": tree.root, "state_file": state}, args)
        result, failed = self._run(sriov_vfs.main, params)
        self.touched = list(kernel.log) + ([state] if os.path.exists(state) else [])
        return result, failed

    def qat_services(self, args):
        tree = qat_trees.PciTree(str(self.tmp / "root"))
        qat_trees.add_qat_pf(tree, "0000:6b:00.0", "4xxx", services="sym;asym")
        kernel = FakeKernel(tree)
        self.monkeypatch.setattr(qat_services_utils, "SysfsWriter", lambda root: kernel)
        params = _merge({"pf": "0000:6b:00.0", "services": "dc", "root": tree.root}, args)
        result, failed = self._run(qat_services.main, params)
        self.touched = list(kernel.log)
        return result, failed

    def rt_node_facts(self, args):
        return self._run(rt_node_facts.main, args)

    def qat_vf_info(self, args):
        return self._run(qat_vf_info.main, args)

    def _run_on_tree(self, main, args):
        """``main`` with ``root`` a fresh test_host tree (unless ``args`` gives one); a change to it is a write."""
        root = rt_node_trees.build_shape(str(self.tmp / "host"), "test_host")
        before = _tree_digest(root)
        result, failed = self._run(main, _merge({"root": root}, args))
        if _tree_digest(root) != before:
            self.touched.append("host tree")
        return result, failed

    def rt_isolation_info(self, args):
        return self._run_on_tree(rt_isolation_info.main, args)

    def rt_host_plan(self, args):
        # as the task runs it: the options left out filled with the roles' defaults by its action plugin
        return self._run_on_tree(rt_host_plan.main, fill_role_defaults(args))

    def libvirt_rt_domain_info(self, args):
        opened = []
        if libvirt is not None:
            def connect(uri):
                opened.append(uri)
                raise libvirt.libvirtError("test double: libvirt must not be opened for bad input")
            self.monkeypatch.setattr(libvirt_rt_domain_info.libvirt, "open", connect)
        result, failed = self._run(libvirt_rt_domain_info.main, args)
        self.touched = opened
        return result, failed

    # -- roles and filters -------------------------------------------------------------------------
    def role(self, name, args):
        with open(os.path.join(TOP, "roles", name, "meta", "argument_specs.yml")) as handle:
            spec = yaml.safe_load(handle)["argument_specs"]["main"]["options"]
        result = ArgumentSpecValidator(spec).validate(_merge(ROLE_VARS[name], args))
        return {"msg": "; ".join(result.error_messages)}, bool(result.error_messages)

    def filter(self, name, args):
        facts = gather_node_facts(rt_node_trees.build_shape(str(self.tmp / "host"), "test_host"))[0]
        vfs = [{"pci_address": "0000:6b:00.%d" % n, "numa_node": 0} for n in range(1, 4)]
        target = {"host": "vm1", "subject": "guest vm1", "argv": ["cyclictest"], "error": None}

        def placed():
            return FILTERS["rt_domain_placement"](facts, [{"name": "a", "vcpus": 1, "memory_mib": 64, "qat_vfs": 1}])

        calls = {
            "rt_cpu_plan": lambda: FILTERS[name](facts, args["isolated_cpus"]),
            "rt_kernel_args": lambda: FILTERS[name](FILTERS["rt_cpu_plan"](facts), extra=args["extra"]),
            "rt_kernel_args_compare": lambda: FILTERS[name](args["wanted"], "ro quiet"),
            "hugepages_plan": lambda: FILTERS[name](facts, args["pages"], args.get("default_size")),
            "hugepages_after": lambda: FILTERS[name](facts, args["pools"]),
            "rt_domain_node_after": lambda: FILTERS[name](facts, pools=args.get("pools"), isolated=args["isolated"],
                                                          housekeeping=args.get("housekeeping")),
            "qat_vf_select": lambda: FILTERS[name](args.get("vfs", vfs), args["requests"]),
            "os_vars_files": lambda: FILTERS[name](args["value"]),
            "sriov_recorded_pfs": lambda: FILTERS[name](args["value"], []),
            "sriov_vf_users": lambda: FILTERS[name]([], args["going"]),
            "hugepages_domain_pages": lambda: FILTERS[name](args["value"]),
            "hugepages_fstab_written": lambda: FILTERS[name]("", args["mounts"]),
            "cpuset_list": lambda: FILTERS[name](args["value"]),
            "cpuset_string": lambda: FILTERS[name](args["value"]),
            "rt_readiness_report": lambda: FILTERS[name](args["value"]),
            "rt_domain_placement": lambda: FILTERS[name](facts, args["domains"], allow_unisolated=True),
            "rt_domain_attach_vfs": lambda: FILTERS[name](placed(), args["selection"]),
            "rt_domain_vf_free": lambda: FILTERS[name](args["vfs"]),
            "rt_validate_domain_checks": lambda: FILTERS[name](args["value"]),
            "rt_validate_latency_check": lambda: FILTERS[name]({"max_us": 10}, "host", threshold_us=args["threshold_us"]),
            "rt_validate_hwlat": lambda: FILTERS[name]("", threshold_us=args["threshold_us"]),
            "rt_validate_hwlat_tracer": lambda: FILTERS[name](args["value"]),
            "rt_validate_report": lambda: FILTERS[name](args["value"], "host", accept=args.get("accept")),
            "rt_validate_html": lambda: FILTERS[name](args["value"], **dict(
                (k, v) for k, v in args.items() if k == "regression_factor")),
            "rt_validate_history": lambda: FILTERS[name](args["history"], [], run="20261207T120000Z",
                                                         keep=args["keep"]),
            "rt_validate_regressions": lambda: FILTERS[name](args["history"],
                                                             regression_factor=args["regression_factor"]),
            "rt_validate_prometheus": lambda: FILTERS[name](args["value"], args["time"]),
            "rt_validate_junit": lambda: FILTERS[name](args["value"]),
            "rt_validate_duration": lambda: FILTERS[name](args["value"]),
            "rt_validate_guest_plan": lambda: FILTERS[name](args["guests"], 10, group=args.get("group"),
                                                            groups=args.get("groups")),
            "rt_validate_guest_state": lambda: FILTERS[name](args["value"]),
            "rt_validate_guest_check": lambda: FILTERS[name](target, args["state"]),
            "rt_validate_isolation_checks": lambda: FILTERS[name]({}, facts, **args),
            "rt_validate_drift_checks": lambda: FILTERS[name]({}, facts, **args),
            "rt_validate_pmc": lambda: FILTERS[name](args["value"]),
            "rt_validate_ptp_checks": lambda: FILTERS[name](args.get("pmc", ""), "host PTP", **dict(
                (k, v) for k, v in args.items() if k != "pmc")),
            "rt_validate_ptp_measurement": lambda: FILTERS[name]("", "host PTP", **args),
            "rt_validate_chrony_checks": lambda: FILTERS[name](args.get("tracking", ""), "", "guest vm1", **dict(
                (k, v) for k, v in args.items() if k != "tracking")),
            "rt_guest_cpu_plan": lambda: FILTERS[name](facts, args.get("isolated_cpus", "auto"), domain="vm1",
                                                       hosts=["kvm1"], domains=[[args.get("domain", {"name": "vm1"})]]),
            "kubevirt_vm_to_rt_domain": lambda: FILTERS[name](args["manifest"], unmapped=args.get("unmapped", "warn"),
                                                              instancetypes=args.get("instancetypes")),
            "rt_domain_to_kubevirt_vm": lambda: FILTERS[name](args["domains"]),
            "ptp_plan": lambda: FILTERS[name](args.get("time_sync", SOFTWARE_ONLY), args["interfaces"],
                                              **dict({"housekeeping": "0-1"}, **args.get("options", {}))),
        }
        try:
            value = calls[name]()
        except AnsibleFilterError as error:
            return {"msg": str(error)}, True
        return {"msg": "returned %r" % (value,)}, False

    def run(self, entry, args):
        if entry.startswith("role:"):
            return self.role(entry[5:], args)
        if entry.startswith("filter:"):
            return self.filter(entry[7:], args)
        return getattr(self, entry)(args)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input_fails_clearly(case, tmp_path, monkeypatch, run_module):
    harness = Harness(tmp_path, monkeypatch, run_module)
    result, failed = harness.run(case.entry, case.args)
    message = result.get("msg", "")
    assert failed, "%s: accepted, result %r" % (case.id, result)
    for word in case.expect:
        assert word in message, "%s: %r is not in the message %r" % (case.id, word, message)
    for word in TRACEBACK_WORDS:
        assert word not in message, "%s: %r in the message %r" % (case.id, word, message)
    assert "exception" not in result, result
    assert not result.get("changed"), case.id
    # Modules that can change a host record every write; bad input makes none.
    assert harness.touched == [], "%s wrote %r" % (case.id, harness.touched)


# Good input through the same harness: each write detector sees the writes it exists to catch.
GOOD = [
    ("libvirt_rt_domain", {}, ["qemu:///system"]),
    ("libvirt_rt_domains", {}, ["qemu:///system"]),
    ("hugepages_alloc", {}, ["host tree"]),
    ("sriov_vfs", {"count": "1"}, None),
    ("qat_services", {}, None),
]


@pytest.mark.parametrize("entry, args, touched", GOOD, ids=[row[0] for row in GOOD])
def test_the_write_detectors_see_writes(entry, args, touched, tmp_path, monkeypatch, run_module):
    harness = Harness(tmp_path, monkeypatch, run_module)
    harness.run(entry, args)
    assert harness.touched, "%s: a good run wrote nothing the harness saw" % entry
    if touched is not None:
        assert harness.touched == touched


def test_catalogue_covers_every_entry_point():
    entries = set(case.entry for case in CASES)
    modules = set(name[:-3] for name in os.listdir(os.path.join(TOP, "plugins", "modules"))
                  if name.endswith(".py") and not name.startswith("_"))
    roles = set(name for name in os.listdir(os.path.join(TOP, "roles"))
                if os.path.isfile(os.path.join(TOP, "roles", name, "meta", "argument_specs.yml")))
    filters = set(FILTERS) - set(NEVER_REFUSE)
    assert sorted(modules - entries) == []
    assert sorted("role:" + role for role in roles if "role:" + role not in entries) == []
    assert sorted("filter:" + name for name in filters if "filter:" + name not in entries) == []
    # every exemption names a real filter that really has no row
    assert set(NEVER_REFUSE) <= set(FILTERS)
    assert not set("filter:" + name for name in NEVER_REFUSE) & entries
    assert set(ROLE_VARS) == roles
    assert len(set(case.id for case in CASES)) == len(CASES)


# ---- names that are legal for libvirt: the XML must carry them escaped -------------------------------

ODD_NAMES = ["a<b", "r&d", "it's", "vm-$(reboot)", 'say "hi"', "back`tick`", "semi;colon|pipe", "]]>cdata", "ünïcode"]


@pytest.mark.skipif(libvirt is None, reason="libvirt-python and lxml are not installed")
@pytest.mark.parametrize("name", ODD_NAMES)
def test_rendered_xml_escapes_every_user_string(name):
    params = _merge(DOMAIN, {
        "name": name,
        "serial_log": "/var/log/libvirt/qemu/%s.log" % name,
        "boot": {"kernel": "/boot/k&<'%s" % name, "cmdline": "console=ttyS0 x='%s' && $(id)" % name},
        "disks": [{"path": "/var/lib/%s.img" % name}],
        "interfaces": [{"bridge": "br<%s>" % name}],
    })
    text = to_text(render(build_spec(params, {"online": [0, 1, 2, 3]})))
    root = etree.fromstring(text.encode("utf-8"))
    assert root.findtext("name") == name
    assert root.find("os/kernel").text == "/boot/k&<'%s" % name
    assert root.find("os/cmdline").text == "console=ttyS0 x='%s' && $(id)" % name
    assert root.find("devices/disk/source").get("file") == "/var/lib/%s.img" % name
    assert root.find("devices/interface/source").get("bridge") == "br<%s>" % name
    # no user string became markup: the raw string never shows, and the tree holds
    # the same elements as the one rendered for a plain name
    if "<" in name or "&" in name:
        assert name not in text
    plain = etree.fromstring(to_text(render(build_spec(_merge(params, {"name": "plain"}), {"online": [0, 1, 2, 3]}))).encode())
    assert [node.tag for node in root.iter()] == [node.tag for node in plain.iter()]


@pytest.mark.skipif(libvirt is None, reason="libvirt-python and lxml are not installed")
@pytest.mark.parametrize("name", ["rt\nvm", "rt\x00vm", "rt\rvm"])
def test_names_libvirt_cannot_store_are_refused_by_the_plan(name):
    with pytest.raises(OptionError) as info:
        build_spec(_merge(DOMAIN, {"name": name}), {})
    assert info.value.option == "name" and repr(name) in str(info.value)
