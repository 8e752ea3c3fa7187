# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Live values the host roles set, read back for rt_validate's drift check.

Sysctls by name (``/proc/sys``), the SR-IOV state of physical functions
(``sriov_numvfs`` and the driver of each VF) and whether rt_host's reboot
marker is there.  The values they should have come from the roles'
variables, never from here.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._kernel import pci

SYSCTL_NAME = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$")


def sysctl_path(name, option="sysctls"):
    """``kernel.sched_rt_runtime_us`` -> ``/proc/sys/kernel/sched_rt_runtime_us``."""
    if not isinstance(name, str) or not SYSCTL_NAME.match(name):
        raise OptionError(option, name, "not a sysctl name",
                          "write the dotted name sysctl prints, e.g. kernel.sched_rt_runtime_us")
    return "/proc/sys/" + name.replace(".", "/")


def read_sysctls(reader, names, option="sysctls"):
    """``{name: value as the kernel prints it}``; None for a sysctl this kernel lacks."""
    paths = [(name, sysctl_path(name, option)) for name in names or []]
    return dict((name, reader.read(path, optional=True)) for name, path in paths)


def read_pfs(reader, addresses, option="pfs"):
    """SR-IOV state of each PF: ``{pf, present, sriov_numvfs, sriov_totalvfs, vfs: [{pci_address, driver}]}``."""
    result = []
    for address in addresses or []:
        pf = str(address).strip().lower()
        if not pci.ADDRESS.match(pf):
            raise OptionError(option, address, "not a PCI address",
                              "give domain:bus:device.function as 'lspci -D' prints it, e.g. 0000:6b:00.0")
        present = pci.exists(reader, pf)
        result.append({
            "pf": pf,
            "present": present,
            "sriov_numvfs": reader.read_int(pci.device_path(pf, "sriov_numvfs"), optional=True) if present else None,
            "sriov_totalvfs": reader.read_int(pci.device_path(pf, "sriov_totalvfs"), optional=True) if present else None,
            "vfs": [{"index": index, "pci_address": vf, "driver": pci.driver(reader, vf)}
                    for index, vf in pci.virtfns(reader, pf)] if present else [],
        })
    return result
