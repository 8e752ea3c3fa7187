# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""CPU set syntax shared by libvirt, KubeVirt and the kernel.

A CPU set is a comma-separated list of tokens.  Each token is a single id
(``4``), an inclusive range (``0-3``) or, where the caller allows it, an
exclusion (``^2``) that removes one id from whatever the other tokens
selected, wherever it stands in the list.  Pure functions only: no I/O.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import RealtimeVirtError

_ID = re.compile(r"^[0-9]+$")
_RANGE = re.compile(r"^([0-9]+)-([0-9]+)$")


class CpusetError(RealtimeVirtError, ValueError):
    """A CPU set string or list that cannot be understood.

    ``token`` is the offending piece (or the whole value), ``value`` the
    whole input, so callers can name both in their message; the callers
    know the option and raise an OptionError with this text as the why.
    """

    def __init__(self, message, token=None, value=None):
        super(CpusetError, self).__init__(message)
        self.token = token
        self.value = value


def _bad(token, value, why):
    return CpusetError(
        "invalid CPU set token %r in %r: %s" % (token, value, why),
        token=token,
        value=value,
    )


def parse_cpuset(value, allow_exclusion=True, empty=None, maximum=None):
    """Parse ``value`` into a sorted list of unique, non-negative ints.

    ``value`` may be a string in cpuset syntax, an int, or a list of ints.
    ``empty`` is what an empty string means: ``None`` (the default) gives
    an empty list; pass a list (for example every vCPU id) when the
    caller's convention is "empty means all".  ``^N`` removes ``N`` from
    the result; when the string holds only exclusions, they are taken out
    of ``empty`` (so ``^1`` with ``empty=[0, 1, 2]`` gives ``[0, 2]``),
    which is libvirt's and Nova's reading.  ``maximum`` bounds every id
    (inclusive) when given.
    """
    if value is None:
        value = ""
    if isinstance(value, bool):
        raise CpusetError("a CPU set must be a string or a list of ids, not a boolean", token=value, value=value)
    if isinstance(value, int):
        value = [value]
    if isinstance(value, (list, tuple, set, frozenset)):
        return _from_list(value, maximum)
    if not isinstance(value, str):
        raise CpusetError(
            "a CPU set must be a string like '0-3,8' or a list of ids, got %s" % type(value).__name__,
            token=value,
            value=value,
        )

    text = value.strip()
    if text == "":
        return sorted(set(empty or []))

    selected = set()
    removed = set()
    only_exclusions = True
    for raw in text.split(","):
        token = raw.strip()
        if token == "":
            raise _bad(raw, value, "empty token (doubled or trailing comma)")
        target = selected
        body = token
        if token.startswith("^"):
            if not allow_exclusion:
                raise _bad(token, value, "exclusions with '^' are not allowed here")
            target = removed
            body = token[1:]
            if not _ID.match(body):
                raise _bad(token, value, "'^' must be followed by a single CPU id")
        else:
            only_exclusions = False
        if _ID.match(body):
            ids = [int(body)]
        else:
            match = _RANGE.match(body)
            if not match:
                if body.startswith("-"):
                    why = "CPU ids cannot be negative"
                else:
                    why = "expected N, N-M or ^N"
                raise _bad(token, value, why)
            start, end = int(match.group(1)), int(match.group(2))
            if start > end:
                raise _bad(token, value, "range start %d is greater than its end %d" % (start, end))
            ids = range(start, end + 1)
        if maximum is not None:
            for cpu in ids:
                if cpu > maximum:
                    raise _bad(token, value, "id %d is above the highest allowed id %d" % (cpu, maximum))
        target.update(ids)

    if only_exclusions:
        selected = set(empty or [])
    return sorted(selected - removed)


def _from_list(items, maximum):
    result = set()
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int):
            if isinstance(item, str) and _ID.match(item.strip()):
                item = int(item.strip())
            else:
                raise CpusetError("CPU id %r is not a non-negative integer" % (item,), token=item, value=items)
        if item < 0:
            raise CpusetError("CPU id %d cannot be negative" % item, token=item, value=items)
        if maximum is not None and item > maximum:
            raise CpusetError("CPU id %d is above the highest allowed id %d" % (item, maximum), token=item, value=items)
        result.add(item)
    return sorted(result)


def format_cpuset(cpus):
    """Format ids as the shortest cpuset string: ``[0, 1, 2, 3, 8]`` -> ``"0-3,8"``.

    Accepts anything :func:`parse_cpuset` accepts; an empty set gives ``""``.
    """
    ids = parse_cpuset(cpus)
    parts = []
    start = prev = None
    for cpu in ids:
        if start is None:
            start = prev = cpu
        elif cpu == prev + 1:
            prev = cpu
        else:
            parts.append(_span(start, prev))
            start = prev = cpu
    if start is not None:
        parts.append(_span(start, prev))
    return ",".join(parts)


def _span(start, end):
    if start == end:
        return str(start)
    return "%d-%d" % (start, end)


def parse_kernel_cpulist(text):
    """Parse a kernel cpulist file (``/sys/.../cpulist``, ``isolated``).

    The kernel writes ``0-3,8`` or an empty line; never exclusions.
    """
    return parse_cpuset(text, allow_exclusion=False)


def parse_cpumask(text):
    """Parse a kernel hex CPU mask (``00000000,0000000f``) into ids."""
    value = text.strip().replace(",", "")
    if value == "":
        return []
    try:
        number = int(value, 16)
    except ValueError:
        raise CpusetError("invalid hexadecimal CPU mask %r" % text, token=text, value=text)
    cpus = []
    bit = 0
    while number:
        if number & 1:
            cpus.append(bit)
        number >>= 1
        bit += 1
    return cpus
