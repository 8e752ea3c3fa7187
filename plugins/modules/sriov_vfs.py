#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: sriov_vfs
short_description: Set the SR-IOV virtual functions of one PCI physical function
version_added: 0.1.0
description:
  - Gives one SR-IOV physical function (PF), named by PCI address, O(count) virtual
    functions (VFs) and binds every VF to O(driver) by PCI address.
  - A different non-zero count goes through 0 first, as the kernel requires
    (writing a new count over a non-zero one fails with EBUSY).
  - Each VF is bound by writing the driver name to its C(driver_override), unbinding it
    from its current driver and writing its address to C(/sys/bus/pci/drivers_probe);
    then the module checks the VF really is on O(driver). IOMMU group numbers are not
    used, they may change across reboots; PCI addresses do not.
  - VFs the module creates are not probed by their own driver first - the PF's
    C(sriov_drivers_autoprobe) is 0 while they appear and back to 1 once each has its
    C(driver_override), before any probe - so no such driver can let a VF go later and
    unbind it from O(driver) (the nvme driver of Linux 6.1 does with an NVMe VF it cannot
    bring up).
  - With O(persist) the PF's line in O(state_file) records the count and driver, so the
    boot-time unit of the C(realtime.virt.sriov) role recreates the VFs and bindings at boot.
    The file is replaced atomically (temporary file, then rename).
  - Works for any SR-IOV device (QAT, network cards, NVMe controllers). The module installs no
    boot-time unit itself; the C(realtime.virt.sriov) role runs it for a list of PFs and
    installs the unit, and the C(realtime.virt.qat) role runs it for QAT PFs and installs the
    same unit.
  - Bad values (an address that is not one, a negative count, more than C(sriov_totalvfs),
    a driver that is not loaded) fail before anything is written.
author:
  - realtime.virt contributors (!UNKNOWN)
extends_documentation_fragment:
  - realtime.virt.attributes
  - realtime.virt.host_root
  - realtime.virt.pci_pf
options:
  count:
    description:
      - Number of VFs, from V(0) (remove every VF) to the PF's C(sriov_totalvfs), or V(max)
        for C(sriov_totalvfs).
    type: str
    required: true
  driver:
    description:
      - Driver every VF is bound to, as named under C(/sys/bus/pci/drivers). Its module must
        be loaded.
    type: str
    default: vfio-pci
  persist:
    description:
      - Record the PF's count and driver in O(state_file) for the boot-time unit. With
        O(count=0) the PF's line is removed.
      - When V(false) the state file is neither read nor written.
    type: bool
    default: true
  state_file:
    description:
      - The boot-time state file, one line per PF - C(<pf> <count> <driver>). Lines of other PFs are kept.
      - It is not placed under O(root).
    type: path
    default: /etc/realtime-virt/sriov-vfs.conf
  vfs_removed:
    description:
      - An earlier task of the same run removes this PF's VFs (a QAT 4xxx or 420xx PF loses them when
        M(realtime.virt.qat_services) changes its services; that module returns RV(realtime.virt.qat_services#module:vfs_removed)).
      - In check mode, where that task wrote nothing, the VFs are planned as if the PF had none, so
        C(--check) predicts their creation as the real run makes it. A real run reads the kernel as usual.
    type: bool
    default: false
    version_added: 0.2.0
notes:
  - The PF's driver must be loaded; without it the kernel cannot change the VF count.
  - Removing VFs that a running VM uses fails with EBUSY; the message says so.
  - vfio-pci refuses DH895xCC, C62x and C3xxx QAT functions unless the kernel runs with
    C(vfio-pci.disable_denylist=1) (Linux 5.9 and later), and needs the IOMMU on.
seealso:
  - module: realtime.virt.qat_vf_info
  - name: PCI Express I/O Virtualization Howto
    description: The kernel's documentation of C(sriov_numvfs) and VF management.
    link: https://docs.kernel.org/PCI/pci-iov-howto.html
  - name: sysfs-bus-pci ABI
    description: C(driver_override), C(drivers_probe), C(sriov_numvfs) and C(sriov_totalvfs).
    link: https://www.kernel.org/doc/Documentation/ABI/testing/sysfs-bus-pci
"""

EXAMPLES = r"""
- name: Sixteen VFs on a QAT 4xxx PF, all on vfio-pci, recreated at boot
  realtime.virt.sriov_vfs:
    pf: "0000:6b:00.0"
    count: 16

- name: As many VFs as the PF supports
  realtime.virt.sriov_vfs:
    pf: "0000:3d:00.0"
    count: max

- name: Two VFs of an NVMe controller for guests, not persisted
  realtime.virt.sriov_vfs:
    pf: "0000:00:04.0"
    count: 2
    driver: vfio-pci
    persist: false

- name: Remove every VF of a PF (and its line in the state file)
  realtime.virt.sriov_vfs:
    pf: "0000:6b:00.0"
    count: 0
"""

RETURN = r"""
pf:
  description: The PF address, normalised to lower case.
  type: str
  returned: success
  sample: "0000:6b:00.0"
pf_driver:
  description: Driver bound to the PF.
  type: str
  returned: success
  sample: 4xxx
driver:
  description: The VF driver.
  type: str
  returned: success
  sample: vfio-pci
count:
  description: VF count asked for (O(count=max) resolved).
  type: int
  returned: success
  sample: 16
sriov_totalvfs:
  description: Most VFs the PF supports.
  type: int
  returned: success
  sample: 16
sriov_numvfs_before:
  description: VF count before the run.
  type: int
  returned: success
  sample: 0
vfs:
  description:
    - The VFs after the run, in C(virtfnN) order. In check mode, VFs that a real run would
      create have C(pci_address) C(null).
  type: list
  elements: dict
  returned: success
  sample: [{"index": 0, "pci_address": "0000:6b:00.1", "driver": "vfio-pci", "driver_override": "vfio-pci", "iommu_group": 36}]
  contains:
    index:
      description: N of the PF's C(virtfnN) link.
      type: int
      returned: always
    pci_address:
      description: PCI address of the VF.
      type: str
      returned: always
    driver:
      description: Bound driver.
      type: str
      returned: always
    driver_override:
      description: C(driver_override), C(null) when unset.
      type: str
      returned: always
    iommu_group:
      description: IOMMU group number (informational; it may change across reboots).
      type: int
      returned: always
vf_addresses:
  description: PCI addresses of the VFs after the run.
  type: list
  elements: str
  returned: success
  sample: ["0000:6b:00.1", "0000:6b:00.2"]
vf_addresses_before:
  description:
    - PCI addresses of the VFs before the run. With O(count=0) in check mode, the VFs a real run
      would remove (the sriov and qat roles' undo checks them against the running domains).
  type: list
  elements: str
  returned: success
  sample: ["0000:6b:00.1", "0000:6b:00.2"]
  version_added: 0.2.0
state_file:
  description: The state file, C(null) when O(persist=false).
  type: str
  returned: success
  sample: /etc/realtime-virt/sriov-vfs.conf
state_file_changed:
  description: Whether the state file was (or, in check mode, would be) rewritten.
  type: bool
  returned: success
  sample: true
actions:
  description:
    - The writes done (or, in check mode, that would be done), in order. On failure, the
      writes done before it.
  type: list
  elements: str
  returned: always
  sample: ["set the VF count of 0000:6b:00.0 to 0: write '0' to /sys/bus/pci/devices/0000:6b:00.0/sriov_numvfs"]
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.realtime.virt.plugins.module_utils._common.options import pf_argument_spec, root_argument_spec
from ansible_collections.realtime.virt.plugins.module_utils._common.runner import run_manager
from ansible_collections.realtime.virt.plugins.module_utils._sriov.manager import SriovVfs


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root_argument_spec(),
            count=dict(type="str", required=True),
            driver=dict(type="str", default="vfio-pci"),
            persist=dict(type="bool", default=True),
            state_file=dict(type="path", default="/etc/realtime-virt/sriov-vfs.conf"),
            vfs_removed=dict(type="bool", default=False),
            **pf_argument_spec()
        ),
        supports_check_mode=True,
    )
    params = module.params
    run_manager(module, "sriov_vfs", lambda: SriovVfs(
        pf=params["pf"], count=params["count"], driver=params["driver"], persist=params["persist"],
        state_file=params["state_file"], root=params["root"], check_mode=module.check_mode,
        vfs_removed=params["vfs_removed"]))


if __name__ == "__main__":
    main()
