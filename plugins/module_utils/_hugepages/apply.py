# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Allocate hugepages per NUMA node and verify what the kernel gave.

Writing ``nr_hugepages`` asks the kernel for a pool size; it answers with
as many pages as it could find contiguous memory for, often fewer on the
first try.  :class:`HugepageAllocator` writes, reads back, compacts memory
and retries, and reports requested against obtained for every node and
size.  It never raises for a shortfall: the caller decides to fail.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import ApplyError
from ansible_collections.realtime.virt.plugins.module_utils._hugepages.plan import hugepage_plan
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._kernel.writer import REFUSED, SysfsWriter
from ansible_collections.realtime.virt.plugins.module_utils._node.gather import gather_node_facts

COMPACT = "/proc/sys/vm/compact_memory"


def _where(target):
    return "any node" if target["node"] is None else "node %d" % target["node"]


def describe(target):
    return "%s %s" % (_where(target), target["size"])


class HugepageAllocator(object):
    """Plan and apply ``pages`` on the host tree at ``root``."""

    def __init__(self, root="/", retries=5, delay=1.0, compact=True, sleep=time.sleep):
        self.root = root
        self.reader = HostReader(root)
        self.writer = SysfsWriter(root)
        self.retries = retries
        self.delay = delay
        self.compact = compact
        self.sleep = sleep

    def facts(self):
        facts, _warnings = gather_node_facts(self.root)
        return facts

    def plan(self, pages, default_size=None, option="pages"):
        return hugepage_plan(self.facts(), pages, default_size=default_size, option=option)

    def _write(self, path, value):
        try:
            self.writer.write(path, "%d\n" % value)
        except (IOError, OSError) as error:
            # The kernel answers ENOMEM/EINVAL on some short allocations; the
            # read-back tells what it really did, so only a missing or
            # read-only file is an error.
            if not self.reader.exists(path) or error.errno in REFUSED:
                raise ApplyError("cannot write %s: %s" % (path, error.strerror or error),
                                 "run as root on a host whose /sys is writable")

    def read(self, path):
        return self.reader.read_int(path)

    def _compact(self):
        if self.compact and self.reader.exists(COMPACT):
            try:
                self.writer.write(COMPACT, "1\n")
            except (IOError, OSError):
                pass

    def apply_one(self, target):
        """Write one pool until it holds ``count`` pages or retries run out."""
        wanted = target["count"]
        attempts = 0
        obtained = self.read(target["path"])
        while True:
            attempts += 1
            self._write(target["path"], wanted)
            obtained = self.read(target["path"])
            if obtained == wanted or attempts > self.retries:
                break
            self._compact()
            if self.delay:
                self.sleep(self.delay)
        return obtained, attempts

    def apply(self, plan):
        """Apply every changed target (shrinking pools first) and report.

        Returns a list of result rows: ``node``, ``size``, ``size_kb``,
        ``requested``, ``before``, ``obtained``, ``attempts``, ``ok``.
        """
        rows = []
        order = sorted(plan["targets"], key=lambda t: (t["count"] >= (t["current"] or 0), t["size_kb"]))
        for target in order:
            before = target["current"]
            if target["changed"]:
                obtained, attempts = self.apply_one(target)
            else:
                obtained, attempts = self.read(target["path"]), 0
            rows.append({
                "node": target["node"],
                "size": target["size"],
                "size_kb": target["size_kb"],
                "requested": target["count"],
                "before": before,
                "obtained": obtained,
                "attempts": attempts,
                "ok": obtained == target["count"],
            })
        return sorted(rows, key=lambda r: (r["size_kb"], -1 if r["node"] is None else r["node"]))


def shortfall_message(rows):
    """The failure text: requested vs obtained for every pool that fell short."""
    short = [row for row in rows if not row["ok"]]
    parts = ["%s: requested %d, obtained %s (was %s, %d attempt(s))"
             % (describe(row), row["requested"], row["obtained"], row["before"], row["attempts"]) for row in short]
    return (
        "the kernel gave fewer hugepages than requested: %s. The pages it did give stay allocated. "
        "Fix: free memory on that node (stop guests or caches), allocate at boot (kernel arguments or the boot-time "
        "unit the hugepages role installs) or lower the count." % "; ".join(parts)
    )


def keep_in_use(rows):
    """Accept the lowered pools the kernel could not shrink all the way.

    A lowered pool keeps the pages something still maps (the kernel frees
    them on release). Such a row - asked below what it had, and left between
    the request and what it had - is marked ``ok`` with ``in_use``, the pages
    kept. A pool that fell short while growing stays a failure. Returns one
    warning per row kept.
    """
    warnings = []
    for row in rows:
        before = row["before"] or 0
        if row["ok"] or not row["requested"] < before or not row["requested"] < row["obtained"] <= before:
            continue
        row["ok"] = True
        row["in_use"] = row["obtained"] - row["requested"]
        warnings.append("%s: %d page(s) stay in the pool because something uses them (asked for %d, the kernel kept %d); "
                        "the kernel frees them when they are released"
                        % (describe(row), row["in_use"], row["requested"], row["obtained"]))
    return warnings


def state_text(targets, key):
    """One line per pool, for ``diff``."""
    return "".join("%s nr_hugepages=%s\n" % (describe(target), target[key]) for target in targets)
