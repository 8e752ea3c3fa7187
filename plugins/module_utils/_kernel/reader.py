# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one reader of /proc and /sys used by every module of the collection.

Every path is given as the kernel's absolute path (``/proc/cmdline``) and
resolved under ``root``, so the same code reads the live host (``root='/'``),
a chroot, an unpacked sosreport or a test fixture tree.  Reads never raise
for a missing or unreadable file: they return ``None`` and remember a
warning, which the module hands to Ansible.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import HostError


def checked_root(root):
    """Return ``root`` when it is a directory; raise ``HostError`` otherwise.

    The one check of the ``root`` option (doc fragment
    ``realtime.virt.host_root``) that the readers of a host tree make
    before reading it.
    """
    if not isinstance(root, str) or not os.path.isdir(root):
        raise HostError(
            "root=%r is not a directory" % (root,),
            "give the directory that stands for / of the host (the top of a host tree, which holds proc/ and "
            "sys/, such as an unpacked sosreport or a chroot) or leave root at its default '/'")
    return root


class HostReader(object):
    """Read files of a host tree rooted at ``root``."""

    def __init__(self, root="/"):
        self.root = os.path.abspath(root or "/")
        self.warnings = []

    def path(self, path):
        """Map a kernel absolute path to the file under ``root``."""
        return os.path.join(self.root, path.lstrip("/"))

    def _warn(self, path, error):
        if getattr(error, "errno", None) == errno.ENOENT:
            why = "it does not exist"
        else:
            why = getattr(error, "strerror", None) or str(error)
        self.warnings.append("could not read %s (%s); the facts that depend on it are left out" % (path, why))

    def exists(self, path):
        return os.path.exists(self.path(path))

    def read(self, path, optional=False):
        """Return the file's text with trailing whitespace stripped, or None.

        ``optional`` files (that only some kernels or hardware have) produce
        no warning when absent.
        """
        try:
            with open(self.path(path), "r") as handle:
                return handle.read().rstrip()
        except (IOError, OSError, UnicodeDecodeError) as error:
            if not (optional and getattr(error, "errno", None) == errno.ENOENT):
                self._warn(path, error)
            return None

    def read_int(self, path, optional=False):
        text = self.read(path, optional=optional)
        if text is None:
            return None
        try:
            return int(text.split()[0])
        except (ValueError, IndexError):
            self.warnings.append("%s holds %r, not a number; the fact is left out" % (path, text))
            return None

    def listdir(self, path, optional=False):
        """Sorted entries of a directory, or [] when it cannot be read."""
        try:
            return sorted(os.listdir(self.path(path)))
        except (IOError, OSError) as error:
            if not (optional and getattr(error, "errno", None) == errno.ENOENT):
                self._warn(path, error)
            return []

    def mode(self, path):
        """Permission bits of a file (``st_mode & 0o777``), or None when it cannot be seen.

        The kernel tells some things by a file's mode alone: since 2024 it
        creates ``/proc/irq/<N>/smp_affinity`` read-only (0444) for an
        interrupt whose affinity userspace cannot set.
        """
        try:
            return os.stat(self.path(path)).st_mode & 0o777
        except (IOError, OSError):
            return None

    def readlink(self, path, optional=True):
        """Target of a symbolic link (as the kernel wrote it), or None."""
        try:
            return os.readlink(self.path(path))
        except (IOError, OSError) as error:
            if not (optional and getattr(error, "errno", None) in (errno.ENOENT, errno.EINVAL)):
                self._warn(path, error)
            return None

    def link_name(self, path):
        """Last component of a link's target (a driver or group name)."""
        target = self.readlink(path)
        if target is None:
            return None
        return os.path.basename(target.rstrip("/"))
