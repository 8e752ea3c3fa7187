#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Test helper: make a host look like another distribution (its facts only)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: realtime_virt_test_os
short_description: Test helper that sets the OS facts of the host
description:
  - Returns C(os_family), C(distribution) and C(service_mgr) as facts, so a
    test can run a role as if on another distribution. Changes nothing.
options:
  family:
    description: The OS family to report.
    type: str
    required: true
  service_mgr:
    description: The init system to report.
    type: str
    default: openrc
author:
  - realtime.virt contributors (!UNKNOWN)
"""

from ansible.module_utils.basic import AnsibleModule


def main():
    module = AnsibleModule(argument_spec=dict(family=dict(type="str", required=True),
                                              service_mgr=dict(type="str", default="openrc")),
                           supports_check_mode=True)
    family = module.params["family"]
    module.exit_json(changed=False, ansible_facts={"os_family": family, "distribution": family,
                                                   "service_mgr": module.params["service_mgr"]})


if __name__ == "__main__":
    main()
