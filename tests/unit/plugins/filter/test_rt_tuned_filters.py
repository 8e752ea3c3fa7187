# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""rt_tuned_profiles and rt_tuned_active: tuned-adm output as tuned 2.20+ prints it."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type


import pytest

from ansible_collections.realtime.virt.plugins.filter.rt_host import FilterModule as HostFilters  # noqa: E402

F = HostFilters().filters()

# Captured from tuned 2.20 on Debian 12 without the daemon (stdout only; the
# "Cannot talk to TuneD daemon via DBus" line goes to stderr), shortened.
DEBIAN_NO_DAEMON = """Available profiles:
- balanced                    - General non-specialized tuned profile
- cpu-partitioning-powersave  - Optimize for CPU partitioning with additional powersave
- realtime                    - Optimize for realtime workloads
- realtime-virtual-host       - Optimize for KVM guests running realtime workloads
No current active profile.
"""

# The daemon runs (DBus): the same list, then the active and post-loaded profiles.
WITH_DAEMON = """Available profiles:
- realtime-virtual-host       - Optimize for KVM guests running realtime workloads
- virtual-host                - Optimize for running KVM guests
Current active profile: realtime-virtual-host
Current post-loaded profile: my-extra
"""


@pytest.mark.parametrize("text, names", [
    (DEBIAN_NO_DAEMON, ["balanced", "cpu-partitioning-powersave", "realtime", "realtime-virtual-host"]),
    (WITH_DAEMON, ["realtime-virtual-host", "virtual-host"]),
    # a profile without a summary is "- <name>" alone
    ("Available profiles:\n- bare\n- next                        - Summary\n", ["bare", "next"]),
    # a name of 28 characters or more gets no padding: its summary follows at once
    ("Available profiles:\n- abcdefghij-abcdefghij-abcdef- A long one\n- short                       - x\n",
     ["abcdefghij-abcdefghij-abcdef", "short"]),
    # a name of 27 characters still gets one space
    ("Available profiles:\n- abcdefghij-abcdefghij-abcde - x\n", ["abcdefghij-abcdefghij-abcde"]),
    # no list at all (tuned-adm failed), or lines before the header
    ("", []),
    ("Cannot talk to TuneD daemon via DBus.\n- not-a-profile\n", []),
    # the list ends at the first line that is no entry
    ("Available profiles:\n- one                         - a\nIt seems that tuned daemon is not running\n- two\n", ["one"]),
])
def test_listed_profiles(text, names):
    assert F["rt_tuned_profiles"](text) == names


def test_listed_profiles_is_not_a_substring_test():
    # realtime-virtual-host being listed says nothing about realtime
    assert "realtime" not in F["rt_tuned_profiles"]("Available profiles:\n- realtime-virtual-host       - x\n")


@pytest.mark.parametrize("text, names", [
    ("Current active profile: realtime-virtual-host\n", ["realtime-virtual-host"]),
    ("Current active profile: realtime-virtual-host my-extra\nCurrent post-loaded profile: my-extra\n",
     ["realtime-virtual-host", "my-extra"]),
    ("No current active profile.\n", []),
    ("It seems that tuned daemon is not running, preset profile is not activated.\nPreset profile: realtime\n", []),
    (WITH_DAEMON, ["realtime-virtual-host"]),
    ("", []),
])
def test_active_profiles(text, names):
    assert F["rt_tuned_active"](text) == names
