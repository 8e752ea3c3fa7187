# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters of the rt_validate role: checks, cyclictest parsing and the report."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.module_utils._validate._checks import (
    build_report,
    domain_checks,
    latency_check,
    parse_cyclictest,
)


def rt_validate_domain_checks(domains, names=None, require_hugepages=True, require_pinning=True):
    """Checks of the real-time domains seen by libvirt_rt_domain_info."""
    if not isinstance(domains, list):
        raise AnsibleFilterError("rt_validate_domain_checks: expected the 'domains' list of "
                                 "realtime.virt.libvirt_rt_domain_info, got %s" % type(domains).__name__)
    return domain_checks(domains, names=names, require_hugepages=require_hugepages,
                         require_pinning=require_pinning)


def rt_validate_cyclictest(text):
    """Parse cyclictest -q -H output into numbers."""
    return parse_cyclictest(text if isinstance(text, str) else "")


def rt_validate_latency_check(parsed, subject, threshold_us=40, advisory=False, skip_reason=None):
    """A check of a parsed cyclictest run against the threshold."""
    try:
        threshold = int(threshold_us)
    except (TypeError, ValueError):
        raise AnsibleFilterError("rt_validate_latency_check: threshold_us=%r is not a number of microseconds"
                                 % (threshold_us,))
    return latency_check(parsed, subject, threshold, advisory=bool(advisory), skip_reason=skip_reason or None)


def rt_validate_report(checks, host):
    """Table, counts and failures of a list of checks."""
    if not isinstance(checks, list):
        raise AnsibleFilterError("rt_validate_report: expected a list of checks, got %s" % type(checks).__name__)
    return build_report(checks, host)


class FilterModule(object):
    """rt_validate filters."""

    def filters(self):
        return {
            "rt_validate_domain_checks": rt_validate_domain_checks,
            "rt_validate_cyclictest": rt_validate_cyclictest,
            "rt_validate_latency_check": rt_validate_latency_check,
            "rt_validate_report": rt_validate_report,
        }
