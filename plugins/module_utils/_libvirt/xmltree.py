# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Domain XML in and out (lxml): parse a <domain>, write it, build an element."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError

try:
    from lxml import etree
except ImportError:  # pragma: no cover - reported by the module through missing_required_lib
    etree = None


def parse_xml(text, option="base_xml"):
    """Parse domain XML text; raise InputError when it is not a <domain>."""
    if isinstance(text, str):
        text = text.encode("utf-8")
    try:
        parser = etree.XMLParser(remove_blank_text=True, resolve_entities=False, no_network=True)
        root = etree.fromstring(text, parser)
    except etree.XMLSyntaxError as error:
        raise OptionError(option, "<xml>", "not well-formed XML: %s" % error)
    if root.tag != "domain":
        raise OptionError(option, "<%s>" % root.tag, "the root element must be <domain>")
    return root


def to_text(root):
    """The XML text of ``root``, indented."""
    return etree.tostring(root, pretty_print=True, encoding="unicode")


def element(parent, tag, text=None, **attrs):
    """A new ``tag`` element (under ``parent`` unless None); attributes of value None are left out,
    a trailing ``_`` of a name dropped (``id_``)."""
    node = etree.SubElement(parent, tag) if parent is not None else etree.Element(tag)
    for key, value in attrs.items():
        if value is not None:
            node.set(key.rstrip("_"), str(value))
    if text is not None:
        node.text = str(text)
    return node
