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
``owned.OWNED_CHILDREN``), libvirt children of an owned kind that the
module does not want are differences, so removing an option is seen.

Both trees are first brought to one form (``normalised``) where libvirt
rewrites a user's XML: the scheduler lists libvirt stores one element per
vCPU are grouped, <memory> is the total of the guest NUMA cells (and
memory devices) when there are cells, a CPU <model> without a name is
left out, and memory limits libvirt reads as "unlimited" (and drops) too.

Never a string comparison of two XML documents.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError, parse_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.units import to_kib
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.merge import group_sched, split_sched
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.owned import DEVICE_KINDS, OWNED_CHILDREN, OWNED_TOP

CPUSET_ATTRS = ("cpuset", "vcpus", "nodeset", "cpus", "iothreads")
PCI_PARTS = ("domain", "bus", "slot", "function")
MACHINE_ALIASES = {"pc": "pc-i440fx-", "q35": "pc-q35-"}
# (element, attribute) pairs holding a size whose unit is the element's unit attribute
SIZED_ATTRS = {("cell", "memory"), ("page", "size"), ("cache", "size")}
SIZED_TEXT = ("memory", "currentMemory", "maxMemory", "hard_limit", "soft_limit", "swap_hard_limit", "min_guarantee",
              "size")
# libvirt's "no limit" for <memtune> values (VIR_DOMAIN_MEMORY_PARAM_UNLIMITED, in KiB): a value this
# large is stored as no element at all
UNLIMITED_KIB = 9007199254740991


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
    if name == "unit" and (tag in SIZED_TEXT or tag in ("cell", "page", "cache")):
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


def normalised(root, sched="group"):
    """A copy of a domain in the form both sides are compared (or shown) in.

    ``sched`` is ``group`` (one scheduler element per policy and priority,
    for comparing) or ``split`` (one per vCPU, libvirt 9.0's form, for
    showing).  With guest NUMA cells <memory> is their total (plus memory
    devices), as libvirt computes it; a CPU <model> without a name is
    left out; <memtune> limits of libvirt's "unlimited" size are left
    out, and a <memtune> left empty with them.
    """
    root = group_sched(root) if sched == "group" else split_sched(root)
    _numa_total(root)
    for model in root.findall("cpu/model"):
        if not (model.text or "").strip() and set(model.attrib) <= set(["fallback"]):
            model.getparent().remove(model)  # libvirt drops it, or puts its default CPU model there
    for memtune in root.findall("memtune"):
        for limit in list(memtune):
            if not isinstance(limit.tag, str):
                continue
            size = to_kib((limit.text or "").strip(), limit.get("unit"))
            if size is not None and size >= UNLIMITED_KIB:
                memtune.remove(limit)
        if not len(memtune):
            root.remove(memtune)
    return root


def _numa_total(root):
    """With guest NUMA cells, libvirt sets <memory> to the cells' sizes plus the memory devices'."""
    cells = root.findall("cpu/numa/cell")
    memory = root.find("memory")
    if not cells or memory is None:
        return
    sizes = [to_kib(cell.get("memory"), cell.get("unit")) for cell in cells]
    sizes += [to_kib((size.text or "").strip(), size.get("unit")) for size in root.findall("devices/memory/target/size")]
    if None in sizes:
        return
    memory.text = str(sum(sizes))
    memory.set("unit", "KiB")


def pair_children(want_el, have_el, path, device_kinds):
    """Pair each child of ``want_el`` with the child of ``have_el`` it is compared with.

    Returns ``(pairs, extra)``: ``pairs`` is a list of ``(want child,
    have child or None, path of the child)``, in the wanted order; a want
    child is paired with the first have child of its tag that holds all
    it asks for, else with the only have child of its tag when it is the
    only one wanted; None means it is missing.  ``extra`` are the have
    children of a kind the wanted element lists completely (OWNED_*)
    that nothing was paired with.
    """
    have_children = [c for c in have_el if isinstance(c.tag, str)]
    want_children = [c for c in want_el if isinstance(c.tag, str)]
    used = set()
    pairs = []
    for child in want_children:
        child_path = "%s/%s" % (path, child.tag)
        candidates = [i for i, c in enumerate(have_children) if c.tag == child.tag and i not in used]
        match = None
        for index in candidates:
            if not _collect(child, have_children[index], child_path, device_kinds):
                match = index
                break
        if match is None and len(candidates) == 1 and len([c for c in want_children if c.tag == child.tag]) == 1:
            match = candidates[0]
        if match is not None:
            used.add(match)
        pairs.append((child, have_children[match] if match is not None else None, child_path))
    owned = _owned(want_el, path, device_kinds)
    extra = [c for i, c in enumerate(have_children) if c.tag in owned and i not in used]
    return pairs, extra


def _diff(want_el, have_el, path, device_kinds, out):
    for name in want_el.attrib:
        if not same_attribute(want_el, have_el, name):
            out.append("%s: attribute %s is %r, wanted %r" % (path, name, have_el.get(name), want_el.get(name)))
    if not same_text(want_el, have_el):
        out.append("%s: value is %r, wanted %r" % (path, (have_el.text or "").strip(), (want_el.text or "").strip()))
    pairs, extra = pair_children(want_el, have_el, path, device_kinds)
    for child, match, child_path in pairs:
        if match is None:
            out.append("%s: missing %s" % (child_path, describe(child)))
        else:
            _diff(child, match, child_path, device_kinds, out)
    for child in extra:
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
    _diff(normalised(wanted), normalised(current), "domain", tuple(device_kinds), out)
    return out
