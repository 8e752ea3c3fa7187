# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters of the rt_host role: CPU isolation plan and kernel arguments."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.module_utils._cpu.plan import cpu_plan
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._cpu.kernel_args import (
    compare_kernel_args,
    grubby_entries,
    rt_kernel_args,
)
from ansible_collections.realtime.virt.plugins.module_utils._node.tuned import active_profiles, listed_profiles


def _call(name, function, *args, **kwargs):
    try:
        return function(*args, **kwargs)
    except OptionError as error:
        raise AnsibleFilterError("%s: %s" % (name, error))


def rt_cpu_plan(rt_node, isolated_cpus="auto", option="rt_host_isolated_cpus"):
    """``ansible_facts.rt_node`` -> isolated and housekeeping CPUs."""
    return _call("rt_cpu_plan", cpu_plan, rt_node, isolated_cpus, option=option)


def rt_kernel_args_filter(plan, iommu=False, hugepage_args=None, extra=None):
    """CPU plan -> list of kernel arguments."""
    return _call("rt_kernel_args", rt_kernel_args, plan, iommu=iommu, hugepage_args=hugepage_args, extra=extra)


def rt_kernel_args_compare(wanted, current, previous=None):
    """Which wanted arguments a command line (or every boot entry) has."""
    return _call("rt_kernel_args_compare", compare_kernel_args, wanted, current, previous)


def rt_grubby_entries(text):
    """``grubby --info=ALL`` output -> list of argument lists."""
    return grubby_entries(text)


def rt_tuned_profiles(text):
    """``tuned-adm list`` output -> the names of the profiles tuned can load."""
    return listed_profiles(text)


def rt_tuned_active(text):
    """``tuned-adm active`` output -> the names of the active profile(s)."""
    return active_profiles(text)


class FilterModule(object):
    """Real-time host filters."""

    def filters(self):
        return {
            "rt_cpu_plan": rt_cpu_plan,
            "rt_kernel_args": rt_kernel_args_filter,
            "rt_kernel_args_compare": rt_kernel_args_compare,
            "rt_grubby_entries": rt_grubby_entries,
            "rt_tuned_profiles": rt_tuned_profiles,
            "rt_tuned_active": rt_tuned_active,
        }
