#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: rt_isolation_info
short_description: What the kernel does on isolated CPUs, and the live values the host roles set
version_added: 0.2.0
description:
  - Reads C(/proc) and C(/sys) (plain file reads, no commands) and returns what
    C(realtime.virt.rt_validate) judges about CPU isolation - every interrupt
    (C(/proc/irq/<N>/smp_affinity_list), C(effective_affinity_list), the
    handlers' names, the PCI device of an MSI vector, the counts per CPU of
    C(/proc/interrupts)) and whether the kernel manages its affinity; the
    workqueue masks, C(/sys/kernel/housekeeping/*) and C(kthread_cpus=); the
    per-CPU kernel threads C(ksoftirqd/N), C(ktimers/N), C(ktimersoftd/N),
    C(rcuc/N) and the host's own threads (C(kswapd), C(kcompactd),
    C(khugepaged), unbound C(kworker/u)) with their policy, priority and
    allowed CPUs; the active tuned profile and the C([scheduler]) group rules
    it sets, following C(include=) through its parents; the isolated and
    tickless CPUs the kernel reports.
  - "An interrupt is kernel-managed when debugfs (C(/sys/kernel/debug/irq/irqs/<N>)) lists
    C(IRQD_AFFINITY_MANAGED), or when its C(smp_affinity) file is read-only (kernels since
    2024 create it so when userspace may not set the affinity; older kernels answer a write
    with EIO, the test tuned and irqbalance make). An interrupt that is no MSI/MSI-X vector
    (not under C(/sys/bus/pci/devices/*/msi_irqs/)) is never managed. Otherwise
    RV(isolation.irqs[].kernel_managed) is C(null): unknown."
  - Reads back the values the drift check compares with the roles' variables -
    the sysctls of O(sysctls), the VF count and VF drivers of the physical
    functions of O(pfs), and whether O(reboot_marker) exists.
  - With O(root) it reads a captured host tree instead of the live host.
author:
  - realtime.virt contributors (!UNKNOWN)
extends_documentation_fragment:
  - realtime.virt.attributes.info
  - realtime.virt.host_root
options:
  sysctls:
    description: Sysctl names (dotted, as C(sysctl) prints them) to read.
    type: list
    elements: str
    default: []
  pfs:
    description: PCI addresses (C(0000:3b:00.0)) of SR-IOV physical functions whose VFs to read.
    type: list
    elements: str
    default: []
  reboot_marker:
    description: The marker file C(realtime.virt.rt_host) writes while a reboot is pending.
    type: path
    default: /run/realtime-virt/reboot-required
notes:
  - The kernel threads of a container's host kernel are read through the container's C(/proc)
    when it shares the host's; interrupts through C(/proc/irq) as the kernel shows them.
seealso:
  - name: isolcpus=managed_irq (kernel parameters)
    description: Managed interrupts whose affinity the kernel keeps, and how isolcpus keeps them off isolated CPUs.
    link: https://docs.kernel.org/admin-guide/kernel-parameters.html
  - name: tuned scheduler plugin
    description: The C(group.<name>=rule_prio:sched:prio:affinity:regex) rules read here.
    link: https://github.com/redhat-performance/tuned/blob/master/tuned/plugins/plugin_scheduler.py
  - module: realtime.virt.rt_node_facts
"""

EXAMPLES = r"""
- name: Read what the kernel does on the isolated CPUs
  realtime.virt.rt_isolation_info:
    sysctls: [kernel.sched_rt_runtime_us]
  register: isolation

- name: Judge it as rt_validate does
  ansible.builtin.set_fact:
    checks: "{{ isolation.isolation | realtime.virt.rt_validate_isolation_checks(ansible_facts.rt_node) }}"

- name: Read a captured tree
  realtime.virt.rt_isolation_info:
    root: /srv/sosreports/host1
  delegate_to: localhost
"""

RETURN = r"""
isolation:
  description: What the isolation checks look at.
  returned: success
  type: dict
  contains:
    irqs:
      description: One entry per C(/proc/irq/<N>), by number.
      type: list
      elements: dict
      returned: always
      sample:
        - {irq: 36, devices: [virtio1-req.0], pci: "0000:00:02.0", affinity: [0, 1], effective: [1],
           counts: {"0": 0, "1": 3244378}, writable: false, debug_managed: null, kernel_managed: true,
           managed_by: read-only smp_affinity}
      contains:
        irq:
          description: Interrupt number.
          type: int
          returned: always
        devices:
          description: Handler names (the directories of C(/proc/irq/<N>), else the last column of C(/proc/interrupts)).
          type: list
          elements: str
          returned: always
        pci:
          description: PCI address of the device whose MSI/MSI-X vector it is; C(null) for other interrupts.
          type: str
          returned: always
        affinity:
          description: CPUs of C(smp_affinity_list).
          type: list
          elements: int
          returned: always
        effective:
          description: CPUs of C(effective_affinity_list) (empty when not started); C(null) on kernels without the file.
          type: list
          elements: int
          returned: always
        counts:
          description: Interrupts counted per CPU (C(/proc/interrupts)).
          type: dict
          returned: always
        writable:
          description: Whether C(smp_affinity) has its owner's write permission.
          type: bool
          returned: always
        debug_managed:
          description: Whether debugfs lists C(IRQD_AFFINITY_MANAGED); C(null) without debugfs.
          type: bool
          returned: always
        kernel_managed:
          description: Whether the kernel keeps its affinity; C(null) when this host cannot tell.
          type: bool
          returned: always
        managed_by:
          description: The evidence that decided RV(isolation.irqs[].kernel_managed).
          type: str
          returned: always
    masks:
      description: CPU masks that should leave the isolated CPUs out, where the kernel has them.
      type: list
      elements: dict
      returned: always
      sample: [{name: workqueue cpumask, path: /sys/devices/virtual/workqueue/cpumask, cpus: [0, 1]}]
    threads:
      description:
        - C(per_cpu) - the per-CPU threads (C(comm), C(pid), C(family), C(cpu), C(policy), C(priority), C(cpus)).
        - C(housekeeping) - C(kswapd), C(kcompactd), C(khugepaged) and unbound C(kworker/u) threads.
      type: dict
      returned: always
    tuned:
      description:
        - C(installed), C(active) (profile names of C(/etc/tuned/active_profile)), C(files) (the tuned.conf
          files read), C(rules) (the merged C([scheduler]) group rules in the order tuned applies them, each
          C(group), C(rule_prio), C(policy), C(priority), C(affinity), C(regex)), C(errors).
      type: dict
      returned: always
    nohz_full_reported:
      description: Whether the kernel has C(/sys/devices/system/cpu/nohz_full).
      type: bool
      returned: always
    cpus:
      description: The CPUs the kernel isolates, as it reports them.
      type: dict
      returned: always
      sample: {isolated: [2, 3], nohz_full: [2, 3]}
      contains:
        isolated:
          description:
            - CPUs of C(/sys/devices/system/cpu/isolated), those C(isolcpus=) takes out of the scheduler's domains.
            - C(null) when the kernel has no such file.
          type: list
          elements: int
          returned: always
        nohz_full:
          description:
            - Tickless CPUs of C(/sys/devices/system/cpu/nohz_full).
            - C(null) when the kernel has no such file (built without C(NO_HZ_FULL)).
          type: list
          elements: int
          returned: always
applied:
  description: Live values the drift check compares.
  returned: success
  type: dict
  contains:
    sysctls:
      description: Each name of O(sysctls) and its value as the kernel prints it (C(null) when absent).
      type: dict
      returned: always
      sample: {kernel.sched_rt_runtime_us: "-1"}
    pfs:
      description: Each PF of O(pfs) - C(pf), C(present), C(sriov_numvfs), C(sriov_totalvfs), C(vfs) (C(index), C(pci_address), C(driver)).
      type: list
      elements: dict
      returned: always
    reboot_marker:
      description: C(path) and whether it is C(present).
      type: dict
      returned: always
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import RealtimeVirtError
from ansible_collections.realtime.virt.plugins.module_utils._common.options import root_argument_spec
from ansible_collections.realtime.virt.plugins.module_utils._kernel import paths
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader, checked_root
from ansible_collections.realtime.virt.plugins.module_utils._node import applied, isolation, parsing, tuned


def read(params):
    """``(result, warnings)`` for the module's parameters."""
    reader = HostReader(checked_root(params["root"]))
    words, _init = parsing.split_cmdline(reader.read(paths.CMDLINE, optional=True))
    possible = parsing.parse_sysfs_cpulist(reader.read(paths.CPU + "/possible", optional=True))
    result = {
        "isolation": {
            "irqs": isolation.read_irqs(reader),
            "masks": isolation.read_masks(reader, parsing.parse_cmdline_args(words), possible),
            "threads": isolation.read_threads(reader),
            "tuned": tuned.read_tuned(reader),
            "nohz_full_reported": reader.exists(paths.CPU + "/nohz_full"),
            "cpus": isolation.read_isolated(reader),
        },
        "applied": {
            "sysctls": applied.read_sysctls(reader, params["sysctls"]),
            "pfs": applied.read_pfs(reader, params["pfs"]),
            "reboot_marker": {"path": params["reboot_marker"], "present": reader.exists(params["reboot_marker"])},
        },
    }
    return result, reader.warnings


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root_argument_spec(),
            sysctls=dict(type="list", elements="str", default=[]),
            pfs=dict(type="list", elements="str", default=[]),
            reboot_marker=dict(type="path", default="/run/realtime-virt/reboot-required"),
        ),
        supports_check_mode=True,
    )
    try:
        result, warnings = read(module.params)
    except RealtimeVirtError as error:
        module.fail_json(msg="rt_isolation_info: %s" % error)
    for warning in warnings:
        module.warn(warning)
    module.exit_json(changed=False, **result)


if __name__ == "__main__":
    main()
