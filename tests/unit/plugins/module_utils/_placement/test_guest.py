# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The guest's isolated vCPUs: from its domain's realtime.mask, given, or auto."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.rt_guest import rt_guest_cpu_plan
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._placement.guest import find_domains, guest_cpu_plan


def guest(vcpus, nodes=None):
    """The rt_node facts of a guest with ``vcpus`` online vCPUs on one (or the given) NUMA node(s)."""
    online = list(range(vcpus))
    return {"cpus": {"online": online, "smt_siblings": []},
            "numa": {"nodes": nodes or [{"id": 0, "cpus": online}]}}


def source(host, domains, defaults=None):
    return {"host": host, "domains": domains, "defaults": defaults or {}}


VM4 = {"name": "vm1", "vcpus": 4, "realtime": {"mask": "^0"}}


def test_auto_takes_the_domains_realtime_mask():
    plan = guest_cpu_plan(guest(4), "auto", domain="vm1", sources=[source("kvm1", [VM4])])
    assert plan["isolated_cpuset"] == "1-3"
    assert plan["housekeeping_cpuset"] == "0"
    assert plan["domain"] == "vm1"
    assert plan["kvm_host"] == "kvm1"
    assert plan["source"] == "auto: the realtime.mask of domain vm1 on kvm1"


def test_the_mask_comes_from_the_defaults_merged_under_the_entry():
    defaults = {"vcpus": 6, "realtime": {"mask": "2-5", "priority": 10}}
    plan = guest_cpu_plan(guest(6), "auto", domain="vm1",
                          sources=[source("kvm1", [{"name": "vm1"}], defaults)])
    assert plan["isolated_cpuset"] == "2-5"
    assert plan["housekeeping_cpuset"] == "0-1"


def test_a_given_set_wins_over_the_domain():
    plan = guest_cpu_plan(guest(4), "2-3", domain="vm1", sources=[source("kvm1", [VM4])])
    assert plan["isolated_cpuset"] == "2-3"
    assert plan["source"] == "rt_guest_isolated_cpus"
    assert plan["domain"] is None


def test_a_guest_no_host_defines_gets_auto_of_its_own_cpus():
    plan = guest_cpu_plan(guest(4), "auto", domain="other", sources=[source("kvm1", [VM4])])
    assert plan["isolated_cpuset"] == "1-3"
    assert plan["housekeeping_cpuset"] == "0"
    assert plan["domain"] is None
    assert "no host of the inventory defines domain other" in plan["source"]


def test_kvm_host_limits_the_search():
    sources = [source("kvm1", [dict(VM4, realtime={"mask": "3"})]), source("kvm2", [VM4])]
    assert guest_cpu_plan(guest(4), "auto", domain="vm1", sources=sources, kvm_host="kvm1")["isolated_cpuset"] == "3"
    assert guest_cpu_plan(guest(4), "auto", domain="vm1", sources=sources, kvm_host="kvm2")["isolated_cpuset"] == "1-3"


def test_two_hosts_defining_the_name_with_different_masks_ask_for_kvm_host():
    sources = [source("kvm1", [VM4]), source("kvm2", [dict(VM4, realtime={"mask": "3"})])]
    with pytest.raises(OptionError) as error:
        guest_cpu_plan(guest(4), "auto", domain="vm1", sources=sources)
    message = str(error.value)
    assert message.startswith("rt_guest_domain='vm1': the hosts kvm1, kvm2 define domains of that name with "
                              "different real-time vCPUs (kvm1: 1-3; kvm2: 3)")
    assert "rt_guest_kvm_host" in message


def test_hosts_sharing_one_definition_need_no_choice():
    # rt_domain_domains in group vars: every host defines vm1 alike
    sources = [source("kvm1", [VM4]), source("kvm2", [VM4]), source("kvm3", [])]
    assert [found[0] for found in find_domains("vm1", sources)] == ["kvm1", "kvm2"]
    plan = guest_cpu_plan(guest(4), "auto", domain="vm1", sources=sources)
    assert plan["isolated_cpuset"] == "1-3"
    assert plan["kvm_host"] == "kvm1"


def test_kvm_host_without_the_domain_fails():
    with pytest.raises(OptionError) as error:
        guest_cpu_plan(guest(4), "auto", domain="vm9", sources=[source("kvm1", [VM4])], kvm_host="kvm1")
    assert str(error.value).startswith("rt_guest_kvm_host='kvm1': that host's rt_domain_domains define no domain "
                                       "named 'vm9'")


def test_a_mask_outside_the_guests_vcpus_fails():
    # the domain says 8 vCPUs, real-time 4-7; the guest has 4 online
    domain = {"name": "vm1", "vcpus": 8, "realtime": {"mask": "4-7"}}
    with pytest.raises(OptionError) as error:
        guest_cpu_plan(guest(4), "auto", domain="vm1", sources=[source("kvm1", [domain])])
    message = str(error.value)
    assert message.startswith("rt_guest_isolated_cpus='auto': the realtime.mask of domain vm1 on kvm1 selects "
                              "vCPU(s) 4-7, which the guest does not have online (online: 0-3)")
    assert "Fix: " in message


def test_a_mask_of_every_vcpu_leaves_no_housekeeping_and_fails():
    domain = {"name": "vm1", "vcpus": 2, "realtime": {}}
    with pytest.raises(OptionError) as error:
        guest_cpu_plan(guest(2), "auto", domain="vm1", sources=[source("kvm1", [domain])])
    message = str(error.value)
    assert "makes every vCPU of the guest (0-1) real-time" in message
    assert "'^0'" in message


def test_a_given_set_of_every_vcpu_fails():
    with pytest.raises(OptionError) as error:
        guest_cpu_plan(guest(2), "0-1")
    assert str(error.value).startswith("rt_guest_isolated_cpus='0-1': it isolates every online CPU (0-1)")


def test_a_given_set_outside_the_guest_fails():
    with pytest.raises(OptionError) as error:
        guest_cpu_plan(guest(2), "1-3")
    assert str(error.value).startswith("rt_guest_isolated_cpus='1-3': CPU(s) 2-3 are not online")


def test_a_domain_that_is_not_realtime_fails_under_auto():
    with pytest.raises(OptionError) as error:
        guest_cpu_plan(guest(4), "auto", domain="vm1", sources=[source("kvm1", [{"name": "vm1", "vcpus": 4}])])
    assert "rt_domain_domains[vm1] of kvm1 is not a real-time domain" in str(error.value)


@pytest.mark.parametrize("mask, why", [("9", "9"), ("x", "x")])
def test_a_bad_mask_names_the_domain_and_the_mask(mask, why):
    domain = {"name": "vm1", "vcpus": 4, "realtime": {"mask": mask}}
    with pytest.raises(OptionError) as error:
        guest_cpu_plan(guest(4), "auto", domain="vm1", sources=[source("kvm1", [domain])])
    assert str(error.value).startswith("rt_domain_domains[vm1] of kvm1.realtime.mask=%r" % mask)


def test_the_filter_takes_parallel_lists_and_names_itself_in_errors():
    plan = rt_guest_cpu_plan(guest(4), "auto", domain="vm1", hosts=["kvm1"], domains=[[VM4]], defaults=[{}])
    assert plan["isolated_cpuset"] == "1-3"
    with pytest.raises(AnsibleFilterError) as error:
        rt_guest_cpu_plan(guest(2), "0-1")
    assert str(error.value).startswith("rt_guest_cpu_plan: rt_guest_isolated_cpus='0-1'")


def test_a_mask_given_as_a_number_is_that_vcpu():
    domain = {"name": "vm1", "vcpus": 2, "realtime": {"mask": 0}}
    plan = guest_cpu_plan(guest(2), "auto", domain="vm1", sources=[source("kvm1", [domain])])
    assert plan["isolated_cpuset"] == "0"
    assert plan["housekeeping_cpuset"] == "1"


def test_a_mask_that_selects_no_vcpu_names_the_mask():
    domain = {"name": "vm1", "vcpus": 2, "realtime": {"mask": "^0,^1"}}
    with pytest.raises(OptionError) as error:
        guest_cpu_plan(guest(2), "auto", domain="vm1", sources=[source("kvm1", [domain])])
    assert str(error.value).startswith("rt_domain_domains[vm1] of kvm1.realtime.mask='^0,^1': selects no vCPU")


def test_a_realtime_section_switched_off_is_not_realtime():
    domain = {"name": "vm1", "vcpus": 4, "realtime": {"enabled": False}}
    with pytest.raises(OptionError) as error:
        guest_cpu_plan(guest(4), "auto", domain="vm1", sources=[source("kvm1", [domain])])
    assert "realtime.enabled false" in str(error.value)


def test_a_guest_with_other_vcpus_than_its_domain_is_warned_about():
    plan = guest_cpu_plan(guest(8), "auto", domain="vm1", sources=[source("kvm1", [VM4])])
    assert plan["isolated_cpuset"] == "1-3"
    assert plan["warnings"] == ["the guest has 8 online vCPU(s) (0-7) but domain vm1 on kvm1 defines 4: check that "
                                "rt_guest_domain names this guest's domain"]
    assert guest_cpu_plan(guest(4), "auto", domain="vm1", sources=[source("kvm1", [VM4])])["warnings"] == []
