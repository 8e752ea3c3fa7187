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

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import ApplyError, HostError
from ansible_collections.realtime.virt.plugins.module_utils._kernel.writer import write_atomic

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
            raise HostError("%s line %d is %r, not '<pf address> <count> <driver>'" % (path, number, line),
                            "fix or remove the line")
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
        raise HostError("cannot read the state file %s (%s)" % (path, error.strerror or error),
                        "check its permissions, or remove it to start afresh")


def write(path, text):
    """Replace the state file whole (see write_atomic); the old one stays on failure."""
    try:
        write_atomic(path, text)
    except (IOError, OSError) as error:
        raise ApplyError("cannot write the state file %s (%s); the previous file is unchanged"
                         % (path, error.strerror or error), "check that its directory is writable")


def recorded_pfs(text, removed=()):
    """The PFs a boot-time file still records once the lines of ``removed`` go.

    Reads the first word of every line that is neither empty nor a comment,
    so it serves the state file (``<pf> <count> <driver>``) and the QAT
    services file (``<pf> <services>``) alike. The words are lowercased and
    compared with ``removed`` as given; sorted, each PF once.
    """
    removed = set(removed or ())
    kept = set()
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pf = line.split()[0].lower()
        if pf not in removed:
            kept.add(pf)
    return sorted(kept)
