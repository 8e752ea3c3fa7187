# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Typed errors raised by the _libvirt helpers; the module reports them once."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class DomainError(Exception):
    """Base class: ``str(error)`` is the complete message for the user."""


class InputError(DomainError):
    """An option value that cannot work, found before anything is touched."""

    def __init__(self, option, value, why, fix=None):
        self.option = option
        self.value = value
        self.why = why
        self.fix = fix
        message = "option %s=%r: %s" % (option, value, why)
        if fix:
            message += "; %s" % fix
        super(InputError, self).__init__(message)


class LibvirtCallError(DomainError):
    """libvirt refused an operation on a domain.

    ``element`` names the part of the definition the failure is about when it
    can be told from libvirt's message (``None`` otherwise).
    """

    def __init__(self, domain, action, cause, element=None, fix=None):
        self.domain = domain
        self.action = action
        self.cause = cause
        self.element = element
        self.fix = fix
        where = ""
        if element:
            where = " (element <%s>)" % element
        message = "libvirt could not %s domain %r%s: %s" % (action, domain, where, cause)
        if fix:
            message += "; %s" % fix
        super(LibvirtCallError, self).__init__(message)
