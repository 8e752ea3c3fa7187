# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one size parser: libvirt's units for XML, the kernel's for page sizes."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from fractions import Fraction

from ansible_collections.realtime.virt.plugins.module_utils._common.units import (
    ceil_div, page_size_kib, parse_quantity, size_label, to_kib, unit_bytes)
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.observe import parse_domain_xml
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import parse_xml
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import vcpus_of_base


# libvirt's virScaleInteger: case-insensitive, iB or a bare letter is binary, a letter + B is decimal.
@pytest.mark.parametrize("unit, factor", [
    ("b", 1), ("bytes", 1), ("byte", 1), ("B", 1),
    ("k", 1024), ("K", 1024), ("KiB", 1024), ("kib", 1024), ("KB", 1000), ("kb", 1000),
    ("M", 1024 ** 2), ("MiB", 1024 ** 2), ("MB", 1000 ** 2),
    ("G", 1024 ** 3), ("GiB", 1024 ** 3), ("GB", 1000 ** 3),
    ("T", 1024 ** 4), ("TB", 1000 ** 4), ("P", 1024 ** 5), ("E", 1024 ** 6),
    ("Gi", 1024 ** 3), ("x", None), ("KiBB", None), ("", None),
])
def test_unit_bytes(unit, factor):
    assert unit_bytes(unit) == factor


@pytest.mark.parametrize("value, unit, kib", [
    ("1024", None, 1024), ("1024", "KiB", 1024), ("1024", "KB", 1000), ("1", "G", 1048576),
    ("2", "GB", 1953125), (" 2048 ", "k", 2048), ("1", "MiB", 1024), ("x", "KiB", None), ("1", "parsec", None),
])
def test_to_kib_reads_like_libvirt(value, unit, kib):
    assert to_kib(value, unit) == kib


@pytest.mark.parametrize("value, bare, kib", [
    ("2M", "KiB", 2048), ("1G", "KiB", 1048576), ("1Gi", "KiB", 1048576), ("2MiB", "KiB", 2048),
    ("2048kB", "KiB", 2048), ("2048KB", "KiB", 2048), ("2048k", "KiB", 2048), ("2048", "KiB", 2048), (2048, "KiB", 2048),
    ("2097152", "B", 2048), ("64K", "KiB", 64), ("0", "KiB", None), ("512", "B", None), ("huge", "KiB", None),
    ("", "KiB", None), (None, "KiB", None), (True, "KiB", None), ("2 M", "KiB", 2048),
])
def test_page_sizes_read_like_the_kernel(value, bare, kib):
    assert page_size_kib(value, bare_unit=bare) == kib


@pytest.mark.parametrize("kib, label", [(2048, "2M"), (1048576, "1G"), (64, "64K"), (16384, "16M")])
def test_size_label(kib, label):
    assert size_label(kib) == label


@pytest.mark.parametrize("unit", ["KB", "KiB", "MB", "M", "bytes"])
def test_planning_and_verifying_read_one_memory_element_alike(unit):
    """The spec (apply) and the observer (verify) agree on a domain's memory size."""
    xml = "<domain type='qemu'><name>u</name><memory unit='%s'>4096000</memory><vcpu>1</vcpu></domain>" % unit
    _vcpus, planned = vcpus_of_base(parse_xml(xml))
    observed = parse_domain_xml(xml)["memory_kib"]
    assert planned == observed == to_kib("4096000", unit)


# Kubernetes quantities (k8s.io/apimachinery pkg/api/resource): every value written out by hand.
@pytest.mark.parametrize("text, value", [
    ("1024M", 1024000000), ("1e9", 1000000000), ("1E3", 1000), ("1e+3", 1000), ("5e-3", Fraction(1, 200)),
    ("1.5Gi", 1610612736), ("4Gi", 4294967296), ("512Mi", 536870912), ("64Ki", 65536), ("1Ti", 1099511627776),
    ("1Pi", 1125899906842624), ("1Ei", 1152921504606846976), ("1k", 1000), ("1G", 1000000000),
    ("1T", 10 ** 12), ("1P", 10 ** 15), ("1E", 10 ** 18), ("500m", Fraction(1, 2)), ("1500m", Fraction(3, 2)),
    ("2", 2), ("0", 0), (".5Ki", 512), ("1.", 1), ("+3", 3), ("-1Gi", -1073741824), (" 4Gi ", 4294967296),
    ("100u", Fraction(1, 10000)), ("3n", Fraction(3, 10 ** 9)), (3, 3), (1e9, 1000000000), (1.5, Fraction(3, 2)),
])
def test_quantities_read_like_kubernetes(text, value):
    assert parse_quantity(text) == value


@pytest.mark.parametrize("text", [
    "lots", "", "1e", "1.2.3", "4GB", "1K", "1gi", "1 Gi", "Gi", "1Ki1", "1e1.5", "0x10", "nan", "inf", "8Ei",
    True, None, [1], {"a": 1},
])
def test_what_is_not_a_quantity(text):
    assert parse_quantity(text) is None


@pytest.mark.parametrize("amount, unit, whole", [
    (1024000000, 1024, 1000000), (1000000000, 1024, 976563), (1025, 1024, 2), (1024, 1024, 1), (1, 1024, 1),
    (0, 1024, 0), (Fraction(3, 2), 1, 2),
])
def test_ceil_div_rounds_up_never_down(amount, unit, whole):
    assert ceil_div(amount, unit) == whole
