# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters of the sriov role's undo (the qat role's undo uses them too)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible.module_utils.common.collections import is_sequence, is_string

from ansible_collections.realtime.virt.plugins.module_utils._sriov.inuse import vf_users
from ansible_collections.realtime.virt.plugins.module_utils._sriov.statefile import recorded_pfs


def _strings(name, value, what, fix):
    if value is None:
        return []
    if not is_sequence(value) or not all(is_string(item) for item in value):
        raise AnsibleFilterError("%s: %r is not a list of %s. Fix: %s" % (name, value, what, fix))
    return list(value)


def sriov_recorded_pfs(text, removed=None):
    """A boot-time file's text -> the PFs its lines still record once the lines of ``removed`` go."""
    removed = _strings("sriov_recorded_pfs", removed, "PCI addresses", "pass the removed PFs' addresses")
    if text is None or is_string(text):
        return recorded_pfs(text or "", removed)
    raise AnsibleFilterError("sriov_recorded_pfs: the input is %r, not the text of a state file. "
                             "Fix: pass the file's content (slurp's content | b64decode)" % (text,))


def sriov_vf_users(domains, going, removed_domains=None):
    """libvirt_rt_domain_info's domains -> ``"name (VF, VF)"`` of each running one holding a VF of ``going``."""
    if domains is None:
        domains = []
    if not is_sequence(domains) or not all(isinstance(domain, Mapping) for domain in domains):
        raise AnsibleFilterError("sriov_vf_users: the input is %r, not a list of domains. Fix: pass "
                                 "libvirt_rt_domain_info's domains" % (domains,))
    going = _strings("sriov_vf_users", going, "VF PCI addresses", "pass the addresses of the VFs the undo removes")
    removed_domains = _strings("sriov_vf_users", removed_domains, "domain names",
                               "pass the names of the domains the undo removes itself")
    return vf_users(domains, going, removed_domains)


class FilterModule(object):
    """SR-IOV undo filters."""

    def filters(self):
        return {"sriov_recorded_pfs": sriov_recorded_pfs, "sriov_vf_users": sriov_vf_users}
