# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The report of one host: counts, a table a person reads, the failures (pure).

``accept`` (the role's ``rt_validate_accept``) names checks whose failure is
known and accepted on this host: such a failed check is reported as
``warn`` with ``accepted: true`` and its message prefixed with
:data:`ACCEPTED_PREFIX`, so it neither counts as a failure nor fails the
host. Only those checks carry the ``accepted`` key. A name that matches no
check of the run adds one ``skip`` check saying so, so that a typo does not
accept nothing in silence.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import STATUSES, check

ACCEPT_OPTION = "rt_validate_accept"
ACCEPTED_PREFIX = "accepted (%s): " % ACCEPT_OPTION
ACCEPT_FIX = ("give a list of check names as the CHECK column of the report shows them, such as "
              "['tuned-adm verify']")
# How many names of the checks that ran an unmatched name's message lists.
RAN_NAMES_SHOWN = 40


def _fit(text, width):
    return text if len(text) <= width else text[:width - 3] + "..."


def accept_names(accept):
    """The check names of ``accept`` (None: none), each once, in their order.

    Raises :class:`OptionError` for a value that is not a list, or an entry
    that is not a non-empty string.
    """
    if accept is None:
        return []
    if not isinstance(accept, (list, tuple)):
        raise OptionError(ACCEPT_OPTION, accept, "not a list of check names", ACCEPT_FIX)
    names = []
    for index, name in enumerate(accept):
        if not isinstance(name, str) or not name.strip():
            raise OptionError(ACCEPT_OPTION, list(accept), "entry %d (%r) is not the name of a check, a non-empty "
                              "string" % (index, name),
                              "write each entry as a check name from the CHECK column of the report, such as "
                              "'tuned-adm verify', or remove it")
        if name not in names:
            names.append(name)
    return names


def _message(item):
    """A check's message, or ``subject: check`` when it has none."""
    return item.get("message") or "%s: %s" % (item["subject"], item["check"])


def _accepted(item):
    """A failed check, accepted: status warn, ``accepted: true``, the message prefixed."""
    return dict(item, status="warn", accepted=True, message=ACCEPTED_PREFIX + _message(item))


def _unmatched(name, ran):
    """The skipped check of an accepted name that no check of the run has."""
    shown = ", ".join(ran[:RAN_NAMES_SHOWN]) or "none"
    if len(ran) > RAN_NAMES_SHOWN:
        shown += " and %d more" % (len(ran) - RAN_NAMES_SHOWN)
    return check(ACCEPT_OPTION, name, "a check of this name", "no such check ran", "skip",
                 "%s lists %r, but no check of that name ran on this host, so it accepts nothing; it may be a typo. "
                 "Checks that ran: %s. Fix: write the name as the CHECK column of the report shows it, or remove it "
                 "from %s" % (ACCEPT_OPTION, name, shown, ACCEPT_OPTION))


def apply_accept(checks, accept):
    """``checks`` with the failures ``accept`` names accepted, then one skipped check per unmatched name."""
    names = accept_names(accept)
    out = [_accepted(item) if item["status"] == "fail" and item["check"] in names else item for item in checks]
    ran = sorted(set(item["check"] for item in checks), key=lambda name: (name.lower(), name))
    out.extend(_unmatched(name, ran) for name in names if name not in ran)
    return out


def build_report(checks, host, accept=None):
    """``{host, passed, counts, failures, table, checks}`` for a list of checks.

    ``accept``: the names of checks whose failure is accepted (see the module's docstring).
    """
    checks = apply_accept(list(checks or []), accept)
    counts = dict((status, 0) for status in STATUSES)
    for item in checks:
        counts[item["status"]] = counts.get(item["status"], 0) + 1
    headers = ("SUBJECT", "CHECK", "EXPECTED", "OBSERVED", "RESULT")
    limits = (28, 30, 36, 60, 6)
    rows = [(item["subject"], item["check"], item["expected"], item["observed"], item["status"].upper())
            for item in checks]
    widths = []
    for column, limit in enumerate(limits):
        longest = max([len(headers[column])] + [len(row[column]) for row in rows])
        widths.append(min(longest, limit))
    lines = ["rt_validate report for %s: %s (%d pass, %d fail, %d warn, %d skip)" % (
        host, "PASSED" if not counts["fail"] else "FAILED", counts["pass"], counts["fail"], counts["warn"],
        counts["skip"])]
    lines.append("  ".join(_fit(h, w).ljust(w) for h, w in zip(headers, widths)).rstrip())
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append("  ".join(_fit(cell, w).ljust(w) for cell, w in zip(row, widths)).rstrip())
    if not rows:
        lines.append("(nothing to check)")
    accepted = ["%s (%s)" % (item["check"], item["subject"]) for item in checks if item.get("accepted")]
    if accepted:
        lines.append("Accepted failures (%s), reported as WARN: %s" % (ACCEPT_OPTION, "; ".join(accepted)))
    failures = [_message(item) for item in checks if item["status"] == "fail"]
    return {"host": host, "passed": not counts["fail"], "counts": counts, "failures": failures,
            "table": "\n".join(lines), "checks": checks}
