# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Sizes and their units: the one parser of the collection (pure).

Two readings exist and each has one entry point here:

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
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

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
