# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Kernel command-line arguments of a real-time KVM host.

:func:`rt_kernel_args` computes the wanted list from a CPU plan;
:func:`compare_kernel_args` tells which of them a command line (``/proc/cmdline``,
a bootloader entry) already has, comparing the way the kernel reads them:
``-`` and ``_`` alike in names, the last value of a name wins, and CPU lists
equal when they name the same CPUs (``2-3`` is ``2,3``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import (
    CpusetError,
    format_cpuset,
    parse_cpuset,
)
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError

# Names the kernel accepts more than once, each occurrence meaning something.
REPEATABLE = frozenset(("hugepagesz", "hugepages", "console"))
# Arguments whose value is a CPU list.
CPULIST_ARGS = frozenset(("nohz_full", "rcu_nocbs", "irqaffinity"))
ISOLCPUS_FLAGS = "managed_irq,domain"
_WORD = re.compile(r"^[A-Za-z0-9_.\-]+(=[^\s\"'\\$`]*)?$")


def arg_name(word):
    """``nohz-full=2`` -> ``nohz_full`` (the kernel treats ``-`` and ``_`` alike)."""
    return word.split("=", 1)[0].replace("-", "_")


def _value(word):
    return word.split("=", 1)[1] if "=" in word else None


def _split_isolcpus(value):
    flags, cpus = [], []
    for token in (value or "").split(","):
        if token and (token[0].isdigit() or token[0] == "^"):
            cpus.append(token)
        elif token:
            flags.append(token)
    return flags, ",".join(cpus)


def normalise_arg(word):
    """A canonical spelling of one argument, for comparison only."""
    name = arg_name(word)
    value = _value(word)
    if value is None:
        return name
    try:
        if name in CPULIST_ARGS:
            return "%s=%s" % (name, format_cpuset(parse_cpuset(value)))
        if name == "isolcpus":
            flags, cpus = _split_isolcpus(value)
            return "%s=%s" % (name, ",".join(sorted(set(flags)) + [format_cpuset(parse_cpuset(cpus))]))
    except CpusetError:
        pass
    return "%s=%s" % (name, value)


def check_extra_args(extra, option="rt_host_kernel_args_extra"):
    """Validate user-given arguments: a list of single words without quotes or shell syntax."""
    if extra is None:
        return []
    if isinstance(extra, str):
        extra = extra.split()
    if not isinstance(extra, (list, tuple)):
        raise OptionError(option, extra, "it is not a list of kernel arguments",
                          "give a list such as ['mitigations=off', 'nmi_watchdog=0']")
    result = []
    for word in extra:
        if not isinstance(word, str) or not _WORD.match(word):
            raise OptionError(
                option, word,
                "not a single kernel argument (name or name=value without spaces, quotes, '$', '`' or '\\')",
                "write one argument per list item, for example 'nmi_watchdog=0'",
            )
        result.append(word)
    return result


def _merge(words):
    """Drop exact duplicates; a later non-repeatable name replaces an earlier one in place."""
    result = []
    for word in words:
        name = arg_name(word)
        if word in result:
            continue
        if name not in REPEATABLE:
            replaced = False
            for index, old in enumerate(result):
                if arg_name(old) == name:
                    result[index] = word
                    replaced = True
                    break
            if replaced:
                continue
        result.append(word)
    return result


def rt_kernel_args(cpu_plan, iommu=False, hugepage_args=None, extra=None):
    """The wanted kernel arguments, in a stable order.

    ``cpu_plan`` is the result of :func:`cpus.cpu_plan` (or any dict with
    ``isolated`` and ``housekeeping``).  ``hugepage_args`` come from the
    hugepages plan, ``extra`` from the operator and win over computed
    arguments of the same name.
    """
    if not isinstance(cpu_plan, dict) or "isolated" not in cpu_plan or "housekeeping" not in cpu_plan:
        raise OptionError("cpu_plan", cpu_plan, "it is not a CPU plan",
                          "pass the result of the realtime.virt.rt_cpu_plan filter")
    try:
        isolated = format_cpuset(cpu_plan["isolated"])
        housekeeping = format_cpuset(cpu_plan["housekeeping"])
    except CpusetError as error:
        raise OptionError("cpu_plan", cpu_plan, str(error), "pass the result of the realtime.virt.rt_cpu_plan filter")
    if not isolated or not housekeeping:
        raise OptionError("cpu_plan", cpu_plan, "isolated and housekeeping CPU sets must both be non-empty",
                          "pass the result of the realtime.virt.rt_cpu_plan filter")
    words = [
        "isolcpus=%s,%s" % (ISOLCPUS_FLAGS, isolated),
        "nohz=on",
        "nohz_full=%s" % isolated,
        "rcu_nocbs=%s" % isolated,
        "irqaffinity=%s" % housekeeping,
        "skew_tick=1",
        "tsc=reliable",
        "nosoftlockup",
    ]
    if iommu:
        words.extend(["intel_iommu=on", "iommu=pt"])
    words.extend(check_extra_args(hugepage_args, option="rt_host_kernel_args_hugepages"))
    words.extend(check_extra_args(extra))
    return _merge(words)


def _words(cmdline):
    if cmdline is None:
        return []
    if isinstance(cmdline, str):
        words = cmdline.split()
    else:
        words = [str(word) for word in cmdline]
    if "--" in words:
        words = words[:words.index("--")]
    return words


def _has(words, wanted):
    name = arg_name(wanted)
    normal = normalise_arg(wanted)
    if name in REPEATABLE:
        return normal in [normalise_arg(word) for word in words]
    last = None
    for word in words:
        if arg_name(word) == name:
            last = word
    return last is not None and normalise_arg(last) == normal


def compare_kernel_args(wanted, current, previous=None):
    """Which ``wanted`` arguments a command line (or several) already has.

    ``current`` is a command-line string, a list of its words, or a list of
    those (one per boot entry, e.g. every kernel grubby knows): an argument
    counts as present only when every entry has it.  ``previous`` (the
    arguments written by an earlier run) gives ``stale``: those whose name
    is no longer wanted, to remove.
    """
    wanted = check_extra_args(wanted, option="wanted")
    if isinstance(current, (list, tuple)) and current and all(isinstance(item, (list, tuple)) for item in current):
        entries = [_words(item) for item in current]
    else:
        entries = [_words(current)]
    present, missing = [], []
    for word in wanted:
        if all(_has(entry, word) for entry in entries):
            present.append(word)
        else:
            missing.append(word)
    names = set(arg_name(word) for word in wanted)
    stale = [word for word in check_extra_args(previous, option="previous") if arg_name(word) not in names]
    return {"applied": not missing, "present": present, "missing": missing, "stale": stale}


def grubby_entries(text):
    """The argument lists of every kernel in ``grubby --info=ALL`` output."""
    entries = []
    for line in (text or "").splitlines():
        line = line.strip()
        if line.startswith("args="):
            value = line[len("args="):].strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            entries.append(value.split())
    return entries
