# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The mark of a domain that libvirt_rt_domains manages (pure, lxml).

libvirt keeps any element of a foreign XML namespace under ``<metadata>``
as it was given (one element per namespace).  libvirt_rt_domains writes
one there on every domain it converges::

    <metadata>
      <rtv:managed xmlns:rtv="urn:realtime-virt:managed:1" owner="realtime.virt"/>
    </metadata>

``owner`` is the task's ``owner`` option.  With ``exclusive: true`` only
domains carrying the mark with the same owner count as managed and may be
reported or removed as unlisted; a domain without it (defined by hand, by
another tool, by libvirt_rt_domain alone) is never touched.

The mark is not part of the comparison (compare.py): it is set with
libvirt's metadata call when it is the only thing missing, so a running
domain never reads as waiting for a restart because of it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

try:
    from lxml import etree
except ImportError:  # pragma: no cover - reported by the module through missing_required_lib
    etree = None

NAMESPACE = "urn:realtime-virt:managed:1"
PREFIX = "rtv"
TAG = "{%s}managed" % NAMESPACE


def owner_of(root):
    """The owner written in the mark of a domain tree, or None when it has no mark."""
    if root is None:
        return None
    node = root.find("metadata/" + TAG)
    if node is None:
        return None
    return node.get("owner") or ""


def strip(root):
    """Remove the mark (and a ``<metadata>`` left empty) from ``root``; returns ``root``."""
    for metadata in root.findall("metadata"):
        for node in metadata.findall(TAG):
            metadata.remove(node)
        if len(metadata) == 0 and not (metadata.text or "").strip():
            root.remove(metadata)
    return root


def element_text(owner):
    """The mark as libvirt's metadata call takes it (the namespace is given apart)."""
    node = etree.Element("managed", owner=owner)
    return etree.tostring(node, encoding="unicode")


def marked(root, owner):
    """A copy of ``root`` carrying the mark of ``owner`` (``root`` itself when owner is None)."""
    if owner is None:
        return root
    copy = etree.fromstring(etree.tostring(root))
    strip(copy)
    metadata = copy.find("metadata")
    if metadata is None:
        metadata = etree.Element("metadata")
        anchor = copy.find("uuid")
        if anchor is None:
            anchor = copy.find("name")
        if anchor is not None:
            anchor.addnext(metadata)
        else:
            copy.insert(0, metadata)
    etree.SubElement(metadata, TAG, nsmap={PREFIX: NAMESPACE}, owner=owner)
    return copy
