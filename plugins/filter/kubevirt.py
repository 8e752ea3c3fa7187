# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""KubeVirt manifests as rt_domain_domains entries."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible.utils.display import Display

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._kubevirt.convert import convert

UNMAPPED = ("warn", "fail", "ignore")


def kubevirt_vm_to_rt_domain(manifests, unmapped="warn"):
    """One rt_domain_domains entry per KubeVirt VirtualMachine(Instance); say what plain libvirt cannot take."""
    if unmapped not in UNMAPPED:
        raise AnsibleFilterError("kubevirt_vm_to_rt_domain: unmapped=%r: unknown mode. Fix: use warn, fail or "
                                 "ignore" % (unmapped,))
    single = isinstance(manifests, dict)
    items = [manifests] if single else manifests
    if not isinstance(items, list):
        items = list(items) if not isinstance(items, (str, bytes)) and hasattr(items, "__iter__") else [items]
    entries, left = [], []
    for index, manifest in enumerate(items):
        label = "" if single else "manifest %d: " % index
        try:
            entry, fields = convert(manifest)
        except OptionError as error:
            raise AnsibleFilterError("kubevirt_vm_to_rt_domain: %s%s" % (label, error))
        entries.append(entry)
        left.extend("%s: %s" % (entry["name"], field) for field in fields)
    if left and unmapped == "fail":
        raise AnsibleFilterError("kubevirt_vm_to_rt_domain: plain libvirt cannot take these fields: %s. Fix: remove "
                                 "them, or pass unmapped='warn' to convert the rest" % "; ".join(left))
    if left and unmapped == "warn":
        Display().warning("kubevirt_vm_to_rt_domain: not converted (plain libvirt cannot take them): %s"
                          % "; ".join(left))
    return entries


class FilterModule(object):
    def filters(self):
        return {"kubevirt_vm_to_rt_domain": kubevirt_vm_to_rt_domain}
