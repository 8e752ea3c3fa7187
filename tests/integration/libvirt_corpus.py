#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""libvirt_rt_domain's base_xml merge over the corpus, against the real libvirtd.

  libvirt_corpus.py [--uri qemu:///system] [--only NAME ...] [--out result.json]

For every file of tests/corpus/libvirt_domains (as domain
rtv-merge-corpus-<file>, define only, never started, one connection):

1. define the base alone and read libvirt's XML of it (N(base)); a base
   this host's libvirt refuses as it is is skipped, with libvirt's reason;
2. the module (its real manager code, in this process) defines the base
   merged with the real-time option set of tests/unit/fixtures/libvirt_corpus.py;
   libvirt's XML of that is N(merged);
3. every element and attribute of N(base) the option set does not own is
   in N(merged) (compared with the module's rules, not as strings), and
   the option set's own elements are there;
4. a second run and a --check run change nothing;
5. one option changed (priority 1 -> 2) in --check --diff shows exactly
   one line removed and one added, and the real run's diff is the one
   --check predicted and is what libvirt then stores.

Every domain it defines is undefined again.  Prints one JSON document;
exits 1 when a file failed or fewer files defined than sources.json
expects of libvirt 9.0.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import argparse
import copy
import difflib
import json
import os
import sys
import time
import traceback

_HERE = os.path.dirname(os.path.abspath(__file__))
_TOP = os.path.dirname(os.path.dirname(_HERE))
for _path in (os.path.join(_TOP, ".cache", "collections"), os.path.join(_TOP, "tests", "unit", "fixtures")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import libvirt  # noqa: E402  pylint: disable=wrong-import-position
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator  # noqa: E402  pylint: disable=wrong-import-position
from lxml import etree  # noqa: E402  pylint: disable=wrong-import-position

import libvirt_corpus as corpus  # noqa: E402  pylint: disable=wrong-import-position
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.manager import DomainManager  # noqa: E402  pylint: disable=wrong-import-position
from ansible_collections.realtime.virt.plugins.modules.libvirt_rt_domain import argument_spec  # noqa: E402  pylint: disable=wrong-import-position

INACTIVE = libvirt.VIR_DOMAIN_XML_INACTIVE


class SharedConnection(object):
    """The one connection, handed to every manager; closing it is a no-op."""

    def __init__(self, conn):
        self._conn = conn

    def close(self):
        return 0

    def __getattr__(self, name):
        return getattr(self._conn, name)


def parse(text):
    return corpus._parse(text)  # pylint: disable=protected-access


def validated(params):
    result = ArgumentSpecValidator(argument_spec()).validate(params)
    if result.error_messages:
        raise ValueError("; ".join(result.error_messages))
    return result.validated_parameters


def message(error):
    """libvirt's message on one line."""
    return " / ".join(line.strip() for line in (error.get_error_message() or str(error)).splitlines() if line.strip())


def changed_lines(before, after):
    """The '-' and '+' lines of a unified diff of two texts, without headers."""
    out = []
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0):
        if line.startswith(("---", "+++", "@@")):
            continue
        out.append(line)
    return out


class Run(object):
    def __init__(self, conn, uri):
        self.conn = conn
        self.shared = SharedConnection(conn)
        self.uri = uri

    def module(self, params, check_mode=False, diff=False):
        manager = DomainManager(validated(params), check_mode=check_mode, diff=diff,
                                connect=lambda uri: self.shared)
        return manager.run()

    def undefine(self, name):
        try:
            dom = self.conn.lookupByName(name)
        except libvirt.libvirtError:
            return
        if dom.isActive():
            dom.destroy()
        dom.undefine()

    def base_alone(self, root):
        """libvirt's XML of the base defined on its own, or (None, reason)."""
        try:
            dom = self.conn.defineXMLFlags(corpus.to_text(root), getattr(libvirt, "VIR_DOMAIN_DEFINE_VALIDATE", 1))
        except libvirt.libvirtError as error:
            return None, message(error)
        try:
            return dom.XMLDesc(INACTIVE), None
        finally:
            dom.undefine()

    def check_file(self, name):
        base = corpus.adapted(name)
        domain = base.findtext("name")
        self.undefine(domain)
        normalised_base, refused = self.base_alone(base)
        if refused:
            return "skipped", refused, []
        problems = []
        opts = corpus.options(base, self.uri)
        try:
            first = self.module(opts)
            if not first["changed"]:
                problems.append("first run: not changed")
            merged = parse(self.conn.lookupByName(domain).XMLDesc(INACTIVE))
            # 3. nothing of the user's lost, ours applied
            pattern = corpus.strip_owned(corpus.user_view(base, parse(normalised_base)), opts)
            problems.extend("lost: %s" % line for line in corpus.lost(pattern, corpus.explode_sched(merged)))
            problems.extend("not applied: %s" % line for line in corpus.ours_missing(merged, opts))
            # 4. idempotent, exact check mode
            second = self.module(opts)
            if second["changed"]:
                problems.append("second run changed: %s" % second["differences"])
            check = self.module(opts, check_mode=True, diff=True)
            if check["changed"]:
                problems.append("check run changed: %s" % check["differences"])
            if check["diff"]["before"] != check["diff"]["after"]:
                problems.append("check run with nothing to change shows a diff: %s"
                                % changed_lines(check["diff"]["before"], check["diff"]["after"])[:6])
            # 5. a one-option change shows as the lines it touches
            problems.extend(self.one_option_change(domain, opts))
        except Exception as error:  # pylint: disable=broad-except
            problems.append("%s: %s" % (type(error).__name__, str(error).splitlines()[0] if str(error) else ""))
            problems.append(traceback.format_exc().splitlines()[-3])
        finally:
            self.undefine(domain)
        return ("failed" if problems else "defined"), None, problems

    def one_option_change(self, domain, opts):
        problems = []
        raised = copy.deepcopy(opts)
        raised["realtime"]["priority"] = 2
        check = self.module(raised, check_mode=True, diff=True)
        lines = changed_lines(check["diff"]["before"], check["diff"]["after"])
        if not check["changed"]:
            problems.append("priority 2 in check mode: not changed")
        if not self.is_priority_change(lines):
            problems.append("priority 1 -> 2: --diff shows %d changed lines, wanted the one <vcpusched> line out and in: %s"
                            % (len(lines), lines[:6]))
        real = self.module(raised, diff=True)
        if real["diff"] != check["diff"]:
            problems.append("the real run's diff is not the one --check showed: %s"
                            % changed_lines(check["diff"]["after"], real["diff"]["after"])[:6])
        stored = parse(self.conn.lookupByName(domain).XMLDesc(INACTIVE))
        shown = parse(real["diff"]["after"])
        problems.extend("diff 'after' shows what libvirt did not store: %s" % line
                        for line in corpus.lost(shown, stored))
        problems.extend("libvirt stored what diff 'after' did not show: %s" % line
                        for line in corpus.lost(corpus.drop_assigned_addresses(stored, shown), shown))
        return problems

    @staticmethod
    def is_priority_change(lines):
        if len(lines) != 2 or not lines[0].startswith("-") or not lines[1].startswith("+"):
            return False
        try:
            old, new = etree.fromstring(lines[0][1:].strip()), etree.fromstring(lines[1][1:].strip())
        except etree.XMLSyntaxError:
            return False
        return (old.tag == new.tag == "vcpusched" and old.get("vcpus") == new.get("vcpus") == "0"
                and old.get("priority") == "1" and new.get("priority") == "2")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uri", default="qemu:///system")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--out")
    args = parser.parse_args()
    started = time.time()
    libvirt.registerErrorHandler(lambda _context, _error: None, None)  # errors are reported in the result
    conn = libvirt.open(args.uri)
    run = Run(conn, args.uri)
    names = args.only or corpus.names()
    sources = corpus.sources()
    result = {"files": len(names), "defined": [], "skipped": {}, "failed": {}}
    try:
        for name in names:
            status, reason, problems = run.check_file(name)
            if status == "skipped":
                known = sources.get(name, {}).get("refused_by_libvirt_9_0")
                result["skipped"][name] = "%s (libvirt says: %s)" % (known or "refused as it is", reason)
            elif status == "failed":
                result["failed"][name] = problems
            else:
                result["defined"].append(name)
    finally:
        conn.close()
    expected = [name for name in names if "refused_by_libvirt_9_0" not in sources.get(name, {})]
    result["expected_defined_at_least"] = len(expected)
    result["seconds"] = round(time.time() - started, 1)
    defined = len(result["defined"]) + len(result["failed"])
    result["ok"] = not result["failed"] and defined >= len(expected)
    text = json.dumps(result, indent=2, sort_keys=True)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text + "\n")
    print(text)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
