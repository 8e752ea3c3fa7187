# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""libvirt domains: plan, render, compare, apply and observe.

options   the options of one domain (both modules' spec) and the per-item validator
spec      module options + host facts -> a checked plan of the domain (pure)
rng       virtio-rng profiles and their resolution (pure)
render    plan -> domain XML with lxml, merging into base_xml (pure)
merge     child-by-child merge into the base's parents, libvirt's element order (pure)
compare   element-by-element comparison with libvirt's XML (pure)
diff      the --diff: libvirt's XML before, the same with the change applied after (pure)
manager   the manager class of libvirt_rt_domain: the only writer to libvirt
batch     libvirt_rt_domains: the manager's steps for many domains on one connection
marker    the <metadata> mark of the domains libvirt_rt_domains manages (pure)
observe   what libvirt holds and the kernel does for each domain (read only)
errors    LibvirtCallError, libvirt's refusal of an operation
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
