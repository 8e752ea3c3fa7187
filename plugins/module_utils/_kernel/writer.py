# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one writer of the collection: kernel attribute files and atomic files.

:class:`SysfsWriter` takes the same ``root`` as :class:`HostReader`, so the
tests point both at a fake tree.  A write is one ``open``/``write``/
``close`` of the value, as ``echo value > file`` does; the kernel's answer
(EBUSY, ENOENT, EINVAL...) comes back as OSError for the caller to turn
into a typed error.  :func:`write_atomic` replaces a configuration file
whole or not at all.  Nothing else in module_utils opens a file for
writing.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import tempfile

# The kernel refused the write itself (not a short answer to a request):
# the file is read-only, or this process may not write it.
REFUSED = frozenset((errno.EPERM, errno.EACCES, errno.EROFS))


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


def write_atomic(path, text, mode=0o644):
    """Replace ``path`` with ``text``: temporary file, fsync, rename.

    A crash or a failed write leaves the previous file whole.  Raises
    OSError (the temporary file is removed first).
    """
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    fd, temp = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), dir=directory)
    try:
        try:
            os.write(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(temp, mode)
        os.rename(temp, path)
    except (IOError, OSError):
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
