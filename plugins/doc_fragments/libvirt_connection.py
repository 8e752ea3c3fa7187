# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    """The ``uri`` option and the libvirt requirement of the modules that talk to libvirt.

    Its argument spec is ``_common/options.uri_argument_spec()``; whether a
    URI names this host is ``_libvirt/uri.is_local()``.
    """

    DOCUMENTATION = r"""
options:
  uri:
    description:
      - libvirt connection URI. The task opens this one connection for all the domains it handles.
      - What the module reads of the host itself from C(/proc) and C(/sys) (a running domain's vCPU
        threads, and, where the module defines domains, the checks of its options against the host)
        needs a URI of this host, one without a host name, such as the default; on any other URI
        those parts are left out.
    type: str
    default: qemu:///system
requirements:
  - libvirt-python
"""
