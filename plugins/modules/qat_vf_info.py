#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: qat_vf_info
short_description: Report Intel QAT physical and virtual functions of a host
version_added: 0.1.0
description:
  - Lists every Intel QuickAssist Technology (QAT) physical function (PF) with its
    virtual functions (VFs), and a flat list of the VFs that can be given to a
    virtual machine (bound to C(vfio-pci)).
  - Knows the generations by PCI device id (vendor C(8086)), PF / VF -
    DH895xCC C(0435)/C(0443), C62x C(37c8)/C(37c9), C3xxx C(19e2)/C(19e3),
    4xxx C(4940)/C(4941), 401xx C(4942)/C(4943), 402xx C(4944)/C(4945) and
    420xx C(4946)/C(4947).
  - Plain file reads of C(/sys/bus/pci/devices) (no commands) - the C(driver),
    C(iommu_group), C(virtfnN) and C(physfn) links, C(vendor), C(device),
    C(numa_node), C(sriov_totalvfs), C(sriov_numvfs), C(driver_override) and, on
    4xxx and 420xx devices, C(qat/state) and C(qat/cfg_services).
  - A host without QAT returns empty lists and RV(present=false), not an error.
    Inside a guest, passed-through VFs appear with no PF (RV(vfs[].pf) is C(null)).
  - With O(root) the module reads a captured host tree instead of the live host.
author:
  - realtime.virt contributors (!UNKNOWN)
extends_documentation_fragment:
  - realtime.virt.attributes.info
  - realtime.virt.host_root
notes:
  - Sysfs shows PCI driver names without the C(qat_) prefix of the kernel modules
    (driver C(4xxx) comes from module C(qat_4xxx), C(c6xx) from C(qat_c62x)).
  - From the 4xxx family on the kernel has no VF driver; such VFs are meant for C(vfio-pci).
  - Since Linux 5.9 the DH895xCC, C62x and C3xxx functions are on vfio-pci's denylist;
    RV(kernel_args) then holds C(vfio-pci.disable_denylist=1).
seealso:
  - module: realtime.virt.sriov_vfs
  - name: Intel QAT device plugin for Kubernetes
    description: Discovers QAT VFs through the PF drivers and C(virtfn) links, as this module does.
    link: https://github.com/intel/intel-device-plugins-for-kubernetes/tree/main/cmd/qat_plugin
  - name: Linux PCI sysfs SR-IOV attributes
    description: The kernel's description of C(sriov_totalvfs), C(sriov_numvfs) and C(virtfnN).
    link: https://docs.kernel.org/PCI/pci-iov-howto.html
"""

EXAMPLES = r"""
- name: Read the QAT devices of the host
  realtime.virt.qat_vf_info:
  register: qat

- name: Show the VFs a domain can receive
  ansible.builtin.debug:
    msg: "{{ qat.assignable_vfs | map(attribute='pci_address') | list }}"

- name: Skip QAT work on hosts without QAT
  ansible.builtin.debug:
    msg: No Intel QAT device on this host.
  when: not qat.present

- name: Pick two NUMA-local VFs for a domain
  ansible.builtin.set_fact:
    vf_plan: "{{ qat.assignable_vfs | realtime.virt.qat_vf_select([{'domain': 'rt1', 'count': 2, 'numa_node': 0}]) }}"

- name: Read a host tree captured in a sosreport
  realtime.virt.qat_vf_info:
    root: /srv/sosreports/host1
  delegate_to: localhost
"""

RETURN = r"""
root:
  description: Absolute path of the tree that was read.
  type: str
  returned: always
  sample: /
present:
  description: Whether any QAT PF or VF was found.
  type: bool
  returned: always
  sample: true
generations:
  description: Generations of the PFs found, oldest first (V(dh895xcc), V(c62x), V(c3xxx), V(4xxx), V(401xx), V(402xx), V(420xx)).
  type: list
  elements: str
  returned: always
  sample: ["4xxx"]
kernel_modules:
  description: Kernel modules the PFs found need (C(qat_4xxx), C(qat_420xx), C(qat_c62x), C(qat_c3xxx), C(qat_dh895xcc)), then C(vfio-pci); empty without PFs.
  type: list
  elements: str
  returned: always
  sample: ["qat_4xxx", "vfio-pci"]
kernel_args:
  description:
    - Boot arguments VF passthrough needs for the PFs found - C(intel_iommu=on iommu=pt), plus
      C(vfio-pci.disable_denylist=1) for generations on vfio-pci's denylist; empty without PFs.
  type: list
  elements: str
  returned: always
  sample: ["intel_iommu=on", "iommu=pt"]
pfs:
  description: QAT physical functions, by PCI address.
  type: list
  elements: dict
  returned: always
  contains:
    pci_address:
      description: PCI address (domain:bus:device.function).
      type: str
      returned: always
      sample: "0000:6b:00.0"
    device_id:
      description: PCI device id (4 hex digits).
      type: str
      returned: always
      sample: "4940"
    generation:
      description: Generation name.
      type: str
      returned: always
      sample: 4xxx
    family:
      description: V(gen1) (DH895xCC), V(gen2) (C62x, C3xxx) or V(gen4) (4xxx, 401xx, 402xx, 420xx).
      type: str
      returned: always
      sample: gen4
    driver:
      description: Driver bound to the PF as sysfs names it, C(null) when none.
      type: str
      returned: always
      sample: 4xxx
    expected_driver:
      description: Driver name this generation binds to.
      type: str
      returned: always
      sample: 4xxx
    kernel_module:
      description: Kernel module of that driver.
      type: str
      returned: always
      sample: qat_4xxx
    firmware:
      description: Firmware files (under C(/lib/firmware)) the driver loads.
      type: list
      elements: str
      returned: always
      sample: ["qat_4xxx.bin", "qat_4xxx_mmp.bin"]
    vf_device_id:
      description: PCI device id of this generation's VFs.
      type: str
      returned: always
      sample: "4941"
    vf_driver:
      description: In-kernel VF driver of the generation, C(null) when there is none (4xxx and later).
      type: str
      returned: always
      sample: null
    vfio_denylist:
      description: Whether vfio-pci refuses this generation unless C(vfio-pci.disable_denylist=1).
      type: bool
      returned: always
      sample: false
    services_supported:
      description: Whether the PF has C(qat/cfg_services) (4xxx family and 420xx).
      type: bool
      returned: always
      sample: true
    numa_node:
      description: NUMA node of the device; V(-1) when the platform does not say.
      type: int
      returned: always
      sample: 0
    iommu_group:
      description: IOMMU group number (changes across reboots; do not store it); C(null) without IOMMU.
      type: int
      returned: always
      sample: 35
    sriov_totalvfs:
      description: Most VFs the PF can have.
      type: int
      returned: always
      sample: 16
    sriov_numvfs:
      description: VFs enabled now.
      type: int
      returned: always
      sample: 16
    state:
      description: C(qat/state) (V(up) or V(down)); C(null) on generations without it.
      type: str
      returned: always
      sample: up
    cfg_services:
      description: C(qat/cfg_services), e.g. V(sym;asym) or V(dc); C(null) on generations without it.
      type: str
      returned: always
      sample: sym;asym
    vfs:
      description: The PF's VFs in C(virtfnN) order, each as in RV(vfs).
      type: list
      elements: dict
      returned: always
vfs:
  description: Every QAT VF, by PCI address, including VFs whose PF is not visible (in a guest).
  type: list
  elements: dict
  returned: always
  contains:
    pci_address:
      description: PCI address of the VF.
      type: str
      returned: always
      sample: "0000:6b:00.1"
    device_id:
      description: PCI device id.
      type: str
      returned: always
      sample: "4941"
    generation:
      description: Generation name.
      type: str
      returned: always
      sample: 4xxx
    pf:
      description: PCI address of its PF; C(null) when the PF is not visible.
      type: str
      returned: always
      sample: "0000:6b:00.0"
    index:
      description: N of the PF's C(virtfnN) link; C(null) when the PF is not visible.
      type: int
      returned: always
      sample: 0
    driver:
      description: Bound driver (V(vfio-pci), the generation's VF driver such as V(c6xxvf)), or C(null).
      type: str
      returned: always
      sample: vfio-pci
    driver_override:
      description: C(driver_override), C(null) when unset.
      type: str
      returned: always
      sample: vfio-pci
    iommu_group:
      description: IOMMU group number; C(null) without IOMMU.
      type: int
      returned: always
      sample: 36
    vfio_device:
      description: C(/dev/vfio/<group>) when bound to vfio-pci, else C(null).
      type: str
      returned: always
      sample: /dev/vfio/36
    numa_node:
      description: NUMA node; V(-1) when unknown.
      type: int
      returned: always
      sample: 0
    assignable:
      description: Whether the VF is bound to vfio-pci and can be passed to a VM.
      type: bool
      returned: always
      sample: true
assignable_vfs:
  description: The entries of RV(vfs) whose C(assignable) is true.
  type: list
  elements: dict
  returned: always
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.realtime.virt.plugins.module_utils._common.options import root_argument_spec
from ansible_collections.realtime.virt.plugins.module_utils._common.runner import exit_read
from ansible_collections.realtime.virt.plugins.module_utils._qat.gather import gather_qat


def main():
    module = AnsibleModule(
        argument_spec=root_argument_spec(),
        supports_check_mode=True,
    )
    exit_read(module, "qat_vf_info", gather_qat)


if __name__ == "__main__":
    main()
