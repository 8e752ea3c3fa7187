#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: libvirt_rt_domain_info
short_description: What libvirt and the kernel show for real-time domains
version_added: 0.1.0
description:
  - Lists the libvirt domains with the real-time tuning their XML asks for
    (vCPU pinning, emulator pinning, IO thread pinning, C(<vcpusched>) vCPUs, scheduler and
    priority, hugepage backing, NUMA binding, PCI hostdevs, serial log) and,
    for running domains on this host, what the kernel does - each vCPU
    thread's policy, priority and affinity (C(/proc/<pid>/task/<tid>/stat)
    and C(status)), the same for its IO threads and emulator threads, the hugetlb memory of the qemu process
    (C(/proc/<pid>/smaps_rollup)) and the driver each hostdev is bound to.
  - The XML read is the live one for running domains, the inactive one otherwise.
  - Read only. The C(realtime.virt.rt_domain) role uses it to avoid giving a
    CPU or VF twice, C(realtime.virt.rt_validate) to check the tuning.
author:
  - realtime.virt contributors (!UNKNOWN)
extends_documentation_fragment:
  - realtime.virt.attributes.info
  - realtime.virt.attributes.actiongroup_libvirt
  - realtime.virt.libvirt_connection
options:
  names:
    description: Only these domains (all when empty). A name libvirt does not know is listed in RV(missing).
    type: list
    elements: str
    default: []
"""

EXAMPLES = r"""
- name: Read every domain
  realtime.virt.libvirt_rt_domain_info:
  register: info

- name: Show the vCPU threads of one domain
  ansible.builtin.debug:
    msg: "{{ (info.domains | selectattr('name', 'equalto', 'vm1') | first).vcpu_threads }}"
"""

RETURN = r"""
domains:
  description: One entry per domain, sorted by name.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: Domain name.
      type: str
    running:
      description: Whether it runs.
      type: bool
    type:
      description: Domain type (C(kvm), C(qemu)).
      type: str
    vcpus:
      description: Number of vCPUs.
      type: int
    pinning:
      description: C(<vcpupin>) per vCPU as C({vcpu, cpus}) (host CPU ids).
      type: list
      elements: dict
    emulator_cpus:
      description: Host CPUs of C(<emulatorpin>).
      type: list
      elements: int
    iothread_pins:
      description: C({iothread, cpus}) per C(<iothreadpin>), by IO thread id (C(cpus) the host CPU ids).
      type: list
      elements: dict
      version_added: 0.2.0
    realtime:
      description: C({vcpus, scheduler, priority}) from C(<vcpusched>), null when there is none.
      type: dict
    hugepages:
      description: C({page_size_kib}) when hugepages back the memory, else null.
      type: dict
    memory_kib:
      description: Guest memory in KiB.
      type: int
    locked:
      description: Whether C(<locked/>) is set.
      type: bool
    nosharepages:
      description: Whether C(<nosharepages/>) is set.
      type: bool
    numatune_nodeset:
      description: Host NUMA nodes of C(<numatune><memory>).
      type: str
    hostdevs:
      description: PCI addresses passed through.
      type: list
      elements: str
    hostdev_drivers:
      description: C({address, driver}) per hostdev, the driver bound now in sysfs.
      type: list
      elements: dict
    serial_log:
      description: Host file of the first file-backed serial port or its log.
      type: str
    pid:
      description: Process id of the qemu process (running domains).
      type: int
    vcpu_threads:
      description: C({vcpu, tid, policy, priority, affinity}) per vCPU thread, from /proc.
      type: list
      elements: dict
    iothread_threads:
      description:
        - C({iothread, tid, policy, priority, affinity, cpus}) per thread QEMU names C(IO iothread<N>)
          (the thread of libvirt's IO thread C(N)), by IO thread id.
        - C(affinity) is C(Cpus_allowed_list) of C(/proc/<pid>/task/<tid>/status), C(cpus) the same as a list
          of host CPU ids (null when it cannot be read).
      type: list
      elements: dict
      version_added: 0.2.0
    emulator_threads:
      description:
        - C({tid, comm, policy, priority, affinity, cpus}) per other thread of the qemu process (neither a vCPU
          nor an C(IO iothread<N>) thread), by tid - the main thread, C(call_rcu), C(IO mon_iothread), C(worker).
        - C(affinity) and C(cpus) as in RV(domains[].iothread_threads).
      type: list
      elements: dict
      version_added: 0.2.0
    hugetlb_kib:
      description: Hugetlb memory mapped by the qemu process (C(smaps_rollup)).
      type: int
missing:
  description: Names from O(names) libvirt does not know.
  returned: always
  type: list
  elements: str
libvirt_python:
  description:
    - Whether libvirt-python could be imported on the host.
    - C(false) only in check mode. There the host may not have libvirt yet because the run would install it
      (C(realtime.virt.rt_domain) installs it before C(realtime.virt.rt_validate) reads it). The host then reads as
      holding no domain, RV(domains) is empty, RV(missing) lists every name of O(names), and a warning says so.
      Outside check mode the module fails without libvirt-python.
  returned: always
  type: bool
"""

import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

LIB_IMPORT_ERROR = None
try:
    import libvirt
except ImportError:
    libvirt = None
    LIB_IMPORT_ERROR = traceback.format_exc()

from ansible_collections.realtime.virt.plugins.module_utils._common.options import uri_argument_spec
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.uri import is_local
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import HostError
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.observe import DomainObserver


def main():
    module = AnsibleModule(
        argument_spec=dict(uri_argument_spec(), names=dict(type="list", elements="str", default=[])),
        supports_check_mode=True,
    )
    if LIB_IMPORT_ERROR is not None:
        if module.check_mode:
            # A --check run of a host that the real run would give libvirt first
            module.warn("libvirt-python is not installed: in check mode the host reads as holding no domain "
                        "(a real run of realtime.virt.rt_domain installs libvirt before this is read)")
            module.exit_json(changed=False, domains=[], missing=list(module.params["names"]), libvirt_python=False)
        module.fail_json(msg=missing_required_lib("libvirt-python"), exception=LIB_IMPORT_ERROR)
    observer = DomainObserver(module.params["uri"], libvirt.open, local=is_local(module.params["uri"]))
    try:
        domains, missing = observer.run(module.params["names"])
    except HostError as error:
        module.fail_json(msg=str(error))
    for warning in observer.reader.warnings:
        module.warn(warning)
    module.exit_json(changed=False, domains=domains, missing=missing, libvirt_python=True)


if __name__ == "__main__":
    main()
