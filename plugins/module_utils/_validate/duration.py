# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""How long a measurement runs: ``10``, ``30s``, ``10m``, ``12h`` or ``1d`` as seconds (pure)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError

UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
DURATION = re.compile(r"^\s*(\d+)\s*([smhd]?)\s*$", re.IGNORECASE)
# A background measurement is waited for this much longer than it runs (start-up,
# memory locking, the report); past that it counts as not finished.
WAIT_GRACE_S = 120
FIX = "give whole seconds (10) or a number with s, m, h or d (30s, 10m, 12h)"


def parse_duration(value, option="rt_validate_duration"):
    """Seconds of ``value``; an ``OptionError`` naming ``option`` when it is no duration."""
    if isinstance(value, bool) or value is None or isinstance(value, float):
        raise OptionError(option, value, "expected a duration", FIX)
    if isinstance(value, int):
        seconds = value
    else:
        match = DURATION.match(str(value))
        if not match:
            raise OptionError(option, value, "expected a duration", FIX)
        seconds = int(match.group(1)) * UNITS[match.group(2).lower()]
    if seconds < 1:
        raise OptionError(option, value, "cyclictest needs at least one second", "give 1s or more")
    return seconds


def format_duration(seconds):
    """``seconds`` as a person says it: 45s, 10m, 1h 30m, 12h."""
    seconds = int(seconds)
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            parts.append("%d%s" % (seconds // size, unit))
            seconds %= size
    if seconds or not parts:
        parts.append("%ds" % seconds)
    return " ".join(parts)
