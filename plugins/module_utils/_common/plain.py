# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Copies of playbook data as plain dicts and lists (pure).

A filter receives the playbook's data in ansible-core's own containers:
from 2.19 on, lazy dicts and lists that carry the templar that made them.
copy.deepcopy of such a container copies that templar and its plugin
loaders too, which is slow and, from ansible-core 2.21, prints a
deprecation warning ("Instantiating filter PluginLoader with aliases") on
every run. The planning code only needs the data: plain_copy rebuilds the
mappings and sequences as dicts and lists and shares the scalars, which are
immutable.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections.abc import Mapping


def plain_copy(value):
    """``value`` with every mapping a new dict and every list or tuple a new list or tuple."""
    if isinstance(value, Mapping):
        return dict((key, plain_copy(item)) for key, item in value.items())
    if isinstance(value, tuple):
        return tuple(plain_copy(item) for item in value)
    if isinstance(value, list):
        return [plain_copy(item) for item in value]
    return value
