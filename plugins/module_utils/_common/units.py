# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Sizes and their units: the one parser of the collection (pure).

Three readings exist and each has one entry point here:

* :func:`to_kib` reads a number with a ``unit`` attribute the way libvirt
  does (``virScaleInteger``): the unit is case-insensitive; ``b``,
  ``byte``, ``bytes`` are bytes; a letter alone or followed by ``iB`` is a
  power of 1024 (``k``, ``KiB``, ``M``, ``Mi``...); a letter followed by
  ``B`` is a power of 1000 (``KB``, ``MB``...).  A missing unit is KiB.
  Everything that reads or compares domain XML uses it, so applying and
  verifying never read the same XML differently.
* :func:`page_size_kib` reads a page size as the kernel names it
  (``hugepages-2048kB``, ``pagesize=2M``): page sizes are powers of two,
  and the kernel's ``kB`` means KiB, so every suffix is binary there.
* :func:`parse_quantity` reads a Kubernetes resource quantity (``1024M``,
  ``4Gi``, ``1e9``, ``1.5Gi``, ``500m``) exactly, as a Fraction: KubeVirt
  manifests give sizes and CPU counts this way.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
from fractions import Fraction

_PREFIXES = "kmgtpe"
_NUMBER_UNIT = re.compile(r"^\s*([0-9]+)\s*([A-Za-z]*)\s*$")


def unit_bytes(unit, binary_only=False):
    """Bytes in one ``unit`` (libvirt's reading), or None for an unknown unit.

    ``binary_only`` reads ``KB``/``MB``... as powers of 1024 (the kernel's
    page-size names) instead of 1000.
    """
    text = (unit or "").strip().lower()
    if text in ("b", "byte", "bytes"):
        return 1
    if not text or text[0] not in _PREFIXES:
        return None
    rest = text[1:]
    if rest in ("", "i", "ib"):
        base = 1024
    elif rest == "b":
        base = 1024 if binary_only else 1000
    else:
        return None
    return base ** (_PREFIXES.index(text[0]) + 1)


def to_kib(value, unit=None):
    """``value`` in ``unit`` (libvirt's reading, default KiB) as whole KiB, or None."""
    try:
        number = float(str(value).strip())
    except (TypeError, ValueError):
        return None
    factor = unit_bytes(unit or "KiB")
    if factor is None:
        return None
    return int(round(number * factor / 1024.0))


def page_size_kib(value, bare_unit="KiB"):
    """A page size (``2M``, ``1G``, ``1Gi``, ``2048kB``, ``2048``) in KiB, or None.

    An int, or a number without a unit, is in ``bare_unit`` (hugetlbfs'
    ``pagesize=`` option gives bytes).  Sizes below one KiB are None.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        value = str(value)
    match = _NUMBER_UNIT.match(value) if isinstance(value, str) else None
    if not match:
        return None
    factor = unit_bytes(match.group(2) or bare_unit, binary_only=True)
    if factor is None:
        return None
    size = int(match.group(1)) * factor
    if size < 1024 or size % 1024:
        return None
    return size // 1024


def size_label(kib):
    """2048 -> ``2M``, 1048576 -> ``1G``, 64 -> ``64K`` (the form users write)."""
    if kib % (1024 * 1024) == 0:
        return "%dG" % (kib // (1024 * 1024))
    if kib % 1024 == 0:
        return "%dM" % (kib // 1024)
    return "%dK" % kib


# Kubernetes resource quantities, as k8s.io/apimachinery reads them
# (pkg/api/resource/quantity.go, ParseQuantity and its grammar comment;
# suffix.go, newSuffixer): an optional sign, then digits with an optional
# fraction ("1", "1.5", "1.", ".5"), then one suffix: binary Ki Mi Gi Ti Pi Ei
# (powers of 1024), decimal n u m "" k M G T P E (powers of 1000; "m" is
# milli, as in CPU's "500m"), or a decimal exponent "e"/"E" with an optional
# sign and digits ("1e9", "1E3", "5e-3").  "1E" alone is the exa suffix.
# Surrounding white space is trimmed (Quantity.UnmarshalJSON).  Kubernetes
# holds no quantity beyond 2**63-1 in magnitude; larger ones are refused here.
_QUANTITY = re.compile(r"^([+-]?)([0-9]+\.?[0-9]*|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$")
_BINARY_SI = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL_SI = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
QUANTITY_MAX = 2 ** 63 - 1


def parse_quantity(value):
    """A Kubernetes quantity (``4Gi``, ``1024M``, ``1e9``, ``1.5Gi``, ``500m``, ``2``) as an exact Fraction.

    ``value`` is a string, or an int or float as YAML gives an unquoted
    number.  None when it is not a quantity (booleans, NaN, ``1.2.3``,
    ``4GB``, ``1e``) or beyond Kubernetes' range.
    """
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    text = repr(value) if isinstance(value, float) else str(value)
    match = _QUANTITY.match(text.strip())
    if not match:
        return None
    sign, number, suffix = match.group(1), match.group(2), match.group(3) or ""
    amount = Fraction(number + "0" if number.endswith(".") else number)
    if suffix in _BINARY_SI:
        amount *= 1024 ** _BINARY_SI[suffix]
    else:
        exponent = _DECIMAL_SI[suffix] if suffix in _DECIMAL_SI else int(suffix[1:])
        amount *= Fraction(10) ** exponent
    if abs(amount) > QUANTITY_MAX:
        return None
    return -amount if sign == "-" else amount


def ceil_div(amount, unit):
    """The whole number of ``unit`` that holds ``amount`` (a Fraction or int): rounded up, never less."""
    return -(-Fraction(amount) // unit)
