# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Private helpers of the libvirt_rt_domain module.

_spec     turns module options plus host facts into a checked plan (pure)
_rng      virtio-rng profiles and their resolution (pure)
_render   plan -> domain XML with lxml, merging into base_xml (pure)
_compare  element-by-element comparison with libvirt's XML (pure)
_domain   the manager class: the only place that talks to libvirt
_errors   typed errors the module turns into failure messages
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
