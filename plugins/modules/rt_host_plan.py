#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: rt_host_plan
short_description: Plan every stage of realtime.virt.site for a host before its first change
version_added: 0.2.0
description:
  - Reads the host (CPUs, NUMA nodes, hugepages, QAT functions, the SR-IOV physical
    functions named in O(sriov.pfs) and, when libvirt answers, the domains it holds)
    and checks the input of every stage of C(realtime.virt.site) with that stage's own
    planning code - the CPU plan and kernel arguments of C(realtime.virt.rt_host), the
    hugepage pools against each node's memory, the QAT selection, every O(sriov.pfs)
    entry (the address exists, is SR-IOV capable, the count is within C(sriov_totalvfs),
    the driver name is valid), the placement of the domains (CPUs, hugepages, QAT) and
    the guests of C(realtime.virt.rt_validate).
  - Fails when any stage would refuse its input, listing every problem found, each with
    the option, the value, why and the fix. Nothing on the host is changed, by this
    module or, since C(realtime.virt.site) runs it first, by any stage.
  - The domains are placed against the host as the earlier stages will leave it - the
    hugepage pools at their targets and, when O(rt_host.reboot) is V(auto) or V(force),
    the CPUs isolated as planned.
  - Also returns what the stages hand each other - the boot arguments of the hugepages
    and qat stages and whether the IOMMU is needed - which C(realtime.virt.rt_host)
    writes into the kernel command line once.
  - The roles keep their own checks, with the same code, so a role used alone still
    refuses bad input.
  - Each stage option the task leaves out, and O(uri), is planned with its role variable's default, which
    the module's action plugin reads on the controller from the collection's C(roles/<role>/defaults/main.yml)
    (O(rt_host.isolated_cpus) from C(rt_host_isolated_cpus) of P(realtime.virt.rt_host#role), and so on),
    so the module called on its own plans what the roles would do, and C(realtime.virt.site) passes only
    what the inventory sets. A role default that is a template is refused; give that option in the task.
author:
  - realtime.virt contributors (!UNKNOWN)
extends_documentation_fragment:
  - realtime.virt.attributes.info
  - realtime.virt.host_root
attributes:
  action:
    description: Indicates this has a corresponding action plugin so some parts of the options can be executed on the controller.
    support: full
    details:
      - The action plugin fills the options the task leaves out with the roles' defaults, read on the controller.
options:
  uri:
    description:
      - C(rt_domain_uri) of P(realtime.virt.rt_domain#role), the libvirt connection of the domains already defined;
        left out, that variable's default in the role.
      - When libvirt-python is missing or libvirt does not answer (a host the rt_domain stage
        has not set up yet), the host is planned as holding no domain, with a warning.
    type: str
  rt_host:
    description: The C(realtime.virt.rt_host) variables, without the C(rt_host_) prefix.
    type: dict
    default: {}
    suboptions:
      isolated_cpus:
        description: C(rt_host_isolated_cpus) of P(realtime.virt.rt_host#role); left out, that variable's default in the role.
        type: raw
      iommu:
        description:
          - C(rt_host_iommu) of P(realtime.virt.rt_host#role); left out, that variable's default in the role.
          - The plan turns it on when O(sriov.pfs) puts VFs on C(vfio-pci).
        type: bool
      kernel_args_extra:
        description: C(rt_host_kernel_args_extra) of P(realtime.virt.rt_host#role); left out, that variable's default in the role.
        type: list
        elements: str
      reboot:
        description: C(rt_host_reboot) of P(realtime.virt.rt_host#role); left out, that variable's default in the role.
        type: str
        choices: [never, auto, force]
  hugepages:
    description: The C(realtime.virt.hugepages) variables, without the C(hugepages_) prefix.
    type: dict
    default: {}
    suboptions:
      pages:
        description: C(hugepages_pages) of P(realtime.virt.hugepages#role); left out, that variable's default in the role.
        type: list
        elements: raw
      default_size:
        description: C(hugepages_default_size) of P(realtime.virt.hugepages#role); left out, that variable's default in the role.
        type: str
  qat:
    description: The C(realtime.virt.qat) variables, without the C(qat_) prefix.
    type: dict
    default: {}
    suboptions:
      pfs:
        description: C(qat_pfs) of P(realtime.virt.qat#role); left out, that variable's default in the role.
        type: list
        elements: str
      numvfs:
        description: C(qat_numvfs) of P(realtime.virt.qat#role); left out, that variable's default in the role.
        type: raw
      numvfs_per_pf:
        description: C(qat_numvfs_per_pf) of P(realtime.virt.qat#role); left out, that variable's default in the role.
        type: dict
      services:
        description: C(qat_services) of P(realtime.virt.qat#role); left out, that variable's default in the role.
        type: str
  sriov:
    description: The C(realtime.virt.sriov) variables, without the C(sriov_) prefix.
    type: dict
    default: {}
    suboptions:
      pfs:
        description: C(sriov_pfs) of P(realtime.virt.sriov#role); left out, that variable's default in the role.
        type: list
        elements: raw
      vf_driver:
        description: C(sriov_vf_driver) of P(realtime.virt.sriov#role); left out, that variable's default in the role.
        type: str
  rt_domain:
    description: The C(realtime.virt.rt_domain) variables, without the C(rt_domain_) prefix.
    type: dict
    default: {}
    suboptions:
      domains:
        description: C(rt_domain_domains) of P(realtime.virt.rt_domain#role); left out, that variable's default in the role.
        type: list
        elements: raw
      domain_defaults:
        description: C(rt_domain_domain_defaults) of P(realtime.virt.rt_domain#role); left out, that variable's default in the role.
        type: dict
      allow_unisolated:
        description: C(rt_domain_allow_unisolated) of P(realtime.virt.rt_domain#role); left out, that variable's default in the role.
        type: bool
      hugepage_check:
        description: C(rt_domain_hugepage_check) of P(realtime.virt.rt_domain#role); left out, that variable's default in the role.
        type: str
        choices: [fail, warn, ignore]
  rt_validate:
    description: The C(realtime.virt.rt_validate) variables, without the C(rt_validate_) prefix.
    type: dict
    default: {}
    suboptions:
      guests:
        description: C(rt_validate_guests) of P(realtime.virt.rt_validate#role); left out, that variable's default in the role.
        type: list
        elements: raw
      duration:
        description: C(rt_validate_duration) of P(realtime.virt.rt_validate#role); left out, that variable's default in the role.
        type: raw
  ptp:
    description:
      - The C(realtime.virt.ptp) variables, without the C(ptp_) prefix, checked with the role's own filter
        (P(realtime.virt.ptp_plan#filter)) against this host's interfaces and the housekeeping CPUs the plan leaves.
      - Nothing is checked while O(ptp.interfaces) is empty (site.yml runs the role only on hosts with interfaces).
    type: dict
    default: {}
    version_added: 1.1.0
    suboptions:
      interfaces:
        description: C(ptp_interfaces) of P(realtime.virt.ptp#role); left out, that variable's default in the role.
        type: list
        elements: str
      profile:
        description: C(ptp_profile) of P(realtime.virt.ptp#role); left out, that variable's default in the role.
        type: str
      domain:
        description: C(ptp_domain) of P(realtime.virt.ptp#role); left out, that variable's default in the role.
        type: raw
      clock:
        description: C(ptp_clock) of P(realtime.virt.ptp#role); left out, that variable's default in the role.
        type: str
      transport:
        description: C(ptp_transport) of P(realtime.virt.ptp#role); left out, that variable's default in the role.
        type: str
      software_timestamping:
        description: C(ptp_software_timestamping) of P(realtime.virt.ptp#role); left out, that variable's default in the role.
        type: bool
      free_running:
        description: C(ptp_free_running) of P(realtime.virt.ptp#role); left out, that variable's default in the role.
        type: bool
      phc2sys:
        description: C(ptp_phc2sys) of P(realtime.virt.ptp#role); left out, that variable's default in the role.
        type: raw
      cpus:
        description: C(ptp_cpus) of P(realtime.virt.ptp#role); left out, that variable's default in the role.
        type: str
      priority:
        description: C(ptp_priority) of P(realtime.virt.ptp#role); left out, that variable's default in the role.
        type: int
      unicast_masters:
        description: C(ptp_unicast_masters) of P(realtime.virt.ptp#role); left out, that variable's default in the role.
        type: list
        elements: str
      options:
        description: C(ptp_options) of P(realtime.virt.ptp#role); left out, that variable's default in the role.
        type: dict
  inventory:
    description: Every hostname of the inventory (C(groups['all'])), to check O(rt_validate.guests) against.
    type: list
    elements: str
"""

EXAMPLES = r"""
- name: Plan the whole host before the first change
  realtime.virt.rt_host_plan:
    rt_host:
      isolated_cpus: auto
      reboot: auto
    hugepages:
      pages: [{size: 1G, count: 8, node: 0}]
    sriov:
      pfs: [{pf: "0000:3b:00.0", count: 4}]
    rt_domain:
      domains:
        - {name: plc-01, vcpus: 4, memory_mib: 4096, cpus: auto, realtime: {}, memory: {hugepages: {page_size: 1G}}}
    inventory: "{{ groups['all'] }}"
  register: plan

- name: Hand the boot arguments of the other stages to rt_host
  ansible.builtin.set_fact:
    rt_host_kernel_args_hugepages: "{{ plan.plan.hugepages_kernel_args }}"
    rt_host_kernel_args_extra: "{{ plan.plan.kernel_args_extra }}"
    rt_host_iommu: "{{ plan.plan.iommu }}"
"""

RETURN = r"""
plan:
  description: What the stages will do and hand each other (also returned, with what could be planned, on failure).
  returned: always
  type: dict
  contains:
    hugepages_kernel_args:
      description: Boot arguments of the hugepage plan (C(hugepagesz=1G hugepages=N), C(default_hugepagesz)).
      type: list
      elements: str
      sample: [hugepagesz=1G, hugepages=8]
    kernel_args_extra:
      description: O(rt_host.kernel_args_extra) followed by the QAT arguments it lacks.
      type: list
      elements: str
      sample: [intel_iommu=on, iommu=pt]
    iommu:
      description: Whether rt_host turns the IOMMU on.
      type: bool
    kernel_args:
      description: Every argument rt_host will write.
      type: list
      elements: str
    isolated_cpuset:
      description: The CPUs rt_host isolates.
      type: str
      sample: 2-15,18-31
    housekeeping_cpuset:
      description: The CPUs left to the host.
      type: str
      sample: 0-1,16-17
    domains:
      description: Where each domain of O(rt_domain.domains) goes (name, placement, numa_node, cpuset, emulator_cpuset).
      type: list
      elements: dict
    warnings:
      description: Compromises the plan makes (split SMT siblings, emulator threads on another node).
      type: list
      elements: str
inputs:
  description:
    - The input of every stage as planned, after the module's argument spec - each option the task gave, or
      its role variable's default when the task left it out.
    - The stage's role uses the same value when the inventory does not set its variable, so a play can ask
      it whether a stage has anything to do (C(realtime.virt.site) runs P(realtime.virt.sriov#role) when
      C(inputs.sriov.pfs) is not empty).
  returned: success
  type: dict
  sample:
    rt_host: {isolated_cpus: auto, iommu: false, kernel_args_extra: [], reboot: never}
    sriov: {pfs: [], vf_driver: vfio-pci}
problems:
  description: Every problem found, one message each (option, value, why and fix); empty when the plan passes.
  returned: always
  type: list
  elements: str
  sample:
    - >-
      sriov_pfs[0].pf='0000:3b:00.0': PCI device 0000:3b:00.0 does not exist on this host
      (no /sys/bus/pci/devices/0000:3b:00.0). Fix: check the address with 'lspci -D'
"""

import copy

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import RealtimeVirtError
from ansible_collections.realtime.virt.plugins.module_utils._common.options import root_argument_spec
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.uri import is_local
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.observe import DomainObserver
from ansible_collections.realtime.virt.plugins.module_utils._node.gather import gather_node_facts
from ansible_collections.realtime.virt.plugins.module_utils._qat.gather import gather_qat
from ansible_collections.realtime.virt.plugins.module_utils._site.plan import plan_host, problems_message

try:
    import libvirt
except ImportError:
    libvirt = None


def _stage(**suboptions):
    return dict(type="dict", default={}, options=suboptions)


STAGES = ("rt_host", "hugepages", "qat", "sriov", "rt_domain", "rt_validate", "ptp")


def argument_spec():
    """The options; a stage option and ``uri`` have no default here: the action plugin gives the role's."""
    return dict(
        root_argument_spec(),
        uri=dict(type="str"),
        rt_host=_stage(isolated_cpus=dict(type="raw"), iommu=dict(type="bool"),
                       kernel_args_extra=dict(type="list", elements="str"),
                       reboot=dict(type="str", choices=["never", "auto", "force"])),
        hugepages=_stage(pages=dict(type="list", elements="raw"), default_size=dict(type="str")),
        qat=_stage(pfs=dict(type="list", elements="str"), numvfs=dict(type="raw"),
                   numvfs_per_pf=dict(type="dict"), services=dict(type="str")),
        sriov=_stage(pfs=dict(type="list", elements="raw"), vf_driver=dict(type="str")),
        rt_domain=_stage(domains=dict(type="list", elements="raw"), domain_defaults=dict(type="dict"),
                         allow_unisolated=dict(type="bool"),
                         hugepage_check=dict(type="str", choices=["fail", "warn", "ignore"])),
        rt_validate=_stage(guests=dict(type="list", elements="raw"), duration=dict(type="raw")),
        ptp=_stage(interfaces=dict(type="list", elements="str"), profile=dict(type="str"), domain=dict(type="raw"),
                   clock=dict(type="str"), transport=dict(type="str"), software_timestamping=dict(type="bool"),
                   free_running=dict(type="bool"), phc2sys=dict(type="raw"), cpus=dict(type="str"),
                   priority=dict(type="int"), unicast_masters=dict(type="list", elements="str"),
                   options=dict(type="dict")),
        inventory=dict(type="list", elements="str"),
    )


def defined_domains(module):
    """The domains libvirt holds, or [] with a warning when it cannot be asked."""
    if not module.params["rt_domain"]["domains"]:
        return []
    if libvirt is None:
        module.warn("libvirt-python is not installed yet: the domains are planned as if libvirt held none")
        return []
    uri = module.params["uri"]
    try:
        domains, _missing = DomainObserver(uri, libvirt.open, local=is_local(uri)).run()
    except RealtimeVirtError as error:
        module.warn("libvirt does not answer (%s): the domains are planned as if libvirt held none" % error)
        return []
    return domains


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    root = module.params["root"]
    try:
        facts, warnings = gather_node_facts(root)
        qat, qat_warnings = gather_qat(root)
    except RealtimeVirtError as error:
        module.fail_json(msg="rt_host_plan: %s" % error)
    for warning in warnings + qat_warnings:
        module.warn(warning)
    stages = dict((name, module.params[name]) for name in STAGES)
    inputs = copy.deepcopy(stages)
    plan, problems = plan_host(facts, stages, qat=qat, reader=HostReader(root), defined=defined_domains(module),
                               inventory=module.params["inventory"])
    if problems:
        module.fail_json(msg="rt_host_plan: %s" % problems_message(problems), plan=plan, problems=problems)
    module.exit_json(changed=False, plan=plan, problems=[], inputs=inputs)


if __name__ == "__main__":
    main()
