# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""KubeVirt manifests as rt_domain_domains entries, and the way back."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible.utils.display import Display

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._kubevirt.convert import convert
from ansible_collections.realtime.virt.plugins.module_utils._kubevirt.instancetype import catalog, expand
from ansible_collections.realtime.virt.plugins.module_utils._kubevirt.manifest import QAT_RESOURCE, to_vm

UNMAPPED = ("warn", "fail", "ignore")


def _items(value):
    """(one dict given, the list of items)."""
    if isinstance(value, dict):
        return True, [value]
    if isinstance(value, list):
        return False, value
    if not isinstance(value, (str, bytes)) and hasattr(value, "__iter__"):
        return False, list(value)
    return False, [value]


def _report(name, what, left, unmapped, fix):
    """Fail or warn, as ``unmapped`` says, naming every field or option left out."""
    if left and unmapped == "fail":
        raise AnsibleFilterError("%s: %s: %s. Fix: %s" % (name, what, "; ".join(left), fix))
    if left and unmapped == "warn":
        Display().warning("%s: %s, so they are left out: %s" % (name, what, "; ".join(left)))


def _mode(name, unmapped):
    if unmapped not in UNMAPPED:
        raise AnsibleFilterError("%s: unmapped=%r: unknown mode. Fix: use warn, fail or ignore" % (name, unmapped))


def kubevirt_vm_to_rt_domain(manifests, unmapped="warn", instancetypes=None):
    """One rt_domain_domains entry per KubeVirt VirtualMachine(Instance); say what plain libvirt cannot take."""
    name = "kubevirt_vm_to_rt_domain"
    _mode(name, unmapped)
    try:
        found = catalog(instancetypes if instancetypes is not None else [])
    except OptionError as error:
        raise AnsibleFilterError("%s: %s" % (name, error))
    single, items = _items(manifests)
    entries, left = [], []
    for index, manifest in enumerate(items):
        try:
            manifest, applied = expand(manifest, found) if isinstance(manifest, dict) else (manifest, [])
            entry, fields = convert(manifest)
        except OptionError as error:
            raise AnsibleFilterError("%s: %s%s" % (name, "" if single else "manifest %d: " % index, error))
        entries.append(entry)
        left.extend("%s: %s" % (entry["name"], field) for field in applied + fields)
    _report(name, "plain libvirt cannot take these fields", left, unmapped,
            "remove them, or pass unmapped='warn' to convert the rest")
    return entries


def rt_domain_to_kubevirt_vm(domains, unmapped="warn", namespace=None, qat_resource=QAT_RESOURCE):
    """One KubeVirt VirtualMachine per rt_domain_domains entry; say what KubeVirt has no form for."""
    name = "rt_domain_to_kubevirt_vm"
    _mode(name, unmapped)
    for option, value in (("namespace", namespace), ("qat_resource", qat_resource)):
        if value is not None and (not isinstance(value, str) or not value):
            raise AnsibleFilterError("%s: %s=%r: must be a non-empty string. Fix: write it as Kubernetes names it"
                                     % (name, option, value))
    if not qat_resource or "/" not in qat_resource:
        raise AnsibleFilterError("%s: qat_resource=%r: not a device plugin resource name. Fix: write "
                                 "qat.intel.com/generic (QAT 1.x) or qat.intel.com/cy (QAT Gen4)" % (name, qat_resource))
    single, items = _items(domains)
    manifests, left = [], []
    for index, entry in enumerate(items):
        try:
            manifest, fields = to_vm(entry, "rt_domain_domains" if single else "rt_domain_domains[%d]" % index,
                                     namespace, qat_resource)
        except OptionError as error:
            raise AnsibleFilterError("%s: %s" % (name, error))
        manifests.append(manifest)
        left.extend(fields)
    _report(name, "KubeVirt has no form for these options", left, unmapped,
            "remove them, or pass unmapped='warn' to write the rest")
    return manifests


class FilterModule(object):
    def filters(self):
        return {"kubevirt_vm_to_rt_domain": kubevirt_vm_to_rt_domain,
                "rt_domain_to_kubevirt_vm": rt_domain_to_kubevirt_vm}
