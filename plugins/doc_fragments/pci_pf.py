# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    """The ``pf`` option of the modules that act on one SR-IOV physical function (qat_services, sriov_vfs)."""

    DOCUMENTATION = r"""
options:
  pf:
    description:
      - PCI address of the physical function, in the full form C(lspci -D) prints
        (domain:bus:device.function), e.g. V(0000:6b:00.0).
    type: str
    required: true
"""
