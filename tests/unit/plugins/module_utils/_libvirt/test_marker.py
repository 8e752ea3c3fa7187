# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""The mark of domains libvirt_rt_domains manages: read, strip, add; libvirt's other metadata kept."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

etree = pytest.importorskip("lxml.etree")

from ansible_collections.realtime.virt.plugins.module_utils._libvirt import marker

OTHER = '<libosinfo:libosinfo xmlns:libosinfo="http://libosinfo.org/xmlns/libvirt/domain/1.0"/>'


def domain(metadata=""):
    return etree.fromstring("<domain><name>vm</name><uuid>u</uuid>%s<memory>1</memory></domain>" % metadata)


def test_owner_of_reads_the_mark_and_ignores_other_metadata():
    assert marker.owner_of(None) is None
    assert marker.owner_of(domain()) is None
    assert marker.owner_of(domain("<metadata>%s</metadata>" % OTHER)) is None
    assert marker.owner_of(marker.marked(domain(), "team-a")) == "team-a"


def test_marked_adds_the_mark_after_the_uuid_and_leaves_the_input_alone():
    root = domain()
    copy = marker.marked(root, "realtime.virt")
    assert [child.tag for child in copy] == ["name", "uuid", "metadata", "memory"]
    assert root.find("metadata") is None
    text = etree.tostring(copy, encoding="unicode")
    assert 'xmlns:rtv="urn:realtime-virt:managed:1"' in text and 'owner="realtime.virt"' in text
    assert marker.marked(root, None) is root


def test_marked_replaces_an_old_mark_and_keeps_other_metadata():
    root = marker.marked(domain("<metadata>%s</metadata>" % OTHER), "old")
    again = marker.marked(root, "new")
    metadata = again.find("metadata")
    assert len(metadata) == 2 and marker.owner_of(again) == "new"
    assert metadata[0].tag == "{http://libosinfo.org/xmlns/libvirt/domain/1.0}libosinfo"


def test_strip_removes_the_mark_and_a_metadata_left_empty():
    assert marker.strip(marker.marked(domain(), "x")).find("metadata") is None
    kept = marker.strip(marker.marked(domain("<metadata>%s</metadata>" % OTHER), "x"))
    assert len(kept.find("metadata")) == 1 and marker.owner_of(kept) is None


def test_element_text_is_what_libvirts_metadata_call_takes():
    assert etree.fromstring(marker.element_text("a&b")).get("owner") == "a&b"
