# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ``qat/cfg_services`` string of 4xxx/420xx physical functions.

The kernel accepts the services ``sym``, ``asym``, ``dc`` and ``dcc``
joined by ``;``; a Gen4 device runs at most two of them at once, and
``dcc`` (compression chaining) stands alone.  The file can be written only
while ``qat/state`` reads ``down``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

KNOWN_SERVICES = ("sym", "asym", "dc", "dcc")
MAX_SERVICES = 2


class QatServicesError(ValueError):
    """A services string the driver would refuse."""


def parse_services(value, option="qat_services"):
    """Return the list of services of ``value`` or raise QatServicesError."""
    if not isinstance(value, str) or not value.strip():
        raise QatServicesError(
            "%s=%r is not a services string: give one or two of %s joined by ';', e.g. 'sym;asym' or 'dc'"
            % (option, value, ", ".join(KNOWN_SERVICES)))
    names = [name.strip().lower() for name in value.strip().split(";")]
    for name in names:
        if name not in KNOWN_SERVICES:
            raise QatServicesError(
                "%s=%r names the unknown service %r: use %s joined by ';', e.g. 'sym;asym'"
                % (option, value, name, ", ".join(KNOWN_SERVICES)))
    if len(set(names)) != len(names):
        raise QatServicesError("%s=%r names a service twice: give each service once, e.g. 'sym;asym'" % (option, value))
    if len(names) > MAX_SERVICES:
        raise QatServicesError(
            "%s=%r asks for %d services but a Gen4 QAT device runs at most %d: pick two, e.g. 'sym;asym' or 'sym;dc'"
            % (option, value, len(names), MAX_SERVICES))
    if "dcc" in names and len(names) > 1:
        raise QatServicesError("%s=%r combines 'dcc' with another service: 'dcc' must stand alone" % (option, value))
    return names


def same_services(current, wanted):
    """Whether the device's current string configures the wanted services.

    Order does not matter to the driver's service set, so ``asym;sym`` and
    ``sym;asym`` are equal.
    """
    if current is None:
        return False
    have = sorted(name.strip().lower() for name in current.split(";") if name.strip())
    return have == sorted(parse_services(wanted))
