# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The guest's side of a real-time domain: which of its vCPUs it isolates (pure).

A guest is tuned with the host's planning code (``_cpu.plan.cpu_plan``):
only where its isolated CPUs come from differs. With ``auto`` they are the
vCPUs of its domain's ``realtime.mask`` when a host of the inventory
defines the guest in ``rt_domain_domains``, so the vCPUs the host runs at a
real-time priority are the ones the guest keeps its own work off; a guest
no host defines gets the host's ``auto`` (all but the first core of each
NUMA node it sees). An explicit set is checked as the host's is.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import format_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._cpu.plan import AUTO, cpu_plan, online_cpus
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.vcpus import realtime_vcpus
from ansible_collections.realtime.virt.plugins.module_utils._placement.inputs import deep_merge, is_realtime

OPTION = "rt_guest_isolated_cpus"
HOST_OPTION = "rt_guest_kvm_host"


def _is_auto(value):
    return isinstance(value, str) and value.strip().lower() == AUTO


def find_domains(name, sources, kvm_host=""):
    """Every ``(host, options)`` that defines domain ``name`` among ``sources``.

    ``sources`` is a list of ``{host, domains, defaults}``: an inventory
    host, its ``rt_domain_domains`` and its ``rt_domain_domain_defaults``.
    ``options`` is the entry merged over the defaults, as rt_domain merges
    it. With ``kvm_host`` only that host is looked at, and it must define
    the domain.
    """
    found = []
    for source in sources or []:
        if not isinstance(source, dict):
            continue
        host = source.get("host")
        if kvm_host and host != kvm_host:
            continue
        domains = source.get("domains") or []
        if not isinstance(domains, list):
            continue
        for entry in domains:
            if isinstance(entry, dict) and entry.get("name") == name:
                defaults = source.get("defaults") if isinstance(source.get("defaults"), dict) else {}
                found.append((host, deep_merge(defaults, entry)))
    if kvm_host and not found:
        raise OptionError(
            HOST_OPTION, kvm_host,
            "that host's rt_domain_domains define no domain named %r" % name,
            "set rt_guest_domain to the name of this guest's domain on %s, or leave rt_guest_kvm_host empty "
            "to look for it on every host of the inventory" % kvm_host,
        )
    return found


def _mask_vcpus(host, options):
    """The vCPU ids of the domain's ``realtime.mask`` (all vCPUs when it is empty)."""
    name = options.get("name")
    where = "rt_domain_domains[%s] of %s" % (name, host)
    if not is_realtime(options):
        raise OptionError(
            OPTION, AUTO,
            "%s is not a real-time domain (no realtime section, or realtime.enabled false), so it has no real-time "
            "vCPU for the guest to isolate" % where,
            "give the guest's CPUs to isolate in rt_guest_isolated_cpus, or make the domain real-time",
        )
    vcpus = options.get("vcpus")
    try:
        count = 0 if isinstance(vcpus, bool) else int(vcpus)
    except (TypeError, ValueError):
        count = 0
    if count < 1:
        raise OptionError(where + ".vcpus", vcpus, "not a vCPU count", "give the domain a whole number of vCPUs")
    vcpus = count
    # an inventory may give a single vCPU as a number: mask 0 is vCPU 0, not "every vCPU"
    return vcpus, realtime_vcpus(options["realtime"].get("mask"), vcpus, option=where + ".realtime.mask",
                                 fix="write the real-time vCPUs as a set of vCPU ids below %d, such as '1-%d' or '^0'"
                                 % (vcpus, vcpus - 1))


def guest_cpu_plan(rt_node, isolated_cpus=AUTO, domain=None, sources=None, kvm_host=""):
    """The guest's CPU plan: ``cpu_plan``'s result plus where the set came from.

    ``rt_node`` holds the guest's facts (its online CPUs are its vCPUs).
    ``isolated_cpus`` is ``auto`` or a CPU set; ``domain`` the guest's
    domain name; ``sources`` and ``kvm_host`` as for :func:`find_domains`.
    The result carries ``source`` (a sentence), ``domain`` and ``kvm_host``
    (None when the set did not come from a domain). Every problem raises
    ``OptionError`` naming the variable, the value and the fix.
    """
    if not _is_auto(isolated_cpus):
        plan = cpu_plan(rt_node, isolated_cpus, option=OPTION)
        return dict(plan, source="rt_guest_isolated_cpus", domain=None, kvm_host=None)
    found = find_domains(domain, sources, kvm_host) if domain else []
    if not found:
        plan = cpu_plan(rt_node, AUTO, option=OPTION)
        return dict(plan, source="auto: no host of the inventory defines domain %s, so all but the first core of "
                    "each NUMA node of the guest" % domain, domain=None, kvm_host=None)
    # hosts that share their rt_domain_domains (group vars) define the same
    # domain alike; only definitions whose real-time vCPUs differ need a choice
    read = dict((host, _mask_vcpus(host, options)) for host, options in found)
    if len(set(tuple(rt) for _count, rt in read.values())) > 1:
        raise OptionError(
            "rt_guest_domain", domain,
            "the hosts %s define domains of that name with different real-time vCPUs (%s)"
            % (", ".join(sorted(str(host) for host in read)),
               "; ".join("%s: %s" % (host, format_cpuset(read[host][1])) for host in sorted(read, key=str))),
            "set rt_guest_kvm_host to the host this guest runs on",
        )
    host, options = found[0]
    count, rt_vcpus = read[host]
    online = online_cpus(rt_node, OPTION)
    where = "realtime.mask of domain %s on %s" % (options.get("name"), host)
    missing = sorted(set(rt_vcpus) - set(online))
    if missing:
        raise OptionError(
            OPTION, AUTO,
            "the %s selects vCPU(s) %s, which the guest does not have online (online: %s)"
            % (where, format_cpuset(missing), format_cpuset(online)),
            "check that rt_guest_domain names this guest's domain, or give rt_guest_isolated_cpus",
        )
    if not set(online) - set(rt_vcpus):
        raise OptionError(
            OPTION, AUTO,
            "the %s makes every vCPU of the guest (%s) real-time, which leaves the guest no vCPU for its own work "
            "(interrupts, timers, daemons)" % (where, format_cpuset(online)),
            "leave a vCPU out of the domain's realtime.mask (for example '^0'), or give rt_guest_isolated_cpus",
        )
    plan = cpu_plan(rt_node, rt_vcpus, option=OPTION)
    if count != len(online):
        plan["warnings"] = plan["warnings"] + [
            "the guest has %d online vCPU(s) (%s) but domain %s on %s defines %d: check that rt_guest_domain names "
            "this guest's domain" % (len(online), format_cpuset(online), options.get("name"), host, count)]
    return dict(plan, source="auto: the %s" % where, domain=options.get("name"), kvm_host=host)
