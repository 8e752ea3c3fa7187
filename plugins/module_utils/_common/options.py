# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Argument specs of the options several modules share, each with its doc fragment.

A module merges them into its own spec (``dict(root_argument_spec(),
name=...)``) and lists the fragment in ``extends_documentation_fragment``,
as community.crypto's ``get_*_argument_spec()`` do.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


# libvirt's system instance on this host: the default of every libvirt module's uri.
DEFAULT_URI = "qemu:///system"


def root_argument_spec():
    """``root``, the host tree a module reads: doc fragment ``realtime.virt.host_root``."""
    return dict(root=dict(type="path", default="/"))


def uri_argument_spec():
    """``uri``, the libvirt connection: doc fragment ``realtime.virt.libvirt_connection``."""
    return dict(uri=dict(type="str", default=DEFAULT_URI))


def pf_argument_spec():
    """``pf``, the PCI address of one physical function: doc fragment ``realtime.virt.pci_pf``."""
    return dict(pf=dict(type="str", required=True))
