# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""How the KubeVirt readers and writer refuse a field: by its path, its value and a fix (pure)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError

AS_KUBEVIRT = "write it as the KubeVirt API does (see 'kubectl explain')"


def fail(path, value, why, fix):
    raise OptionError(path, value, why, fix)


def mapping(path, value, fix=AS_KUBEVIRT):
    """``value`` as a dict ({} when None), or refused naming ``path``."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        fail(path, value, "must be a mapping", fix)
    return value


def whole(path, value, least=1):
    """``value`` as a whole number of at least ``least`` (None when unset), or refused naming ``path``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        fail(path, value, "must be a whole number, %d or more" % least, "write a number such as 2, without quotes")
    return value
