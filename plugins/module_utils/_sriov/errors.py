# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Typed errors of the SR-IOV layer; the module catches SriovError once."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class SriovError(Exception):
    """Base class: the message names the object, the cause and the fix."""


class SriovInputError(SriovError):
    """An option value that cannot work; raised before anything is written."""


class SriovDeviceError(SriovError):
    """The PF is missing or has no SR-IOV capability."""


class SriovBusyError(SriovError):
    """The kernel answered EBUSY on sriov_numvfs (VFs in use)."""


class SriovWriteError(SriovError):
    """A sysfs write failed for another reason."""


class SriovVfVanishedError(SriovError):
    """A VF disappeared between discovery and binding."""


class SriovBindError(SriovError):
    """A VF is not on the wanted driver after the probe."""


class SriovStateFileError(SriovError):
    """The boot-time state file cannot be read or written."""
