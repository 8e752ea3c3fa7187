# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a libvirt connection URI says about the host (pure, no lxml, no libvirt).

Kept apart from manager.py so that a reader (rt_host_plan,
libvirt_rt_domain_info) asks whether a URI is local without carrying the
writer (manager, render, spec, merge, compare, lxml) in its payload.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# qemu:///system, qemu+unix:///session, lxc:// ...: no host name, so this host
LOCAL_URI = re.compile(r"^[A-Za-z0-9]+(\+unix)?://(/|$)")


def is_local(uri):
    """Whether ``uri`` names this host's libvirt (so its /proc and /sys are the domain's)."""
    return bool(LOCAL_URI.match(uri or ""))
