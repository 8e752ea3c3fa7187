# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    """Shared ``attributes:`` blocks for the collection's modules.

    Use ``realtime.virt.attributes`` for a module that changes state and
    supports check and diff mode fully, ``realtime.virt.attributes.info`` for
    a read-only module, and ``realtime.virt.attributes.facts`` besides it for
    one that returns facts.  A module of the
    ``libvirt`` action group (``meta/runtime.yml``) adds
    ``realtime.virt.attributes.actiongroup_libvirt``.
    """

    # Modules that change state: honest check mode and a real diff.
    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: full
"""

    # Read-only modules that return what they found (not as facts).
    INFO = r"""
options: {}
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details:
      - This module only reads the host, so check mode returns the same result as a normal run.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: N/A
    details:
      - This module never changes anything, so there is nothing to diff.
"""

    # Read-only modules that return ansible_facts: listed after ``.info``, whose
    # check and diff attributes they share.
    FACTS = r"""
options: {}
attributes:
  facts:
    description: Action returns an C(ansible_facts) dictionary that will update existing host facts.
    support: full
"""

    # Modules of the libvirt action group of meta/runtime.yml.
    ACTIONGROUP_LIBVIRT = r"""
options: {}
attributes:
  action_group:
    description: Use C(group/realtime.virt.libvirt) in C(module_defaults) to set defaults for this module.
    support: full
    membership:
      - realtime.virt.libvirt
"""
