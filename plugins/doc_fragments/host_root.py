# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    """The ``root`` option of every module that reads (or writes) a host tree.

    Its argument spec is ``_common/options.root_argument_spec()``; the
    readers check it with ``_kernel/reader.checked_root()``.
    """

    DOCUMENTATION = r"""
options:
  root:
    description:
      - Directory that stands for C(/) of the host. Kernel paths such as C(/proc/cmdline) or
        C(/sys/bus/pci/devices) are read (and, by a module that changes the host, written) as
        O(root)C(/proc/cmdline).
      - Leave it at V(/) on a real host; give a captured host tree (an unpacked sosreport, a
        chroot, a test fixture) to read that instead.
      - Must be an existing directory.
    type: path
    default: /
"""
