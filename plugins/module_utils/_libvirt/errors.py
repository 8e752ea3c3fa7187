# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one libvirt-specific error: libvirt refused an operation on a domain."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import ApplyError


class LibvirtCallError(ApplyError):
    """libvirt refused an operation on a domain.

    ``element`` names the part of the definition the failure is about when it
    can be told from libvirt's message (``None`` otherwise).
    """

    def __init__(self, domain, action, cause, element=None, fix=None):
        self.domain = domain
        self.action = action
        self.cause = cause
        self.element = element
        where = " (element <%s>)" % element if element else ""
        super(LibvirtCallError, self).__init__("libvirt could not %s domain %r%s: %s" % (action, domain, where, cause),
                                               fix)
