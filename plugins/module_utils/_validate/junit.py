# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The checks of many hosts as one JUnit XML file, for CI test views (pure).

Input: the JSON documents rt_validate writes on each host. Output: one
``<testsuites>`` document as Jenkins, GitLab and other JUnit readers take
it: one ``<testsuite>`` per host (sorted by name), one ``<testcase>`` per
check in the report's order.

- ``name`` of a testcase is ``<subject>: <check>``; ``classname`` is the
  host with every ``.`` as ``_`` (Jenkins reads dots in a class name as
  package separators, which would split a host's FQDN).
- A failed check has a ``<failure>`` whose message is the check's own
  message followed by what was expected (the threshold) and what was
  observed (the measured value); the element's text repeats them on lines.
- A skipped check has ``<skipped>`` with the reason.
- A warning (an advisory result, or a failure rt_validate_accept accepted)
  passes, as it does for the report, and says so in ``<system-out>``.

XML 1.0 cannot carry most control characters (such as the escape codes of
a colourful command's output): they are written as U+FFFD.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
import xml.etree.ElementTree as ET

NOT_XML = re.compile(u"[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(value):
    """``value`` as text that XML 1.0 can hold."""
    return NOT_XML.sub(u"\ufffd", "" if value is None else str(value))


def classname(host):
    """The class name of a host's testcases: the host, dots as underscores."""
    return xml_text(host).replace(".", "_")


def case_name(item):
    return "%s: %s" % (xml_text(item.get("subject")), xml_text(item.get("check")))


def failure_message(item):
    """The message of a failed check: its own, then the expected and observed values."""
    own = xml_text(item.get("message")) or case_name(item)
    return "%s (expected: %s; observed: %s)" % (own, xml_text(item.get("expected")), xml_text(item.get("observed")))


def _count(checks, status):
    return sum(1 for item in checks if item.get("status") == status)


def _checks(report):
    return [item for item in report.get("checks") or [] if isinstance(item, dict)]


def _suite(report, timestamp):
    host = xml_text(report.get("host") or "?")
    checks = _checks(report)
    suite = ET.Element("testsuite", {
        "name": host, "hostname": host, "tests": str(len(checks)), "failures": str(_count(checks, "fail")),
        "errors": "0", "skipped": str(_count(checks, "skip")), "time": "0"})
    if timestamp:
        suite.set("timestamp", timestamp)
    for item in checks:
        case = ET.SubElement(suite, "testcase", {"classname": classname(host), "name": case_name(item), "time": "0"})
        status = item.get("status")
        if status == "fail":
            failure = ET.SubElement(case, "failure", {"message": failure_message(item), "type": "fail"})
            failure.text = "expected: %s\nobserved: %s\n" % (xml_text(item.get("expected")),
                                                             xml_text(item.get("observed")))
        elif status == "skip":
            ET.SubElement(case, "skipped", {"message": xml_text(item.get("observed"))})
        elif status == "warn":
            out = ET.SubElement(case, "system-out")
            out.text = "WARN%s: %s\nexpected: %s\nobserved: %s\n" % (
                " (accepted)" if item.get("accepted") is True else "", xml_text(item.get("message")) or
                case_name(item), xml_text(item.get("expected")), xml_text(item.get("observed")))
    return suite


def render_junit(reports, name="rt_validate", timestamp=""):
    """The JUnit XML document (text) of a list of host reports; ``timestamp``: ISO 8601, without a zone."""
    suites = [_suite(report, xml_text(timestamp)) for report in sorted(
        reports or [], key=lambda r: str(r.get("host") or "?"))]
    root = ET.Element("testsuites", {"name": xml_text(name)})
    for attribute in ("tests", "failures", "errors", "skipped"):
        root.set(attribute, str(sum(int(suite.get(attribute)) for suite in suites)))
    root.set("time", "0")
    root.extend(suites)
    if hasattr(ET, "indent"):  # Python 3.9 and later: one element a line
        ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
