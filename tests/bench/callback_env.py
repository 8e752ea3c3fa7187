# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The environment the benchmarks run ansible-playbook in: this checkout's
collection and ansible.cfg, and the benchmarks' callbacks (callback_plugins/)
enabled beside any the caller already has, each writing to the file its
variable names."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))


def playbook_environment(callbacks, files):
    """``os.environ`` plus ``callbacks`` (names) enabled and ``files`` (variable -> path) set."""
    env = dict(os.environ)
    env.setdefault("ANSIBLE_CONFIG", os.path.join(TOP, "ansible.cfg"))
    env.setdefault("ANSIBLE_COLLECTIONS_PATH", os.path.join(TOP, ".cache", "collections"))
    plugins = [p for p in env.get("ANSIBLE_CALLBACK_PLUGINS", "").split(":") if p]
    env["ANSIBLE_CALLBACK_PLUGINS"] = ":".join(plugins + [os.path.join(HERE, "callback_plugins")])
    enabled = [c for c in env.get("ANSIBLE_CALLBACKS_ENABLED", "").split(",") if c]
    env["ANSIBLE_CALLBACKS_ENABLED"] = ",".join(enabled + [c for c in callbacks if c not in enabled])
    env.update(files)
    return env
