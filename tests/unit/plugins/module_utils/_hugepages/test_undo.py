# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the hugepages undo reads before it undoes: the running domains on
hugepages with their page size, the fstab lines written as the role writes them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.hugepages import FilterModule
from ansible_collections.realtime.virt.plugins.module_utils._hugepages.undo import domain_pages, fstab_written, page_size_text

FILTERS = FilterModule().filters()


@pytest.mark.parametrize("kib, expected", [
    (1048576, "1G"), (2097152, "2G"), (1572864, "1G"), (2048, "2M"), (1024, "1M"), (1536, "1M"),
    (64, "64kB"), (1, "1kB"), (0, "default-size"), (None, "default-size"), ("", "default-size"),
    ("2048", "2M"), ("2048.9", "2M"), (2048.9, "2M"), ("big", "default-size"),
])
def test_page_size_text(kib, expected):
    assert page_size_text(kib) == expected


def test_domain_pages():
    domains = [
        {"name": "vm1", "running": True, "hugepages": {"page_size_kib": 1048576}},
        {"name": "vm2", "running": True, "hugepages": {"page_size_kib": 2048}},
        {"name": "vm3", "running": True, "hugepages": {"page_size_kib": None}},
        {"name": "vm4", "running": True, "hugepages": {}},
        {"name": "vm5", "running": True, "hugepages": True},
    ]
    expected = ["vm1 (1G pages)", "vm2 (2M pages)", "vm3 (default-size pages)", "vm4 (default-size pages)",
                "vm5 (default-size pages)"]
    assert domain_pages(domains) == expected
    assert FILTERS["hugepages_domain_pages"](domains) == expected
    assert FILTERS["hugepages_domain_pages"]([]) == []


MOUNTS = [
    {"path": "/dev/hugepages1G", "opts": "pagesize=1G"},
    {"path": "/dev/hugepages2M", "opts": "pagesize=2M,mode=1770"},
    {"path": "/mnt/huge", "opts": "pagesize=2M"},
]


@pytest.mark.parametrize("fstab, expected", [
    ("hugetlbfs /dev/hugepages1G hugetlbfs pagesize=1G 0 0\n", ["/dev/hugepages1G"]),
    ("  hugetlbfs\t/dev/hugepages1G  hugetlbfs  pagesize=1G  \n", ["/dev/hugepages1G"]),
    ("hugetlbfs /dev/hugepages1G hugetlbfs pagesize=1G 0\n", ["/dev/hugepages1G"]),
    # three numbers, other options, another path or a comment are not the role's line
    ("hugetlbfs /dev/hugepages1G hugetlbfs pagesize=1G 0 0 0\n", []),
    ("hugetlbfs /dev/hugepages1G hugetlbfs pagesize=1G,mode=1770 0 0\n", []),
    ("hugetlbfs /dev/hugepages1Gx hugetlbfs pagesize=1G 0 0\n", []),
    ("# hugetlbfs /dev/hugepages1G hugetlbfs pagesize=1G 0 0\n", []),
    # two mounts found, named in the order of the mounts
    ("hugetlbfs /mnt/huge hugetlbfs pagesize=2M 0 0\nhugetlbfs /dev/hugepages2M hugetlbfs pagesize=2M,mode=1770\n",
     ["/dev/hugepages2M", "/mnt/huge"]),
    ("UUID=1 / ext4 defaults 0 1\nhugetlbfs /mnt/huge hugetlbfs pagesize=2M 0 0\n"
     "hugetlbfs /dev/hugepages1G hugetlbfs pagesize=1G\n", ["/dev/hugepages1G", "/mnt/huge"]),
    ("", []),
])
def test_fstab_written(fstab, expected):
    assert fstab_written(fstab, MOUNTS) == expected
    assert FILTERS["hugepages_fstab_written"](fstab, MOUNTS) == expected


def test_regex_characters_of_a_path_are_literal():
    mounts = [{"path": "/mnt/a.b", "opts": "pagesize=2M"}]
    assert fstab_written("hugetlbfs /mnt/axb hugetlbfs pagesize=2M\n", mounts) == []
    assert fstab_written("hugetlbfs /mnt/a.b hugetlbfs pagesize=2M\n", mounts) == ["/mnt/a.b"]


@pytest.mark.parametrize("call, words", [
    (lambda: FILTERS["hugepages_domain_pages"]("vm1"), "hugepages_domain_pages: 'vm1' is not a list of domains. Fix:"),
    (lambda: FILTERS["hugepages_fstab_written"](["x"], MOUNTS),
     "hugepages_fstab_written: the input is ['x'], not the text of /etc/fstab. Fix:"),
    (lambda: FILTERS["hugepages_fstab_written"]("", "/mnt/huge"), "hugepages_fstab_written: '/mnt/huge' is not a list of mounts. Fix:"),
    (lambda: FILTERS["hugepages_fstab_written"]("", [{"path": "/mnt/huge"}]),
     "hugepages_fstab_written: mounts[0]={'path': '/mnt/huge'} has no path and opts strings. Fix:"),
])
def test_bad_input_is_refused(call, words):
    with pytest.raises(AnsibleFilterError) as error:
        call()
    assert str(error.value).startswith(words)
