# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read a node_exporter textfile with the Prometheus client library's parser and print what it says, as JSON.

The integration target rt_validate_fleet_report compares this with the JSON
report the host wrote. The parser refuses text that is not the exposition
format; a family seen twice, or a series written twice (which node_exporter
refuses), fails here too.
"""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

PREFIX = "realtime_virt_validate_"

with open(sys.argv[1]) as handle:
    text = handle.read()
families = {}
for family in text_string_to_metric_families(text):
    if family.name in families:
        sys.exit("%s: family %s appears twice" % (sys.argv[1], family.name))
    families[family.name] = family
seen = set()
hosts = set()
for family in families.values():
    for sample in family.samples:
        key = (sample.name, tuple(sorted(sample.labels.items())))
        if key in seen:
            sys.exit("%s: %s%s appears twice" % (sys.argv[1], sample.name, dict(sample.labels)))
        seen.add(key)
        hosts.add(sample.labels.get("host"))


def samples(name):
    return [(sample.labels, sample.value) for sample in families[PREFIX + name].samples] if PREFIX + name in families else []


measurements = {}
for name in ("max", "avg", "min", "threshold"):
    for labels, value in samples("latency_%s_seconds" % name):
        measurements.setdefault(labels["measurement"], {"kind": labels["kind"], "quantiles": {}})[name] = value
for labels, value in samples("latency_quantile_seconds"):
    measurements[labels["measurement"]]["quantiles"][labels["quantile"]] = value
for name in ("samples", "overflow_samples"):
    for labels, value in samples("latency_" + name):
        measurements[labels["measurement"]][name] = value
for labels, value in samples("measurement_status"):
    if value == 1:
        measurements.setdefault(labels["measurement"], {"kind": labels["kind"], "quantiles": {}})["status"] = labels["status"]
print(json.dumps({
    # the exposition format ends every line, the last one too, with a line feed
    "ends_with_line_feed": text.endswith("\n"),
    "names": sorted(families),
    "types": sorted(set(family.type for family in families.values())),
    "undocumented": sorted(name for name, family in families.items() if not family.documentation),
    "hosts": sorted(hosts, key=str),
    "timestamped": len([s for f in families.values() for s in f.samples if s.timestamp is not None]),
    "run_timestamp": samples("run_timestamp_seconds")[0][1],
    "passed": samples("passed")[0][1],
    "counts": dict((labels["status"], value) for labels, value in samples("checks")),
    # each check once, in the file's order, with the status whose series is 1
    "checks": [{"subject": labels["subject"], "check": labels["check"], "status": labels["status"]}
               for labels, value in samples("check_status") if value == 1],
    "check_series": len(samples("check_status")),
    "measurements": measurements,
}))
