# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The errors every part of the collection raises, with one message format.

A message names what is wrong and how to fix it, always in this shape::

    <option>=<value>: <why>. Fix: <fix>

The ``<option>=<value>: `` head appears when the error is about an option
(:class:`OptionError`); ``. Fix: <fix>`` when there is a fix to give.
Modules and filters catch :class:`RealtimeVirtError` once and hand
``str(error)`` to the user.

* :class:`OptionError`: an input value that cannot work, found before the
  host was touched.
* :class:`HostError`: the host lacks what the task needs (a device, a
  driver, a readable tree).
* :class:`ApplyError`: the kernel or libvirt refused a change, or did not
  end in the wanted state; the message says what was done before.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class RealtimeVirtError(Exception):
    """Base class: ``str(error)`` is the whole message for the user."""

    option = None
    value = None

    def __init__(self, why, fix=None):
        self.why = why
        self.fix = fix
        super(RealtimeVirtError, self).__init__(self._message())

    def _message(self):
        text = self.why
        if self.fix:
            text = "%s. Fix: %s" % (text.rstrip(". "), self.fix)
        if self.option is not None:
            text = "%s=%r: %s" % (self.option, self.value, text)
        return text


class OptionError(RealtimeVirtError, ValueError):
    """An option (or variable) whose value cannot work; nothing was changed."""

    def __init__(self, option, value, why, fix=None):
        self.option = option
        self.value = value
        super(OptionError, self).__init__(why, fix)


class HostError(RealtimeVirtError):
    """The host does not have what the task needs; nothing was changed."""


class ApplyError(RealtimeVirtError):
    """A change the kernel or libvirt refused or did not complete."""
