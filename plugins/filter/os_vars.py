# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The roles' OS variable files, most specific first (as linux-system-roles look them up)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible.module_utils.common.collections import is_string

DEFAULT = "default.yml"
# What setup reports for a fact it could not find.
UNKNOWN = ("", "NA")


def _fact(facts, name):
    value = facts.get(name)
    if value is None:
        return None
    value = str(value).strip()
    return None if value in UNKNOWN else value


def os_vars_files(facts):
    """``ansible_facts`` -> vars file names to try in order, each once:
    ``<distribution>_<version>.yml``, ``<distribution>_<major version>.yml``,
    ``<distribution>.yml``, ``<os_family>.yml``, ``default.yml``; a name whose
    facts are missing (or ``NA``) is left out."""
    if not isinstance(facts, Mapping) or is_string(facts):
        raise AnsibleFilterError(
            "os_vars_files: the input is %r, not a dictionary of facts. Fix: pass ansible_facts, "
            "gathered with at least the distribution subset" % (facts,))
    distribution = _fact(facts, "distribution")
    version = _fact(facts, "distribution_version")
    major = _fact(facts, "distribution_major_version")
    family = _fact(facts, "os_family")
    names = []
    if distribution:
        if version:
            names.append("%s_%s.yml" % (distribution, version))
        if major:
            names.append("%s_%s.yml" % (distribution, major))
        names.append("%s.yml" % distribution)
    if family:
        names.append("%s.yml" % family)
    names.append(DEFAULT)
    unique = []
    for name in names:
        if name not in unique:
            unique.append(name)
    return unique


class FilterModule(object):
    """OS variable lookup of the roles."""

    def filters(self):
        return {"os_vars_files": os_vars_files}
