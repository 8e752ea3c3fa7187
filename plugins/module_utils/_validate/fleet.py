# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the fleet page says of many hosts at once (pure).

Input: the JSON documents rt_validate writes on each host. Output: each
host's verdict in three words, the order the page lists hosts in, and the
fleet-wide summary: how many hosts fail, warn and pass, and per kind of
measurement the distribution of each host's max latency across the hosts.

- A host **fails** when its report did not pass (a failed check that
  rt_validate_accept did not accept), **warns** when it passed with a
  warning (a check or a measurement with status ``warn``, an accepted
  failure among them), and **passes** otherwise.
- Hosts are listed failing first, then warning, then passing; inside each
  group the hosts with something worse since the previous run (see
  ``history.regressions``) come first, then by name.
- A host's max latency of a kind is the highest ``max_us`` among its
  measurements of that kind (a host with two guests has one value for
  ``guest``). Across hosts, a percentile is read by nearest rank: the
  p-th percentile of n values is the smallest value at or below which at
  least p % of the hosts lie, the value at position ceil(p / 100 * n) of
  the values sorted (counting from 1). For 10 hosts, p90 is the 9th lowest
  and p99 the highest; a value is always one a host measured.
- A host's PTP offset is the largest |offset from master| of its
  measurements of kind ``ptp``; across hosts it is read as latency is.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

VERDICTS = ("fail", "warn", "pass")
# The percentiles across hosts the summary shows, besides min and max.
FLEET_PERCENTILES = (50, 90, 99)
# The kinds of measurement rt_validate writes, in the order the summary lists them; others follow by name.
KIND_ORDER = ("host", "host-oslat", "probe", "probe-baseline", "guest")
# The kind of the PTP measurement (ptp.ptp_measurement): an offset from the master, not a latency.
PTP_KIND = "ptp"


def verdict(report):
    """``fail``, ``warn`` or ``pass`` of one host's report."""
    if not report.get("passed"):
        return "fail"
    counts = report.get("counts") or {}
    try:
        warned = int(counts.get("warn") or 0) > 0
    except (TypeError, ValueError):
        warned = False
    items = list(report.get("checks") or []) + list(report.get("measurements") or [])
    if warned or any(isinstance(item, dict) and item.get("status") == "warn" for item in items):
        return "warn"
    return "pass"


def order(hosts, worse=()):
    """``hosts`` (dicts with ``host`` and ``verdict``) failing first, then warning, then passing.

    Inside a group, the hosts named in ``worse`` (a regression since the
    previous run) come first, then the others, each part by name.
    """
    worse = set(worse)
    return sorted(hosts, key=lambda h: (VERDICTS.index(h["verdict"]), h["host"] not in worse, h["host"]))


def nearest_rank(values, percent):
    """The ``percent``-th percentile of ``values`` by nearest rank (None for no value)."""
    data = sorted(values)
    if not data:
        return None
    rank = int(math.ceil(percent / 100.0 * len(data)))
    return data[min(max(rank, 1), len(data)) - 1]


def _kind_key(kind):
    return (KIND_ORDER.index(kind), "") if kind in KIND_ORDER else (len(KIND_ORDER), kind)


def host_maxima(summaries):
    """``{kind: max_us}`` of one host: the highest max of its measurements of each kind."""
    found = {}
    for summary in summaries:
        value = summary.get("max_us")
        if value is None or isinstance(value, bool):
            continue
        try:
            value = int(value)
        except (TypeError, ValueError):
            continue
        kind = summary.get("kind") or "measurement"
        if kind not in found or value > found[kind]:
            found[kind] = value
    return found


def fleet_summary(hosts):
    """Counts of verdicts and the distribution of max latency per kind, across ``hosts``.

    ``hosts``: dicts with ``host``, ``verdict`` and ``maxima`` (see
    :func:`host_maxima`). Returns ``{hosts, counts: {fail, warn, pass},
    latency: [{kind, hosts, min, p50, p90, p99, max, max_host}]}``;
    ``max_host`` is the first host (by name) with the highest value.
    """
    counts = dict((name, 0) for name in VERDICTS)
    per_kind = {}
    for host in hosts:
        counts[host["verdict"]] += 1
        for kind, value in host["maxima"].items():
            per_kind.setdefault(kind, []).append((value, host["host"]))
    latency = [dict(distribution(per_kind[kind]), kind=kind) for kind in sorted(per_kind, key=_kind_key)]
    return {"hosts": len(hosts), "counts": counts, "latency": latency}


def distribution(found):
    """``{hosts, min, p50, p90, p99, max, max_host}`` of ``found``, one ``(value, host)`` per host.

    ``max_host`` is the first host (by name) with the highest value.
    """
    values = [value for value, _host in found]
    top = max(values)
    row = {"hosts": len(values), "min": min(values), "max": top,
           "max_host": sorted(name for value, name in found if value == top)[0]}
    for percent in FLEET_PERCENTILES:
        row["p%d" % percent] = nearest_rank(values, percent)
    return row


def ptp_fleet(hosts):
    """``{hosts, min, p50, p90, p99, max, max_host}`` of each host's largest |PTP offset| (ns), None without one.

    ``hosts``: dicts with ``host`` and ``ptp`` (summaries with ``offset_ns``).
    """
    found = []
    for host in hosts:
        values = [abs(p["offset_ns"]) for p in host.get("ptp") or [] if p.get("offset_ns") is not None]
        if values:
            found.append((max(values), host["host"]))
    return distribution(found) if found else None
