# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.rt_validate import rt_validate_duration
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._validate.duration import format_duration, parse_duration


@pytest.mark.parametrize("value, seconds", [
    (10, 10), ("10", 10), ("30s", 30), ("10m", 600), ("12h", 43200), ("1d", 86400), (" 2 M ", 120), ("1H", 3600),
])
def test_durations_in_seconds(value, seconds):
    assert parse_duration(value) == seconds


@pytest.mark.parametrize("value, why", [
    ("ten", "expected a duration"), ("12 hours", "expected a duration"), ("1.5h", "expected a duration"),
    (1.5, "expected a duration"), (True, "expected a duration"), (None, "expected a duration"),
    ("-5", "expected a duration"), (0, "at least one second"), ("0m", "at least one second"),
])
def test_what_is_no_duration_is_refused_naming_the_option(value, why):
    with pytest.raises(OptionError) as error:
        parse_duration(value)
    assert str(error.value).startswith("rt_validate_duration=%r: " % (value,))
    assert why in str(error.value)
    assert "Fix: " in str(error.value)


@pytest.mark.parametrize("seconds, text", [
    (1, "1s"), (45, "45s"), (60, "1m"), (600, "10m"), (5400, "1h 30m"), (43200, "12h"), (90061, "1d 1h 1m 1s"),
])
def test_durations_as_a_person_says_them(seconds, text):
    assert format_duration(seconds) == text


def test_filter_gives_seconds_and_text():
    # waited for 120 s past its end before it counts as not finished
    assert rt_validate_duration("12h") == {"seconds": 43200, "text": "12h", "wait_seconds": 43320}


def test_filter_names_another_option():
    with pytest.raises(AnsibleFilterError, match=r"rt_validate_duration: soak='x': expected a duration"):
        rt_validate_duration("x", option="soak")
