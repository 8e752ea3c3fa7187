#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: qat_services
short_description: Set the services of an Intel QAT 4xxx/420xx physical function
version_added: 0.1.0
description:
  - Sets C(qat/cfg_services) of one Gen4 Intel QuickAssist physical function (PF) - 4xxx,
    401xx, 402xx or 420xx - named by PCI address.
  - Reads C(qat/state) and C(qat/cfg_services) first. When the device already runs the
    services asked for (in any order), nothing is written.
  - Otherwise, as the driver requires, it writes V(down) to C(qat/state) (unless the device
    is already down), then the services to C(qat/cfg_services), then V(up) to C(qat/state),
    and reads both files back. A device that refuses the services, or does not come back
    V(up), fails the task with the writes done so far; after a refused write the module
    brings the device back up.
  - Taking the device down removes every VF of the PF (the driver disables SR-IOV), so do it
    while no VM uses them, and create the VFs again afterwards; RV(vfs_removed) says how many went
    away, and a warning names the PF.
  - Bad values (an address that is not one, an unknown service, a repeated one, more than
    two, C(dcc) with another) fail before anything is read or written.
author:
  - realtime.virt contributors (!UNKNOWN)
extends_documentation_fragment:
  - realtime.virt.attributes
  - realtime.virt.host_root
  - realtime.virt.pci_pf
options:
  services:
    description:
      - Services joined by C(;), from V(sym), V(asym), V(dc) and V(dcc). A Gen4 device runs
        at most two at once, and V(dcc) stands alone. Examples - V(sym;asym), V(dc), V(sym;dc).
      - The order does not matter when comparing with the device; the string is written as
        given (lower case, spaces removed).
    type: str
    required: true
notes:
  - The PF's driver (C(qat_4xxx) or C(qat_420xx)) must be bound; without it there is no
    C(qat/) directory and the module fails saying so.
  - Older generations (DH895xCC, C62x, C3xxx) have no configurable services.
  - The services do not survive a reboot by themselves; the C(realtime.virt.qat) role records
    them for its boot-time unit.
seealso:
  - module: realtime.virt.qat_vf_info
  - module: realtime.virt.sriov_vfs
  - name: sysfs-driver-qat ABI
    description: The kernel's documentation of C(qat/state) and C(qat/cfg_services).
    link: https://www.kernel.org/doc/Documentation/ABI/testing/sysfs-driver-qat
"""

EXAMPLES = r"""
- name: Symmetric and asymmetric crypto on one 4xxx PF
  realtime.virt.qat_services:
    pf: "0000:6b:00.0"
    services: sym;asym

- name: Compression only on every Gen4 PF qat_vf_info found
  realtime.virt.qat_services:
    pf: "{{ item.pci_address }}"
    services: dc
  loop: "{{ qat.pfs | selectattr('services_supported') | list }}"
  loop_control:
    label: "{{ item.pci_address }}"
"""

RETURN = r"""
pf:
  description: The PF address, normalised to lower case.
  type: str
  returned: success
  sample: "0000:6b:00.0"
services:
  description:
    - C(qat/cfg_services) after the run, as read back; in check mode, what a real run would
      leave.
  type: str
  returned: success
  sample: sym;asym
services_before:
  description: C(qat/cfg_services) before the run.
  type: str
  returned: success
  sample: dc
state:
  description: C(qat/state) after the run (or, in check mode, predicted).
  type: str
  returned: success
  sample: up
state_before:
  description: C(qat/state) before the run.
  type: str
  returned: success
  sample: up
actions:
  description:
    - The writes done (or, in check mode, that would be done), in order. On failure, the
      writes done before it.
  type: list
  elements: str
  returned: always
  sample:
    - "take 0000:6b:00.0 down: write 'down' to /sys/bus/pci/devices/0000:6b:00.0/qat/state"
    - "set the services of 0000:6b:00.0: write 'sym;asym' to /sys/bus/pci/devices/0000:6b:00.0/qat/cfg_services"
    - "bring 0000:6b:00.0 up: write 'up' to /sys/bus/pci/devices/0000:6b:00.0/qat/state"
vfs_removed:
  description:
    - How many VFs the services change took away (in check mode, would take away). The driver disables
      SR-IOV when the device goes down, so every VF of the PF is gone afterwards; create them again with
      M(realtime.virt.sriov_vfs) (the qat role does, after the services). V(0) when nothing was changed.
  type: int
  returned: success
  sample: 16
  version_added: 0.2.0
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.realtime.virt.plugins.module_utils._common.options import pf_argument_spec, root_argument_spec
from ansible_collections.realtime.virt.plugins.module_utils._common.runner import run_manager
from ansible_collections.realtime.virt.plugins.module_utils._qat.services import QatServices


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root_argument_spec(),
            services=dict(type="str", required=True),
            **pf_argument_spec()
        ),
        supports_check_mode=True,
    )
    params = module.params
    run_manager(module, "qat_services", lambda: QatServices(
        pf=params["pf"], services=params["services"], root=params["root"], check_mode=module.check_mode))


if __name__ == "__main__":
    main()
