# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.cpuset import FilterModule


FILTERS = FilterModule().filters()


def test_filters_are_registered():
    assert sorted(FILTERS) == ["cpuset_list", "cpuset_string"]


@pytest.mark.parametrize(
    "value, all_cpus, expected",
    [
        ("0-3,8", None, [0, 1, 2, 3, 8]),
        ("0-7,^2", None, [0, 1, 3, 4, 5, 6, 7]),
        ("", "0-3", [0, 1, 2, 3]),
        ("^0", "0-3", [1, 2, 3]),
        ("", None, []),
        ([5, 1], None, [1, 5]),
    ],
)
def test_cpuset_list(value, all_cpus, expected):
    assert FILTERS["cpuset_list"](value, all_cpus=all_cpus) == expected


@pytest.mark.parametrize("bad", ["3-1", "x", "1--2", "-4"])
def test_cpuset_list_error_names_token_and_fix(bad):
    with pytest.raises(AnsibleFilterError) as info:
        FILTERS["cpuset_list"](bad)
    message = str(info.value)
    assert repr(bad) in message
    assert "0-3,8" in message


@pytest.mark.parametrize(
    "value, expected",
    [([3, 1, 2, 8, 0], "0-3,8"), ([], ""), ("2,1,0", "0-2")],
)
def test_cpuset_string(value, expected):
    assert FILTERS["cpuset_string"](value) == expected


def test_cpuset_string_rejects_negative_ids():
    with pytest.raises(AnsibleFilterError) as info:
        FILTERS["cpuset_string"]([1, -2])
    assert "-2" in str(info.value)
