# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SysfsWriter: the one writer of /sys for the SR-IOV layer.

It takes the same ``root`` as HostReader, so tests point both at a fake
tree.  A write is one ``open``/``write``/``close`` of the value, as
``echo value > file`` does; the kernel's answer (EBUSY, ENOENT, EINVAL...)
comes back as OSError for the caller to turn into a typed error.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os


class SysfsWriter(object):
    """Write attribute files of a host tree rooted at ``root``."""

    def __init__(self, root="/"):
        self.root = os.path.abspath(root or "/")
        self.log = []

    def path(self, path):
        return os.path.join(self.root, path.lstrip("/"))

    def write(self, path, value):
        """Write ``value`` to the kernel path ``path``; OSError on failure."""
        self.log.append((path, str(value)))
        fd = os.open(self.path(path), os.O_WRONLY | os.O_TRUNC)
        try:
            os.write(fd, str(value).encode("ascii"))
        finally:
            os.close(fd)
