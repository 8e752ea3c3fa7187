# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The active tuned profile and the thread scheduling its ``[scheduler]`` unit sets.

Read as tuned itself loads a profile (tuned/profiles/loader.py, merger.py,
locator.py of tuned 2.20): the names in ``/etc/tuned/active_profile``
(several, space separated, are merged in order); each name is looked up in
``/etc/tuned`` before ``/usr/lib/tuned`` (``<dir>/profiles/<name>/`` of
tuned 2.24 and later before ``<dir>/<name>/``), skipping a file already
loaded so a profile in /etc may include the one of the same name in
/usr/lib; ``include=`` of ``[main]`` loads the parents first; a unit of a
later profile updates the options of the same unit of an earlier one
(``replace=true`` drops them, ``drop=`` removes the named ones).

A rule ``group.<name>=<rule_prio>:<sched>:<prio>:<affinity>:<regex>`` sets
the policy (``f`` FIFO, ``r`` RR, ``o`` OTHER, ``b`` BATCH, ``i`` IDLE,
``*`` unchanged) and priority of every process whose command line matches
the regex; a kernel thread's command line is its name in brackets
(``[ksoftirqd/3]``).  Rules apply in ``rule_prio`` order, so the last
matching rule wins; ``group.<name>=`` (empty) removes an inherited rule.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible.module_utils.six.moves import configparser

ACTIVE_PROFILE = "/etc/tuned/active_profile"
# tuned's load directories, the one searched first first.
PROFILE_DIRS = ("/etc/tuned/profiles", "/etc/tuned", "/usr/lib/tuned/profiles", "/usr/lib/tuned")
POLICIES = {"f": "SCHED_FIFO", "r": "SCHED_RR", "o": "SCHED_OTHER", "b": "SCHED_BATCH", "i": "SCHED_IDLE"}
_LIST = re.compile(r"\s*[,;]\s*")


def _parse(text, path):
    parser = configparser.ConfigParser(delimiters=("=",), inline_comment_prefixes=("#",), strict=False,
                                       interpolation=None)
    parser.optionxform = str
    parser.read_string(text, path)
    return dict((section, dict(parser.items(section))) for section in parser.sections())


def _locate(reader, name, loaded):
    for directory in PROFILE_DIRS:
        path = "%s/%s/tuned.conf" % (directory, name)
        if path in loaded:
            continue
        if reader.exists(path):
            return path
    return None


def _load(reader, names, loaded, units, errors):
    """Load ``names`` (parents first) into ``units``: unit name -> options."""
    for name in names:
        optional = name.startswith("-")
        name = name.lstrip("-")
        if not name or "/" in name:
            continue
        path = _locate(reader, name, loaded)
        if path is None:
            if not optional:
                errors.append("tuned profile %r is not in %s" % (name, ", ".join(PROFILE_DIRS)))
            continue
        loaded.append(path)
        try:
            config = _parse(reader.read(path) or "", path)
        except configparser.Error as error:
            errors.append("%s cannot be parsed: %s" % (path, str(error).splitlines()[0]))
            continue
        include = (config.get("main") or {}).get("include")
        if include:
            if "${" in include:
                errors.append("%s includes %r, which names a variable; its rules are left out" % (path, include))
            else:
                _load(reader, [part for part in _LIST.split(include.strip()) if part], loaded, units, errors)
        for unit, options in config.items():
            if unit in ("main", "variables"):
                continue
            options = dict(options)
            replace = str(options.pop("replace", "")).lower() in ("true", "1")
            drop = options.pop("drop", None)
            if replace or unit not in units:
                units[unit] = options
                continue
            for option in _LIST.split(drop or ""):
                units[unit].pop(option, None)
            units[unit].update(options)


def scheduler_rules(options):
    """The ``group.*`` rules of a scheduler unit's options, in the order tuned applies them."""
    rules = []
    for order, (option, value) in enumerate(options.items()):
        if not option.startswith("group.") or not value:
            continue
        parts = str(value).split(":", 4)
        if len(parts) != 5:
            continue
        rule_prio, sched, prio, affinity, regex = parts
        try:
            rule = {"group": option[len("group."):], "rule_prio": int(rule_prio), "order": order,
                    "policy": POLICIES.get(sched) if sched != "*" else None,
                    "priority": int(prio), "affinity": affinity, "regex": regex}
            re.compile(regex)
        except (ValueError, re.error):
            continue
        if sched != "*" and sched not in POLICIES:
            continue
        rules.append(rule)
    return sorted(rules, key=lambda rule: (rule["rule_prio"], rule["order"]))


def rule_for(rules, comm):
    """The rule that decides a kernel thread's scheduling (the last that matches), or None."""
    found = None
    for rule in rules or []:
        if re.search(rule["regex"], "[%s]" % comm):
            found = rule
    return found


def read_tuned(reader):
    """``{installed, active, files, rules, errors}`` of the host's tuned.

    ``installed``: a profile directory exists; ``active``: the profile
    names of ``/etc/tuned/active_profile`` (empty when none is active);
    ``files``: the tuned.conf files read, each before its parents; ``rules``: the
    merged ``[scheduler]`` group rules (:func:`scheduler_rules`).
    """
    installed = any(reader.exists(directory) for directory in PROFILE_DIRS if directory.startswith("/usr"))
    text = reader.read(ACTIVE_PROFILE, optional=True)
    active = (text or "").split()
    loaded, units, errors = [], {}, []
    _load(reader, active, loaded, units, errors)
    options = {}
    for unit, unit_options in units.items():
        if unit == "scheduler" or unit_options.get("type") == "scheduler":
            options.update(unit_options)
    return {"installed": installed, "active": active, "files": loaded, "rules": scheduler_rules(options),
            "errors": errors}


# tuned-adm list prints each profile as "- <name>", padded with spaces to
# column 30, then "- <summary>" (tuned/admin/admin.py, _print_profiles, and
# align_str of tuned/utils/commands.py). A name of 28 characters or more
# gets no padding at all, so its summary follows right after it: "- <name>- <summary>".
_LIST_HEADER = "Available profiles:"
_SUMMARY_COLUMN = 30
_ACTIVE_PREFIX = "Current active profile:"


def _listed_name(line):
    rest = line[2:]
    words = rest.split()
    if not words:
        return None
    name = words[0]
    if name.endswith("-") and len("- " + name) > _SUMMARY_COLUMN and rest[len(name):len(name) + 1] == " ":
        # the unpadded form: "- <long name>- <summary>"
        name = name[:-1]
    return name


def listed_profiles(text):
    """The profile names of ``tuned-adm list`` output, in the order listed.

    Only the lines after ``Available profiles:`` that start with ``- `` are
    entries; the list ends at the first other line (the active profile, or
    tuned-adm's note that the daemon is not running).
    """
    names = []
    in_list = False
    for line in (text or "").splitlines():
        if line.strip() == _LIST_HEADER:
            in_list = True
            continue
        if not in_list:
            continue
        if not line.startswith("- "):
            break
        name = _listed_name(line)
        if name:
            names.append(name)
    return names


def active_profiles(text):
    """The names of ``Current active profile: <names>`` in ``tuned-adm active`` (or ``list``) output.

    Several names mean merged profiles. Empty when tuned-adm says no profile
    is active, or prints only the preset profile of a daemon that does not run.
    """
    for line in (text or "").splitlines():
        if line.startswith(_ACTIVE_PREFIX):
            return line[len(_ACTIVE_PREFIX):].split()
    return []
