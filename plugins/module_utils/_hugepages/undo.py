# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What hugepages_state=absent reads before it undoes (pure): the running
domains on hugepages, named with their page size, and the /etc/fstab lines
written exactly as the role writes them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

KIB_PER_GIB = 1048576
KIB_PER_MIB = 1024


def _as_int(value):
    """An integer as Jinja's ``int`` filter reads it: 0 for none or what is no number."""
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        try:
            return int(float(value))
        except (TypeError, ValueError):
            return 0


def page_size_text(kib):
    """``1G``, ``2M``, ``64kB`` (whole units, rounded down), or ``default-size`` for 0 or none."""
    kib = _as_int(kib)
    if kib >= KIB_PER_GIB:
        return "%dG" % (kib // KIB_PER_GIB)
    if kib >= KIB_PER_MIB:
        return "%dM" % (kib // KIB_PER_MIB)
    if kib:
        return "%dkB" % kib
    return "default-size"


def domain_pages(domains):
    """``"name (2M pages)"`` for each domain of libvirt_rt_domain_info, in order."""
    return ["%s (%s pages)" % (domain.get("name"), page_size_text(_page_size_kib(domain)))
            for domain in domains or ()]


def _page_size_kib(domain):
    hugepages = domain.get("hugepages")
    return hugepages.get("page_size_kib") if isinstance(hugepages, dict) else 0


def fstab_written(text, mounts):
    """The paths of ``mounts`` (``path``, ``opts``) that /etc/fstab's ``text``
    has a line for, written as the role writes it:
    ``hugetlbfs <path> hugetlbfs <opts>`` and at most two numbers after."""
    lines = (text or "").splitlines()
    found = []
    for mount in mounts or ():
        line_re = re.compile(r"^\s*hugetlbfs\s+" + re.escape(mount["path"]) + r"\s+hugetlbfs\s+"
                             + re.escape(mount["opts"]) + r"(\s+\d+){0,2}\s*$")
        if any(line_re.match(line) for line in lines):
            found.append(mount["path"])
    return found
