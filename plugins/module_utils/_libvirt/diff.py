# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The --diff of libvirt_rt_domain: before and after in the same form (pure).

'before' is the domain's current inactive XML as libvirt stores it.
'after' is that same XML with the module's change applied (``project``):
each attribute, value and child the comparison finds different is set,
added or removed in place, in libvirt's form (sizes in KiB, children in
libvirt's order), and nothing else is touched.  Both are written by one
serialiser, so an element the run does not change is the same line on
both sides and a one-option change shows as the few lines it touches.
The same function serves check mode and the real run, so --check shows
the diff the real run will show.

With base_xml, children of the base that the options replace (a
<vcpusched> over a real-time vCPU, the base's <rng> when rng is given...)
are named in the diff's ``after_header`` (owned.REPLACEABLE says which).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.realtime.virt.plugins.module_utils._common.units import to_kib
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.compare import (
    SIZED_ATTRS, SIZED_TEXT, describe, normalised, pair_children, same_attribute, same_text)
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.merge import elements, sort_children
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.owned import REPLACEABLE, REPLACEABLE_ATTRS
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import parse_xml, to_text


def domain_diff(current, wanted, device_kinds, changed, base_xml=None):
    """The ``diff`` of the module's result: ``{"before", "after"[, "after_header"]}``.

    ``current`` is libvirt's parsed inactive XML (None: no domain yet),
    ``wanted`` the rendered domain, ``device_kinds`` as for
    compare.differences, ``changed`` whether the definition changes.
    """
    if current is None:
        result = {"before": "", "after": to_text(normalised(wanted, "split"))}
    else:
        before = normalised(current, "split")
        after = project(before, normalised(wanted, "split"), device_kinds) if changed else before
        result = {"before": to_text(before), "after": to_text(after)}
    notes = replaced_by_options(base_xml, wanted)
    if notes:
        result["after_header"] = "options replace in base_xml: %s" % "; ".join(notes)
    return result


def project(current, wanted, device_kinds):
    """A copy of ``current`` with what ``wanted`` asks for applied, in libvirt's form."""
    after = copy.deepcopy(current)
    _apply(wanted, after, "domain", tuple(device_kinds))
    memory, balloon = after.find("memory"), after.find("currentMemory")
    if wanted.find("currentMemory") is None and memory is not None and balloon is not None:
        balloon.text, balloon.attrib["unit"] = memory.text, memory.get("unit") or "KiB"  # libvirt's default
    _mirror_consoles(after)
    return after


def _mirror_consoles(domain):
    """A serial <console> is libvirt's copy of the serial port: follow the port, or go with it."""
    devices = domain.find("devices")
    if devices is None:
        return
    serials = devices.findall("serial")
    for console in devices.findall("console"):
        target = console.find("target")
        if target is not None and target.get("type") not in (None, "serial"):
            continue
        port = target.get("port", "0") if target is not None else "0"
        serial = [node for node in serials if node.find("target") is not None and node.find("target").get("port", "0") == port]
        if not serial:
            devices.remove(console)
            continue
        console.set("type", serial[0].get("type"))
        for source in console.findall("source"):
            console.remove(source)
        for index, source in enumerate(serial[0].findall("source")):
            console.insert(index, copy.deepcopy(source))


def _apply(want, have, path, device_kinds):
    for name in want.attrib:
        if not same_attribute(want, have, name):
            if (want.tag, name) in SIZED_ATTRS:
                have.set(name, str(to_kib(want.get(name), want.get("unit"))))
                have.set("unit", "KiB")
            else:
                have.set(name, want.get(name))
    if not same_text(want, have):
        if want.tag in SIZED_TEXT:
            have.text = str(to_kib((want.text or "").strip(), want.get("unit")))
            have.set("unit", "KiB")
        else:
            have.text = want.text
    pairs, extra = pair_children(want, have, path, device_kinds)
    added = False
    for child, match, child_path in pairs:
        if match is None:
            have.append(copy.deepcopy(child))
            added = True
        else:
            _apply(child, match, child_path, device_kinds)
    for child in extra:
        have.remove(child)
    if added:
        sort_children(have)


def replaced_by_options(base_xml, wanted):
    """The base's children and attributes the options replaced, as short notes."""
    if not base_xml:
        return []
    try:
        base = parse_xml(base_xml)
    except Exception:  # pylint: disable=broad-except  # the plan has parsed it already
        return []
    notes = []
    _replaced(normalised(base), normalised(wanted), "domain", notes)
    return notes


def _replaced(base, wanted, path, notes):
    for name in REPLACEABLE_ATTRS.get(path, ()):
        if base.get(name) is not None and not same_attribute(base, wanted, name):
            notes.append("%s %s=%r" % (path[len("domain/"):] or "domain", name, base.get(name)))
    tags = REPLACEABLE.get(path, ())
    kept = elements(wanted)
    for child in elements(base):
        child_path = "%s/%s" % (path, child.tag)
        same = [node for node in kept if node.tag == child.tag]
        if child.tag in tags:
            # kept when an element of the wanted domain holds all of it, or all it holds is in it
            if all(_missing(child, node) and _missing(node, child) for node in same):
                notes.append("%s %s" % (path[len("domain/"):] or "domain", describe(child)))
        elif child_path in REPLACEABLE or child_path in REPLACEABLE_ATTRS:
            if len(same) == 1:
                _replaced(child, same[0], child_path, notes)


def _missing(pattern, node):
    """Whether something of ``pattern`` is not in ``node`` (attributes, text, children)."""
    if pattern.tag != node.tag:
        return True
    if any(not same_attribute(pattern, node, name) for name in pattern.attrib) or not same_text(pattern, node):
        return True
    children = elements(node)
    for child in elements(pattern):
        if all(_missing(child, candidate) for candidate in children if candidate.tag == child.tag):
            return True
    return False
