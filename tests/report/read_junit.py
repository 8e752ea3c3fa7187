# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read a JUnit XML file with junitparser and print its suites and cases, as JSON.

The integration target rt_validate_fleet_report compares this with the JSON
reports the hosts wrote.
"""
import json
import sys

from junitparser import Failure, JUnitXml, Skipped

xml = JUnitXml.fromfile(sys.argv[1])
if not isinstance(xml, JUnitXml):
    sys.exit("%s: the root element is not <testsuites>" % sys.argv[1])


def result(case):
    found = list(case.result)
    if not found:
        return {"result": "pass", "message": None}
    if isinstance(found[0], Failure):
        return {"result": "fail", "message": found[0].message}
    if isinstance(found[0], Skipped):
        return {"result": "skip", "message": found[0].message}
    return {"result": type(found[0]).__name__, "message": found[0].message}


print(json.dumps({
    "totals": {"tests": xml.tests, "failures": xml.failures, "skipped": xml.skipped, "errors": xml.errors},
    "suites": [{"name": suite.name, "hostname": suite.hostname, "timestamp": suite.timestamp, "tests": suite.tests,
                "failures": suite.failures, "skipped": suite.skipped, "errors": suite.errors,
                "cases": [dict(result(case), name=case.name, classname=case.classname) for case in suite]}
               for suite in xml],
}))
