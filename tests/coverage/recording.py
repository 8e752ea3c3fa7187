#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The environment that makes ansible-playbook record the role tasks it runs.

  recording.py --shell    print export lines for a shell to eval

The callback tests/coverage/callback_plugins/realtime_virt_coverage.py is
added to ANSIBLE_CALLBACK_PLUGINS (':'-separated) and
ANSIBLE_CALLBACKS_ENABLED (','-separated) next to what they already hold,
once; REALTIME_VIRT_COVERAGE_DIR defaults to tests/output/coverage. A
REALTIME_VIRT_COVERAGE_DIR set to the empty string stays empty: recording
off. The Makefile does the same in make's syntax; scripts/molecule.sh,
tests/integration/run.sh and tests/integration/check_mode_proof.py use this.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

try:
    from shlex import quote
except ImportError:  # pragma: no cover
    from pipes import quote

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
CALLBACK_DIR = os.path.join(HERE, "callback_plugins")
CALLBACK_NAME = "realtime_virt_coverage"
DEFAULT_DIR = os.path.join(TOP, "tests", "output", "coverage")
VARIABLES = ("REALTIME_VIRT_COVERAGE_DIR", "ANSIBLE_CALLBACK_PLUGINS", "ANSIBLE_CALLBACKS_ENABLED")


def _add(value, item, separator, same):
    parts = [part for part in (value or "").split(separator) if part.strip()]
    if any(same(part.strip(), item) for part in parts):
        return separator.join(parts)
    return separator.join(parts + [item])


def _same_dir(one, two):
    return os.path.realpath(one) == os.path.realpath(two)


def recording_environ(environ=None):
    """A copy of environ (os.environ by default) with role-task recording on."""
    env = dict(os.environ if environ is None else environ)
    env.setdefault("REALTIME_VIRT_COVERAGE_DIR", DEFAULT_DIR)
    env["ANSIBLE_CALLBACK_PLUGINS"] = _add(env.get("ANSIBLE_CALLBACK_PLUGINS"), CALLBACK_DIR, ":", _same_dir)
    env["ANSIBLE_CALLBACKS_ENABLED"] = _add(env.get("ANSIBLE_CALLBACKS_ENABLED"), CALLBACK_NAME, ",",
                                            lambda one, two: one == two)
    return env


def main(argv):
    if argv != ["--shell"]:
        sys.stderr.write("usage: recording.py --shell\n")
        return 2
    env = recording_environ()
    for name in VARIABLES:
        print("export %s=%s" % (name, quote(env[name])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
