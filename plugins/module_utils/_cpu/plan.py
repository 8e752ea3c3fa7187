# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Choose the isolated (real-time) and housekeeping CPUs of a host.

``auto`` keeps the first core of every NUMA node, with all of its SMT
siblings, for the host's own work (interrupts, RCU callbacks, timers,
daemons) and isolates every other online CPU.  An explicit CPU set is
checked against the online CPUs; the housekeeping set is always the
complement, and must not be empty.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import (
    CpusetError,
    format_cpuset,
    parse_cpuset,
)
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError

AUTO = "auto"


def _section(rt_node, name):
    value = (rt_node or {}).get(name)
    return value if isinstance(value, dict) else {}


def online_cpus(rt_node, option="rt_node"):
    """The online CPU ids of ``rt_node`` (a list), or a OptionError."""
    online = _section(rt_node, "cpus").get("online")
    if not online:
        raise OptionError(
            option, "cpus.online missing",
            "the facts hold no online CPU list, so no CPU can be chosen",
            "gather the facts first with realtime.virt.rt_node_facts and pass ansible_facts.rt_node",
        )
    return sorted(set(online))


def _sibling_groups(rt_node, online):
    groups = {}
    for group in _section(rt_node, "cpus").get("smt_siblings") or []:
        members = [cpu for cpu in group if cpu in online]
        for cpu in members:
            groups[cpu] = members
    return groups


def _node_cpu_lists(rt_node, online):
    lists = []
    for node in _section(rt_node, "numa").get("nodes") or []:
        cpus = sorted(cpu for cpu in (node.get("cpus") or []) if cpu in online)
        if cpus:
            lists.append((node.get("id"), cpus))
    if not lists:
        lists.append((None, list(online)))
    return lists


def auto_housekeeping(rt_node, option="rt_host_isolated_cpus"):
    """CPUs ``auto`` keeps: the first core (and its SMT siblings) of each NUMA node."""
    online = online_cpus(rt_node, option)
    online_set = set(online)
    siblings = _sibling_groups(rt_node, online_set)
    keep = set()
    for _node, cpus in _node_cpu_lists(rt_node, online_set):
        first = cpus[0]
        keep.update(siblings.get(first, [first]))
    return sorted(keep)


def cpu_plan(rt_node, isolated_cpus=AUTO, option="rt_host_isolated_cpus"):
    """Return the isolated and housekeeping CPUs as lists and cpuset strings.

    ``isolated_cpus`` is ``auto``, a cpuset string (``2-15,18-31``) or a
    list of ids.  The result also carries ``warnings``: SMT siblings split
    between the two sets (an isolated CPU then shares a core with host work).
    """
    online = online_cpus(rt_node, option)
    online_set = set(online)
    if isinstance(isolated_cpus, str) and isolated_cpus.strip().lower() == AUTO:
        housekeeping = auto_housekeeping(rt_node, option)
        isolated = sorted(online_set - set(housekeeping))
        if not isolated:
            raise OptionError(
                option, isolated_cpus,
                "this host has %d online CPU(s) (%s) and 'auto' keeps the first core of each of its NUMA node(s) "
                "with its SMT siblings (%s) for housekeeping, which leaves no CPU to isolate"
                % (len(online), format_cpuset(online), format_cpuset(housekeeping)),
                "give the CPUs to isolate explicitly (for example rt_host_isolated_cpus: '%d') or use a host with "
                "more cores per NUMA node" % online[-1],
            )
    else:
        if isolated_cpus is None or (isinstance(isolated_cpus, str) and not isolated_cpus.strip()) \
                or (isinstance(isolated_cpus, (list, tuple)) and not isolated_cpus):
            raise OptionError(
                option, isolated_cpus, "no CPU to isolate was given",
                "set it to 'auto' or to a CPU set of online CPUs such as '%s'" % format_cpuset(online[1:] or online),
            )
        try:
            isolated = parse_cpuset(isolated_cpus, allow_exclusion=True)
        except CpusetError as error:
            raise OptionError(
                option, isolated_cpus, str(error),
                "write a CPU set of ids and ranges with start <= end, such as '1-3' or '2-15,18-31', or 'auto'",
            )
        missing = sorted(set(isolated) - online_set)
        if missing:
            raise OptionError(
                option, isolated_cpus,
                "CPU(s) %s are not online on this host (online: %s)" % (format_cpuset(missing), format_cpuset(online)),
                "isolate only online CPUs",
            )
        housekeeping = sorted(online_set - set(isolated))
        if not housekeeping:
            raise OptionError(
                option, isolated_cpus,
                "it isolates every online CPU (%s), leaving none for the host's own work" % format_cpuset(online),
                "leave at least one CPU, ideally the first core of each NUMA node, out of the set ('auto' does this)",
            )
    warnings = []
    house_set = set(housekeeping)
    for group in sorted(set(tuple(g) for g in _sibling_groups(rt_node, online_set).values())):
        if len(group) > 1 and set(group) & house_set and set(group) - house_set:
            warnings.append(
                "SMT siblings %s are split: %s isolated, %s housekeeping; the isolated thread shares its core with host work"
                % (format_cpuset(list(group)), format_cpuset(sorted(set(group) - house_set)),
                   format_cpuset(sorted(set(group) & house_set)))
            )
    return {
        "isolated": isolated,
        "isolated_cpuset": format_cpuset(isolated),
        "housekeeping": housekeeping,
        "housekeeping_cpuset": format_cpuset(housekeeping),
        "online_cpuset": format_cpuset(online),
        "warnings": warnings,
    }
