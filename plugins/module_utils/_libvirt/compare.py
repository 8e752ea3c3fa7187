# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compare the wanted domain with libvirt's XML element by element (pure).

The wanted tree is a *subset* pattern: every attribute, text and child the
module writes must be present in libvirt's XML with an equal value, after
normalising the ways libvirt rewrites values (cpusets, memory units, PCI
address numbers, MAC case, machine type aliases).  What libvirt adds on
its own (UUID, addresses, aliases, controllers, ``placement``,
``check``...) is ignored.  Inside containers the module owns (see
``_render.OWNED_CHILDREN``), libvirt children of an owned kind that the
module does not want are differences, so removing an option is seen.

Never a string comparison of two XML documents.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError, parse_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.units import to_kib
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.render import DEVICE_KINDS, OWNED_CHILDREN, OWNED_TOP

CPUSET_ATTRS = ("cpuset", "vcpus", "nodeset", "cpus")
PCI_PARTS = ("domain", "bus", "slot", "function")
MACHINE_ALIASES = {"pc": "pc-i440fx-", "q35": "pc-q35-"}
# (element, attribute) pairs holding a size whose unit is the element's unit attribute
SIZED_ATTRS = {("cell", "memory"), ("page", "size")}
SIZED_TEXT = ("memory", "currentMemory", "hard_limit", "soft_limit")


def _same_scalar(want, have):
    if want == have:
        return True
    try:
        return int(want) == int(have)
    except (TypeError, ValueError):
        return False


def same_attribute(want_el, have_el, name):
    """Whether attribute ``name`` of ``want_el`` holds the same value in ``have_el``."""
    want, have = want_el.get(name), have_el.get(name)
    tag = want_el.tag
    if name == "unit" and (tag in SIZED_TEXT or tag in ("cell", "page")):
        return True  # units are folded into the sized value
    if have is None:
        return False
    if (tag, name) in SIZED_ATTRS:
        return to_kib(want, want_el.get("unit")) == to_kib(have, have_el.get("unit"))
    if name in CPUSET_ATTRS:
        try:
            return parse_cpuset(want) == parse_cpuset(have)
        except CpusetError:
            return want == have
    if tag == "address" and name in PCI_PARTS:
        try:
            return int(want, 0) == int(have, 0)
        except ValueError:
            return want == have
    if tag == "mac" and name == "address":
        return want.lower() == have.lower()
    if tag == "type" and name == "machine":
        prefix = MACHINE_ALIASES.get(want)
        return want == have or bool(prefix and have.startswith(prefix))
    return _same_scalar(want, have)


def same_text(want_el, have_el):
    want = (want_el.text or "").strip()
    if not want:
        return True
    have = (have_el.text or "").strip()
    if want_el.tag in SIZED_TEXT:
        return to_kib(want, want_el.get("unit")) == to_kib(have, have_el.get("unit"))
    return _same_scalar(want, have)


def describe(node):
    """Short one-line rendering of an element for messages."""
    attrs = " ".join("%s=%r" % item for item in sorted(node.attrib.items()))
    text = (node.text or "").strip()
    head = "<%s%s>" % (node.tag, (" " + attrs) if attrs else "")
    return head + text if text else head


def _owned(want_el, path, device_kinds):
    if path == "domain":
        return OWNED_TOP
    if path == "domain/devices":
        return device_kinds
    if path == "domain/features":
        return OWNED_CHILDREN["features"]
    return OWNED_CHILDREN.get(want_el.tag, ())


def _diff(want_el, have_el, path, device_kinds, out):
    for name in want_el.attrib:
        if not same_attribute(want_el, have_el, name):
            out.append("%s: attribute %s is %r, wanted %r" % (path, name, have_el.get(name), want_el.get(name)))
    if not same_text(want_el, have_el):
        out.append("%s: value is %r, wanted %r" % (path, (have_el.text or "").strip(), (want_el.text or "").strip()))
    used = set()
    have_children = [c for c in have_el if isinstance(c.tag, str)]
    for child in want_el:
        if not isinstance(child.tag, str):
            continue
        child_path = "%s/%s" % (path, child.tag)
        candidates = [c for c in have_children if c.tag == child.tag and id(c) not in used]
        match = None
        for candidate in candidates:
            if not _collect(child, candidate, child_path, device_kinds):
                match = candidate
                break
        if match is not None:
            used.add(id(match))
            continue
        same_tag_wanted = [c for c in want_el if c.tag == child.tag]
        if len(candidates) == 1 and len(same_tag_wanted) == 1:
            used.add(id(candidates[0]))
            out.extend(_collect(child, candidates[0], child_path, device_kinds))
        else:
            out.append("%s: missing %s" % (child_path, describe(child)))
    owned = _owned(want_el, path, device_kinds)
    for child in have_children:
        if child.tag in owned and id(child) not in used:
            out.append("%s/%s: not wanted %s" % (path, child.tag, describe(child)))


def _collect(want_el, have_el, path, device_kinds):
    out = []
    _diff(want_el, have_el, path, device_kinds, out)
    return out


def differences(wanted, current, device_kinds=DEVICE_KINDS):
    """List of human-readable differences (empty: nothing to change).

    ``wanted`` is the rendered ``<domain>``; ``current`` libvirt's XML of
    the existing domain, or None when the domain does not exist.
    ``device_kinds`` are the device tags whose whole set the module decides.
    """
    if current is None:
        return ["domain: does not exist"]
    out = []
    _diff(wanted, current, "domain", tuple(device_kinds), out)
    return out
