# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Format rt_node_facts' readiness checklist as lines a person reads."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError


def _status(check):
    if check.get("ready"):
        return "ready"
    if check.get("blocker"):
        return "BLOCKER"
    return "warning"


def rt_readiness_report(rt_node, host="this host"):
    """Return the readiness report of one host as a list of lines."""
    if not isinstance(rt_node, dict) or not isinstance(rt_node.get("realtime_checks"), list):
        raise AnsibleFilterError(
            "rt_readiness_report: expected the rt_node facts from realtime.virt.rt_node_facts "
            "(a dict with realtime_checks); run that module first and pass ansible_facts.rt_node"
        )
    checks = rt_node["realtime_checks"]
    blockers = [c for c in checks if not c.get("ready") and c.get("blocker")]
    warnings = [c for c in checks if not c.get("ready") and not c.get("blocker")]
    ready = [c for c in checks if c.get("ready")]
    verdict = "READY" if not blockers else "NOT READY"
    lines = [
        "Real-time readiness of %s: %s (%d ready, %d blocker%s, %d warning%s)"
        % (host, verdict, len(ready), len(blockers), "" if len(blockers) == 1 else "s",
           len(warnings), "" if len(warnings) == 1 else "s"),
    ]
    width = max([len(_status(c)) for c in checks] or [0])
    for group in (blockers, warnings, ready):
        for check in group:
            lines.append(
                "%s  %s: %s" % (_status(check).ljust(width), check.get("title", check.get("id")), check.get("observed", ""))
            )
            if not check.get("ready") and check.get("fix"):
                lines.append("%s    fix: %s" % (" " * width, check["fix"]))
    return lines


class FilterModule(object):
    """Readiness report filter."""

    def filters(self):
        return {"rt_readiness_report": rt_readiness_report}
