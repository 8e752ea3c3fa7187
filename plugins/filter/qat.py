# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""QAT placement filter: NUMA-local free VFs for domains."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._qat.placement import select_vfs


def qat_vf_select(vfs, requests, used=None):
    """``assignable_vfs | qat_vf_select(requests, used)`` -> ``{domain: [addresses]}``."""
    try:
        return select_vfs(vfs, requests, used)
    except OptionError as error:
        raise AnsibleFilterError("qat_vf_select: %s" % error)


class FilterModule(object):
    """QAT filters."""

    def filters(self):
        return {"qat_vf_select": qat_vf_select}
