# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Child-by-child merge inside the elements a user's base_xml shares with the module (pure).

render.py decides what the module writes; this file puts it into a
parent element the user also wrote (``<cputune>``, ``<memoryBacking>``,
``<features>``, ``<cpu>``, ``<devices>``, ``<os>``, ``<numatune>``, the
``<domain>`` itself): the module's children replace the user's children
they conflict with, every other child and attribute stays as the user
wrote it, and the children end up in the order libvirt 9.0 writes them
(read from ``virsh dumpxml`` of a domain holding all of them), so the
merged XML reads like libvirt's and a diff against libvirt's XML shows
only what changed.

The scheduler lists (``<vcpusched>``, ``<iothreadsched>``) are also
normalised here: libvirt 9.0 stores one element per vCPU or iothread
(``vcpus='2-3'`` comes back as ``vcpus='2'`` and ``vcpus='3'``), so they
are compared grouped and shown split.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError, format_cpuset, parse_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.owned import ID_ATTR, ORDER, REPLACES

try:
    from lxml import etree
except ImportError:  # pragma: no cover - reported by the module through missing_required_lib
    etree = None

# Scheduler lists and the attribute holding their ids.
SCHED = {"vcpusched": "vcpus", "iothreadsched": "iothreads"}


def elements(node):
    """The element children of ``node`` (no comments, no processing instructions)."""
    return [child for child in node if isinstance(child.tag, str)]


def ids(node, attr):
    """The ids of a CPU-set attribute (``vcpus='0-2,^1'``) as a set; empty when unreadable."""
    try:
        return set(parse_cpuset(node.get(attr) or ""))
    except CpusetError:
        return set()


def _id_key(node):
    attr = ID_ATTR.get(node.tag)
    if attr is None:
        return 0
    numbers = ids(node, attr)
    return min(numbers) if numbers else 0


def sort_children(parent):
    """Put the children of ``parent`` in libvirt's order (stable, in place).

    Children of a listed tag go where libvirt writes that tag; among one
    tag, the numbered ones (``<vcpupin>``, ``<memnode>``...) go by number,
    the others stay in their order.  Anything else (an unlisted tag, a
    comment) travels with the child before it.
    """
    order = ORDER.get(parent.tag)
    if not order:
        return
    ranked = []
    rank = (-1, 0)
    for position, child in enumerate(list(parent)):
        if isinstance(child.tag, str) and child.tag in order:
            rank = (order.index(child.tag), _id_key(child))
        ranked.append((rank, position, child))
    ranked.sort(key=lambda item: (item[0], item[1]))
    for child in list(parent):
        parent.remove(child)
    for _rank, _position, child in ranked:
        parent.append(child)


def merge_children(parent, ours, conflicts):
    """Merge the module's children ``ours`` into the user's ``parent`` (in place).

    ``conflicts(child)`` is called for each of the user's children that
    owned.REPLACES declares replaceable under ``parent`` and
    returns None to keep it, or the replacement to keep instead (a
    trimmed copy), or False to drop it.  A child of ours takes the place
    of the first dropped child of its tag, else goes where libvirt's
    order puts it.  Returns the user's children that were dropped or
    trimmed (copies), so that a parent left empty can be dropped too.
    """
    replaced = []
    slots = {}
    replaceable = REPLACES.get(parent.tag, ())
    for child in list(parent):
        if not isinstance(child.tag, str) or child.tag not in replaceable:
            continue  # the declaration (owned.py) says no option replaces it
        verdict = conflicts(child)
        if verdict is None:
            continue
        replaced.append(copy.deepcopy(child))
        if verdict is False:
            if child.tag not in slots:
                slots[child.tag] = etree.Comment("slot")
                parent.replace(child, slots[child.tag])
            else:
                parent.remove(child)
        else:
            parent.replace(child, verdict)
    for node in ours:
        slot = slots.pop(node.tag, None)
        if slot is None:
            parent.append(node)
        else:
            parent.replace(slot, node)
    for slot in slots.values():
        parent.remove(slot)
    sort_children(parent)
    return replaced


def without_ids(node, attr, drop):
    """``node`` without the ids ``drop`` in its CPU-set attribute: None when
    nothing is dropped, False when nothing is left, else a trimmed copy."""
    have = ids(node, attr)
    if not have & drop:
        return None
    left = have - drop
    if not left:
        return False
    trimmed = copy.deepcopy(node)
    trimmed.set(attr, format_cpuset(sorted(left)))
    return trimmed


def split_sched(root):
    """A copy of ``root`` with each scheduler element split into one per id (libvirt 9.0's form)."""
    root = copy.deepcopy(root)
    for tag, attr in SCHED.items():
        for node in list(root.iter(tag)):
            numbers = sorted(ids(node, attr))
            if len(numbers) == 1 and node.get(attr) == str(numbers[0]):
                continue
            parent = node.getparent()
            index = parent.index(node)
            parent.remove(node)
            for offset, number in enumerate(numbers):
                single = copy.deepcopy(node)
                single.set(attr, str(number))
                parent.insert(index + offset, single)
            sort_children(parent)
    return root


def group_sched(root):
    """A copy of ``root`` with the scheduler elements of one policy and priority joined into one.

    libvirt may store ``vcpus='0-1'`` as two elements; grouped, the two
    forms compare equal and a changed mask still reads as one attribute
    (``vcpus is '0', wanted '0-1'``).
    """
    root = copy.deepcopy(root)
    for parent in list(root.iter("cputune")):
        for tag, attr in SCHED.items():
            nodes = parent.findall(tag)
            if len(nodes) < 2:
                continue
            groups = []
            for node in nodes:
                key = sorted((k, v) for k, v in node.attrib.items() if k != attr)
                for group in groups:
                    if group[0] == key:
                        group[1].update(ids(node, attr))
                        break
                else:
                    groups.append((key, ids(node, attr), node))
                parent.remove(node)
            for _key, numbers, node in groups:
                node.set(attr, format_cpuset(sorted(numbers)))
                parent.append(node)
        sort_children(parent)
    return root
