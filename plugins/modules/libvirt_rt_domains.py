#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: libvirt_rt_domains
short_description: Converge all of a host's real-time libvirt domains in one task
version_added: 0.1.0
description:
  - Does for every item of O(domains) what M(realtime.virt.libvirt_rt_domain)
    does for one domain, with the same code (checks, rendering, comparison with
    libvirt's inactive XML, define, start, stop, removal), in one task with one
    libvirt connection and one read of the host's facts, and per domain only the
    work that domain needs. On a host with many domains this avoids Ansible's
    cost per loop item, which is most of the time of a loop over
    M(realtime.virt.libvirt_rt_domain) (see the collection's C(docs/performance.md)).
  - Each item is validated on its own against the options of
    M(realtime.virt.libvirt_rt_domain), then checked against the host. An item
    that fails is never defined, and its errors name it by position and name
    (C(domains[2]) and the name of that item).
    The other items still converge unless O(fail_fast=true); the task then fails
    at the end, naming every failed domain and why.
  - Check mode changes nothing and predicts C(changed) of every domain exactly;
    diff mode returns the inactive XML before and after of every domain that
    changes (or would).
  - Every domain it converges carries a mark in its libvirt C(<metadata>) with
    O(owner). With O(exclusive=true) the marked domains of the same O(owner)
    that no item lists are reported, and removed with O(remove_unlisted=true).
    A domain without that mark is never reported or removed.
  - For a single domain use M(realtime.virt.libvirt_rt_domain).
author:
  - realtime.virt contributors (!UNKNOWN)
requirements:
  - lxml
extends_documentation_fragment:
  - realtime.virt.attributes
  - realtime.virt.attributes.actiongroup_libvirt
  - realtime.virt.libvirt_connection
notes:
  - The mark is C(<rtv:managed xmlns:rtv="urn:realtime-virt:managed:1" owner="..."/>)
    under C(<metadata>). A domain defined earlier without it gets it, without a
    redefinition, the first time it is converged here (reported as a change).
    M(realtime.virt.libvirt_rt_domain) keeps a mark it finds but never adds one.
  - Unlisted marked domains are not removed when an item failed validation,
    since the list may then miss a domain it was meant to keep.
  - The notes of M(realtime.virt.libvirt_rt_domain) on locked memory and
    powering domains off apply to every item.
options:
  domains:
    description:
      - The domains, each a mapping of the options of M(realtime.virt.libvirt_rt_domain),
        validated item by item (the suboptions below; each is documented in full
        with that module).
      - Items are converged in list order. Two items with the same O(domains[].name) both fail.
    type: list
    elements: raw
    required: true
    suboptions:
      name:
        description: Name of the domain. See O(realtime.virt.libvirt_rt_domain#module:name).
        type: str
        required: true
      uri:
        description:
          - May only repeat the task's O(uri); all items go through its one connection.
        type: str
      state:
        description: V(present), V(running), V(stopped) or V(absent). See O(realtime.virt.libvirt_rt_domain#module:state).
        type: str
        choices: [present, running, stopped, absent]
        default: present
      domain_type:
        description: V(kvm), or V(qemu) (TCG). See O(realtime.virt.libvirt_rt_domain#module:domain_type).
        type: str
        choices: [kvm, qemu]
        default: kvm
      machine:
        description: Machine type. See O(realtime.virt.libvirt_rt_domain#module:machine).
        type: str
      memory_mib:
        description: Guest memory in MiB. See O(realtime.virt.libvirt_rt_domain#module:memory_mib).
        type: int
      memory_kib:
        description: Guest memory in KiB, instead of O(domains[].memory_mib). See O(realtime.virt.libvirt_rt_domain#module:memory_kib).
        type: int
        version_added: 1.1.0
      vcpus:
        description: Number of vCPUs. See O(realtime.virt.libvirt_rt_domain#module:vcpus).
        type: int
      cpu:
        description:
          - CPU mode, model, features, topology, pinning, emulator CPUs and guest NUMA, with the
            suboptions of O(realtime.virt.libvirt_rt_domain#module:cpu).
        type: dict
      realtime:
        description:
          - Real-time tuning (mask, scheduler, priority), with the suboptions of
            O(realtime.virt.libvirt_rt_domain#module:realtime).
        type: dict
      memory:
        description:
          - Hugepages, locking and NUMA policy of the memory, with the suboptions of
            O(realtime.virt.libvirt_rt_domain#module:memory).
        type: dict
      rng:
        description: A virtio-rng device, with the suboptions of O(realtime.virt.libvirt_rt_domain#module:rng).
        type: dict
      rng_profiles:
        description: Extra RNG profiles. See O(realtime.virt.libvirt_rt_domain#module:rng_profiles).
        type: dict
        default: {}
      hostdevs:
        description: PCI devices passed through by address. See O(realtime.virt.libvirt_rt_domain#module:hostdevs).
        type: list
        elements: str
        default: []
      iothreads:
        description: Number of IO threads. See O(realtime.virt.libvirt_rt_domain#module:iothreads).
        type: int
      cachetune:
        description: Intel RDT cache allocation. See O(realtime.virt.libvirt_rt_domain#module:cachetune).
        type: list
        elements: dict
      memorytune:
        description: Intel RDT memory bandwidth allocation. See O(realtime.virt.libvirt_rt_domain#module:memorytune).
        type: list
        elements: dict
      hardening:
        description:
          - Guest hardening, on by default for real-time domains, with the suboptions of
            O(realtime.virt.libvirt_rt_domain#module:hardening).
        type: dict
      boot:
        description: Direct kernel boot, with the suboptions of O(realtime.virt.libvirt_rt_domain#module:boot).
        type: dict
      disks:
        description: File-backed disks, with the suboptions of O(realtime.virt.libvirt_rt_domain#module:disks).
        type: list
        elements: dict
        default: []
      interfaces:
        description: Network interfaces, with the suboptions of O(realtime.virt.libvirt_rt_domain#module:interfaces).
        type: list
        elements: dict
        default: []
      serial_log:
        description: File of the first serial port. See O(realtime.virt.libvirt_rt_domain#module:serial_log).
        type: path
      base_xml:
        description: Existing domain XML to merge into. See O(realtime.virt.libvirt_rt_domain#module:base_xml).
        type: str
      restart:
        description: Restart a running domain whose definition changed. See O(realtime.virt.libvirt_rt_domain#module:restart).
        type: bool
        default: false
      autostart:
        description:
          - libvirt's autostart flag; unset leaves it as it is. See O(realtime.virt.libvirt_rt_domain#module:autostart).
          - Refused for an item with V(state=absent); a value in O(defaults) does not apply to such items.
        type: bool
  defaults:
    description:
      - "Values for the options an item leaves out, for example C({domain_type: qemu, restart: true})."
      - Top level only; an item's own mapping (O(domains[].cpu), O(domains[].memory)...) replaces
        the default mapping whole. V(name) and V(uri) cannot be given here.
      - Checked once, before any item; a wrong value fails the task before anything is touched.
    type: dict
    default: {}
  exclusive:
    description:
      - Look for the domains on the host that carry the mark of O(owner) and that no item
        lists, and return them in RV(unlisted) with a warning.
      - Domains without the mark, or with another O(owner), are never looked at further.
    type: bool
    default: false
  remove_unlisted:
    description:
      - With O(exclusive=true), power off and undefine the unlisted marked domains
        (as O(realtime.virt.libvirt_rt_domain#module:state=absent) does), before the
        listed domains are converged, so that they free their CPUs and memory first.
      - Skipped, with a warning, when any item failed validation.
      - In check mode the removal is only predicted, and diff mode shows it.
    type: bool
    default: false
  owner:
    description:
      - The label written into the mark of every domain converged by this task, and the
        only label O(exclusive) looks for. Plays that manage separate sets of domains on one
        host use different owners so that they never see each other's domains as unlisted.
      - A listed domain that carries another label (or none) is marked with this one.
    type: str
    default: realtime.virt
  fail_fast:
    description:
      - V(false) converges every valid item even when others fail and fails the task at the end.
      - V(true) stops at the first failure; when an item fails validation, nothing is converged.
        The domains left as they were are returned with RV(domains[].skipped=true).
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Converge two real-time domains and a plain one
  realtime.virt.libvirt_rt_domains:
    defaults:
      memory: {hugepages: {page_size: 1G}}
    domains:
      - name: plc-01
        state: running
        vcpus: 2
        memory_mib: 4096
        cpu:
          pinning: [{vcpu: 0, cpuset: "2"}, {vcpu: 1, cpuset: "3"}]
          emulator_cpuset: "1"
        realtime: {mask: "0-1,^0"}
      - name: plc-02
        state: running
        vcpus: 2
        memory_mib: 4096
        cpu:
          pinning: [{vcpu: 0, cpuset: "4"}, {vcpu: 1, cpuset: "5"}]
          emulator_cpuset: "1"
        realtime: {}
      - name: historian
        vcpus: 1
        memory_mib: 2048
        memory: {}
  register: converged

- name: Report the domains that run an older definition
  ansible.builtin.debug:
    msg: "{{ converged.domains | selectattr('pending_restart') | map(attribute='name') | list }}"

- name: The host runs exactly these domains of this play; others it marked are removed
  realtime.virt.libvirt_rt_domains:
    owner: line-3-controllers
    exclusive: true
    remove_unlisted: true
    domains: "{{ line3_domains }}"

- name: Stop at the first domain that fails, leaving the rest untouched
  realtime.virt.libvirt_rt_domains:
    fail_fast: true
    domains: "{{ my_domains }}"
"""

RETURN = r"""
changed:
  description: Whether any domain changed (or would, in check mode), listed or unlisted.
  returned: always
  type: bool
domains:
  description: One entry per item of O(domains), in the same order.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: The item's name (null when the item has none).
      type: str
    index:
      description: Position of the item in O(domains).
      type: int
    changed:
      description:
        - Whether the domain's definition, mark or run state changed (or would, in check mode).
        - For a failed item, whether libvirt had changed something before the failing step.
      type: bool
    failed:
      description: Whether the item failed (see RV(domains[].errors)).
      type: bool
    skipped:
      description: The item was left as it was because of O(fail_fast).
      type: bool
    errors:
      description: Why the item failed, each message naming the option or the libvirt call. Empty when it did not.
      type: list
      elements: str
    pending_restart:
      description: The domain runs an older definition than the one now defined.
      type: bool
    uuid:
      description: The domain's UUID; null when it does not exist (or failed before it was read).
      type: str
    state:
      description: Run state after the task, C(running) or C(shut off); null for removed or failed domains.
      type: str
    autostart:
      description:
        - libvirt's autostart flag after the task (predicted in check mode); null for removed or failed domains.
        - See RV(realtime.virt.libvirt_rt_domain#module:autostart).
      type: bool
    differences:
      description: Why the definition changed (or would), as RV(realtime.virt.libvirt_rt_domain#module:differences).
      type: list
      elements: str
    diff:
      description: Inactive XML before and after.
      returned: when diff mode is on
      type: dict
      contains:
        before:
          description: XML before the task (empty when the domain did not exist).
          type: str
        after:
          description: XML after the task (empty when removed).
          type: str
    vcpu_threads:
      description: For a running domain on a local URI, its vCPU threads as RV(realtime.virt.libvirt_rt_domain#module:vcpu_threads).
      returned: when the domain runs and the URI is local
      type: list
      elements: dict
unlisted:
  description:
    - With O(exclusive=true), the domains with the mark of O(owner) that no item lists, sorted by name.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: Domain name.
      type: str
    uuid:
      description: UUID of a removed domain (null when it was only reported).
      type: str
    changed:
      description: Whether it was removed (or would be, in check mode).
      type: bool
    removed:
      description: Same as RV(unlisted[].changed).
      type: bool
    errors:
      description: Why the removal failed.
      type: list
      elements: str
    diff:
      description: Inactive XML before the removal, and an empty after.
      returned: when diff mode is on and the domain was removed
      type: dict
diff:
  description:
    - The per-domain diffs of the domains that changed (or would), listed and unlisted,
      each with a header naming the domain; Ansible prints them one by one.
  returned: when diff mode is on
  type: list
  elements: dict
"""

import traceback

from ansible.module_utils.basic import AnsibleModule

LIB_IMPORT_ERROR = None
try:
    import libvirt  # noqa: F401  pylint: disable=unused-import
    from lxml import etree  # noqa: F401  pylint: disable=unused-import
except ImportError:
    LIB_IMPORT_ERROR = traceback.format_exc()

from ansible_collections.realtime.virt.plugins.module_utils._common.options import uri_argument_spec
from ansible_collections.realtime.virt.plugins.module_utils._common.runner import require_libraries, run_result


def argument_spec():
    return dict(
        uri_argument_spec(),
        # Items are validated one by one (module_utils/_libvirt/options.py), so one bad item
        # does not fail the others; AnsibleModule takes them as they are (a non-mapping item
        # is refused by that validation too, naming the item).
        domains=dict(type="list", elements="raw", required=True),
        defaults=dict(type="dict", default={}),
        exclusive=dict(type="bool", default=False),
        remove_unlisted=dict(type="bool", default=False),
        owner=dict(type="str", default="realtime.virt"),
        fail_fast=dict(type="bool", default=False),
    )


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    require_libraries(module, "libvirt-python and lxml", LIB_IMPORT_ERROR)

    from ansible_collections.realtime.virt.plugins.module_utils._libvirt.batch import BatchManager

    run_result(module, "libvirt_rt_domains",
               lambda: BatchManager(module.params, check_mode=module.check_mode, diff=module._diff))


if __name__ == "__main__":
    main()
