# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters that convert between CPU set strings and lists of CPU ids."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import (
    CpusetError,
    format_cpuset,
    parse_cpuset,
)


def cpuset_list(value, all_cpus=None):
    """``"0-3,^1"`` -> ``[0, 2, 3]``; ``all_cpus`` is what an empty set means."""
    try:
        empty = parse_cpuset(all_cpus) if all_cpus is not None else None
        return parse_cpuset(value, empty=empty)
    except CpusetError as error:
        raise AnsibleFilterError(
            "cpuset_list: %s. Use ids, ranges and exclusions such as '0-3,8' or '0-7,^2'." % error
        )


def cpuset_string(value):
    """``[0, 1, 2, 3, 8]`` -> ``"0-3,8"``."""
    try:
        return format_cpuset(value)
    except CpusetError as error:
        raise AnsibleFilterError(
            "cpuset_string: %s. Pass a list of non-negative integer CPU ids or a CPU set string." % error
        )


class FilterModule(object):
    """CPU set filters."""

    def filters(self):
        return {
            "cpuset_list": cpuset_list,
            "cpuset_string": cpuset_string,
        }
