# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import (
    CpusetError,
    format_cpuset,
    parse_cpumask,
    parse_cpuset,
    parse_kernel_cpulist,
)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("0", [0]),
        ("7", [7]),
        ("0-3", [0, 1, 2, 3]),
        ("0-3,8", [0, 1, 2, 3, 8]),
        ("8,0-3", [0, 1, 2, 3, 8]),
        ("0-7,^2", [0, 1, 3, 4, 5, 6, 7]),
        ("^2,0-7", [0, 1, 3, 4, 5, 6, 7]),
        ("0-3,^1", [0, 2, 3]),
        # KubeVirt: ^N always removes N, even when a later token adds it back.
        ("0-1,^1", [0]),
        ("^1,0-3", [0, 2, 3]),
        ("0-3,2-5", [0, 1, 2, 3, 4, 5]),
        ("1,1,1", [1]),
        ("2-15,18-31", list(range(2, 16)) + list(range(18, 32))),
        ("5-5", [5]),
        ("0-511", list(range(512))),
    ],
)
def test_parse_valid(text, expected):
    assert parse_cpuset(text) == expected


@pytest.mark.parametrize(
    "text, token",
    [
        ("3-1", "3-1"),
        ("x", "x"),
        ("1--2", "1--2"),
        ("-1", "-1"),
        ("0-3,-2", "-2"),
        ("1,,2", ""),
        ("1,", ""),
        ("^", "^"),
        ("^1-3", "^1-3"),
        ("^x", "^x"),
        ("0-", "0-"),
        ("a-b", "a-b"),
        ("1.5", "1.5"),
        ("0x3", "0x3"),
        ("0-3,^1^2", "^1^2"),
    ],
)
def test_parse_invalid_names_token(text, token):
    with pytest.raises(CpusetError) as info:
        parse_cpuset(text)
    assert info.value.token == token
    assert repr(token) in str(info.value)
    assert info.value.value == text


@pytest.mark.parametrize(
    "text, empty, expected",
    [
        ("", None, []),
        ("", [0, 1, 2, 3], [0, 1, 2, 3]),
        ("  ", [0, 1], [0, 1]),
        ("^1", [0, 1, 2], [0, 2]),
        ("^0,^3", [0, 1, 2, 3], [1, 2]),
        ("^1", None, []),
        ("2", [0, 1, 2, 3], [2]),
    ],
)
def test_empty_means_what_the_caller_says(text, empty, expected):
    assert parse_cpuset(text, empty=empty) == expected


def test_exclusion_can_be_refused():
    with pytest.raises(CpusetError) as info:
        parse_cpuset("0-3,^1", allow_exclusion=False)
    assert info.value.token == "^1"


def test_maximum_is_enforced_naming_the_token():
    assert parse_cpuset("0-3", maximum=3) == [0, 1, 2, 3]
    with pytest.raises(CpusetError) as info:
        parse_cpuset("0,2-4", maximum=3)
    assert info.value.token == "2-4"
    assert "4" in str(info.value)


@pytest.mark.parametrize(
    "value, expected",
    [
        ([3, 1, 2], [1, 2, 3]),
        ((0, 0, 5), [0, 5]),
        (4, [4]),
        (["2", "1"], [1, 2]),
        ([], []),
        (None, []),
    ],
)
def test_parse_lists(value, expected):
    assert parse_cpuset(value) == expected


@pytest.mark.parametrize("value", [[-1], [1.5], ["x"], [True], True, 1.5, {"a": 1}])
def test_parse_rejects_bad_lists_and_types(value):
    with pytest.raises(CpusetError):
        parse_cpuset(value)


@pytest.mark.parametrize(
    "ids, text",
    [
        ([], ""),
        ([0], "0"),
        ([0, 1], "0-1"),
        ([0, 1, 2, 3, 8], "0-3,8"),
        ([8, 3, 2, 1, 0], "0-3,8"),
        ([1, 3, 5], "1,3,5"),
        ([0, 1, 2, 4, 5, 6, 9], "0-2,4-6,9"),
        (list(range(2, 16)) + list(range(18, 32)), "2-15,18-31"),
        ("0-7,^2", "0-1,3-7"),
    ],
)
def test_format(ids, text):
    assert format_cpuset(ids) == text


@pytest.mark.parametrize(
    "text",
    ["0", "0-3,8", "0-1,3-7", "1,3,5", "2-15,18-31", "0-511", "0,2-4,6-8,10"],
)
def test_round_trip(text):
    assert format_cpuset(parse_cpuset(text)) == text
    assert parse_cpuset(format_cpuset(parse_cpuset(text))) == parse_cpuset(text)


def test_kernel_cpulist_never_takes_exclusions():
    assert parse_kernel_cpulist("0-3,8\n") == [0, 1, 2, 3, 8]
    assert parse_kernel_cpulist("\n") == []
    with pytest.raises(CpusetError):
        parse_kernel_cpulist("^1")


@pytest.mark.parametrize(
    "mask, ids",
    [
        ("f", [0, 1, 2, 3]),
        ("00000000,0000000f", [0, 1, 2, 3]),
        ("00000001,00000000", [32]),
        ("0", []),
        ("", []),
        ("a", [1, 3]),
    ],
)
def test_cpumask(mask, ids):
    assert parse_cpumask(mask) == ids


def test_cpumask_rejects_garbage():
    with pytest.raises(CpusetError):
        parse_cpumask("zz")
