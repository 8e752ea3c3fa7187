# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The order in which the roles look for their OS variable files (linux-system-roles' order)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.os_vars import FilterModule

OS_VARS_FILES = FilterModule().filters()["os_vars_files"]


@pytest.mark.parametrize("facts, expected", [
    # Debian 12 as setup reports it on a point release, and as a bare major version
    ({"distribution": "Debian", "distribution_version": "12.5", "distribution_major_version": "12",
      "os_family": "Debian"},
     ["Debian_12.5.yml", "Debian_12.yml", "Debian.yml", "default.yml"]),
    ({"distribution": "Debian", "distribution_version": "12", "distribution_major_version": "12",
      "os_family": "Debian"},
     ["Debian_12.yml", "Debian.yml", "default.yml"]),
    # RHEL 9.4: the distribution is the family
    ({"distribution": "RedHat", "distribution_version": "9.4", "distribution_major_version": "9",
      "os_family": "RedHat"},
     ["RedHat_9.4.yml", "RedHat_9.yml", "RedHat.yml", "default.yml"]),
    # Rocky 9: its own names first, then the RedHat family's
    ({"distribution": "Rocky", "distribution_version": "9.3", "distribution_major_version": "9",
      "os_family": "RedHat"},
     ["Rocky_9.3.yml", "Rocky_9.yml", "Rocky.yml", "RedHat.yml", "default.yml"]),
    ({"distribution": "Rocky", "distribution_version": "9", "distribution_major_version": "9",
      "os_family": "RedHat"},
     ["Rocky_9.yml", "Rocky.yml", "RedHat.yml", "default.yml"]),
    # an unknown OS as setup reports it: no version known
    ({"distribution": "Gentoo", "distribution_version": "NA", "distribution_major_version": "NA",
      "os_family": "Gentoo"},
     ["Gentoo.yml", "default.yml"]),
    # only the family known (the tests' fake OS facts), and nothing known at all
    ({"distribution": "RedHat", "os_family": "RedHat"}, ["RedHat.yml", "default.yml"]),
    ({"os_family": "Suse"}, ["Suse.yml", "default.yml"]),
    ({}, ["default.yml"]),
    ({"distribution": "", "distribution_version": None, "os_family": " "}, ["default.yml"]),
    # a version given as a number
    ({"distribution": "Ubuntu", "distribution_version": 24.04, "distribution_major_version": 24,
      "os_family": "Debian"},
     ["Ubuntu_24.04.yml", "Ubuntu_24.yml", "Ubuntu.yml", "Debian.yml", "default.yml"]),
])
def test_candidates_most_specific_first(facts, expected):
    assert OS_VARS_FILES(facts) == expected


@pytest.mark.parametrize("value", [None, "Debian", ["Debian"], 12])
def test_anything_but_facts_is_refused(value):
    with pytest.raises(AnsibleFilterError) as error:
        OS_VARS_FILES(value)
    assert str(error.value).startswith("os_vars_files: the input is %r, not a dictionary of facts. Fix: pass ansible_facts"
                                       % (value,))
