# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filter of the rt_guest role: the guest's isolated vCPUs."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._placement.guest import guest_cpu_plan


def rt_guest_cpu_plan(rt_node, isolated_cpus="auto", domain=None, hosts=None, domains=None, defaults=None,
                      kvm_host=""):
    """Guest facts -> isolated and housekeeping vCPUs, and where they came from.

    ``hosts``, ``domains`` and ``defaults`` are parallel lists: inventory
    hosts, their ``rt_domain_domains`` and ``rt_domain_domain_defaults``.
    """
    hosts = list(hosts or [])
    domains = list(domains or [])
    defaults = list(defaults or [])
    if len(domains) != len(hosts) or len(defaults) not in (0, len(hosts)):
        raise AnsibleFilterError("rt_guest_cpu_plan: hosts, domains and defaults must be lists of the same length")
    sources = [{"host": host, "domains": domains[index], "defaults": defaults[index] if defaults else {}}
               for index, host in enumerate(hosts)]
    try:
        return guest_cpu_plan(rt_node, isolated_cpus, domain=domain, sources=sources, kvm_host=kvm_host or "")
    except OptionError as error:
        raise AnsibleFilterError("rt_guest_cpu_plan: %s" % error)


class FilterModule(object):
    """Real-time guest filters."""

    def filters(self):
        return {"rt_guest_cpu_plan": rt_guest_cpu_plan}
