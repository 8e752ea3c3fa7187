# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The boot-time state file: one physical function per line.

    # comment
    <pf pci address> <vf count> <vf driver>

A boot-time unit reads it and recreates the VFs and their bindings.  The
file is rewritten atomically (a temporary file in the same directory,
flushed, then renamed over the old one), so a crash or a failed write
leaves the previous file whole.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import tempfile

from ansible_collections.realtime.virt.plugins.module_utils._sriov.errors import SriovStateFileError

HEADER = (
    "# Written by realtime.virt.sriov_vfs; read at boot by the realtime-virt-sriov-vfs unit.\n"
    "# One physical function per line: <pf pci address> <vf count> <vf driver>\n"
)


def parse(text, path="state file"):
    """``{pf: (count, driver)}`` of a state file's text."""
    entries = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split()
        if len(words) != 3 or not words[1].isdigit():
            raise SriovStateFileError(
                "%s line %d is %r, not '<pf address> <count> <driver>': fix or remove the line" % (path, number, line))
        entries[words[0]] = (int(words[1]), words[2])
    return entries


def render(entries):
    lines = [HEADER]
    for pf in sorted(entries):
        count, driver = entries[pf]
        lines.append("%s %d %s\n" % (pf, count, driver))
    return "".join(lines)


def read(path):
    """Return the file's text, or None when it does not exist."""
    try:
        with open(path, "r") as handle:
            return handle.read()
    except (IOError, OSError) as error:
        if error.errno == errno.ENOENT:
            return None
        raise SriovStateFileError("cannot read the state file %s (%s)" % (path, error.strerror or error))


def write_atomic(path, text, mode=0o644):
    """Replace ``path`` with ``text``: temporary file + fsync + rename."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        if not os.path.isdir(directory):
            os.makedirs(directory, 0o755)
        fd, temp = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), dir=directory)
    except (IOError, OSError) as error:
        raise SriovStateFileError("cannot write the state file %s (%s): check that its directory is writable"
                                  % (path, error.strerror or error))
    try:
        try:
            os.write(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(temp, mode)
        os.rename(temp, path)
    except (IOError, OSError) as error:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise SriovStateFileError("cannot write the state file %s (%s); the previous file is unchanged"
                                  % (path, error.strerror or error))
