# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The manager of libvirt_rt_domains: many domains, one connection.

Each domain gets exactly the work libvirt_rt_domain does (manager.py's
``DomainManager``: the same checks, rendering, comparison, define and
state steps); what this file adds is the order around it:

1. every item is validated against libvirt_rt_domain's argument spec
   (options.py) and the names are checked to be unique;
2. the host's facts are read once, and every valid item is prepared
   against them (``build_spec`` and the wanted XML); nothing touched yet;
3. one connection is opened (only when there is something to do on it);
4. with ``exclusive``, the domains carrying this task's mark (marker.py)
   that no item names are found, and removed with ``remove_unlisted``;
5. each valid item is converged on the open connection, in order.

An item that fails at step 1 or 2 is never defined.  A failure of one
domain does not stop the others unless ``fail_fast``; the module fails at
the end naming every failed domain (``summary()``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError, RealtimeVirtError
from ansible_collections.realtime.virt.plugins.module_utils._common.options import DEFAULT_URI
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._libvirt import marker
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.errors import LibvirtCallError
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.manager import DomainManager, host_facts, wants_rdt
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.options import ItemValidator, item_label
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import parse_xml

try:
    import libvirt
except ImportError:  # pragma: no cover - reported by the module through missing_required_lib
    libvirt = None

DEFAULT_OWNER = "realtime.virt"


class Entry(object):
    """One item of ``domains``: its options, its manager, its outcome."""

    def __init__(self, index, item):
        self.index = index
        self.label = item_label(index, item)
        name = item.get("name") if isinstance(item, dict) else None
        self.name = name if isinstance(name, str) and name else None
        self.params = None
        self.manager = None
        self.result = None
        self.errors = []
        self.skipped = False

    def outcome(self, want_diff):
        result = {"name": self.name, "index": self.index, "changed": False, "failed": bool(self.errors),
                  "skipped": self.skipped, "errors": list(self.errors), "pending_restart": False, "uuid": None,
                  "state": None, "autostart": None, "differences": []}
        if self.result is not None:
            for key, value in self.result.items():
                if key != "xml":
                    result[key] = value
        elif self.manager is not None and self.manager.done:
            result["changed"] = True  # libvirt changed the domain before the step that failed
        if want_diff and "diff" not in result:
            result["diff"] = {"before": "", "after": ""}
        return result


class BatchManager(object):
    """Converge the domains of libvirt_rt_domains' ``domains`` on one connection."""

    def __init__(self, params, check_mode=False, diff=False, reader=None, connect=None):
        self.params = params
        self.check_mode = check_mode
        self.want_diff = diff
        self.uri = params.get("uri") or DEFAULT_URI
        self.owner = params.get("owner") or DEFAULT_OWNER
        self.exclusive = bool(params.get("exclusive"))
        self.remove_unlisted = bool(params.get("remove_unlisted"))
        self.fail_fast = bool(params.get("fail_fast"))
        self.reader = reader or HostReader("/")
        self._connect = connect or libvirt.open
        self.entries = []
        self.unlisted = []
        self.warnings = []
        self.conn = None

    # -- the run ------------------------------------------------------------------
    def run(self):
        """Return the task's result; ``failed`` in it says whether any domain failed."""
        if self.remove_unlisted and not self.exclusive:
            raise OptionError("remove_unlisted", True, "only has an effect with exclusive: true",
                              "set exclusive: true as well, or leave remove_unlisted out")
        validator = ItemValidator(self.uri, self.params.get("defaults"))
        items = self.params.get("domains") or []
        self.entries = [Entry(index, item) for index, item in enumerate(items)]
        for entry, item in zip(self.entries, items):
            entry.params, entry.errors = validator.validate(item)
        self._check_names()
        valid = [entry for entry in self.entries if not entry.errors]
        host = {}
        if any(entry.params.get("state") != "absent" for entry in valid):
            host = host_facts(self.reader, self.uri, any(wants_rdt(entry.params) for entry in valid))
        for entry in valid:
            entry.manager = DomainManager(entry.params, check_mode=self.check_mode, diff=self.want_diff,
                                          reader=self.reader, connect=self._connect, owner=self.owner)
            try:
                entry.manager.prepare(host)
            except RealtimeVirtError as error:
                entry.errors.append(str(error))
        invalid = [entry for entry in self.entries if entry.errors]
        todo = [entry for entry in self.entries if not entry.errors]
        if self.fail_fast and invalid:
            for entry in todo:
                entry.skipped = True
            todo = []
        if todo or (self.exclusive and not (self.fail_fast and invalid)):
            self._open()
            try:
                stopped = False
                if self.exclusive:
                    stopped = self._unlisted(invalid)
                for entry in todo:
                    if stopped:
                        entry.skipped = True
                        continue
                    self._converge(entry)
                    stopped = self.fail_fast and bool(entry.errors)
            finally:
                try:
                    self.conn.close()
                except Exception:  # pragma: no cover - closing must not hide the result
                    pass
        return self._result()

    def _open(self):
        try:
            self.conn = self._connect(self.uri)
        except libvirt.libvirtError as error:
            raise LibvirtCallError("(every domain of the task)", "connect to %s for" % self.uri,
                                   error.get_error_message() or str(error),
                                   fix="check that libvirtd runs and that this user may use %s" % self.uri)

    def _check_names(self):
        """The same name in two items fails both: which one is meant cannot be told."""
        seen = {}
        for entry in self.entries:
            if entry.name is not None:
                seen.setdefault(entry.name, []).append(entry)
        for name, entries in seen.items():
            if len(entries) < 2:
                continue
            where = ", ".join("domains[%d]" % entry.index for entry in entries)
            for entry in entries:
                entry.errors.append(str(OptionError("name", name, "the name is given by %s" % where,
                                                    "give every domain its own name, or merge the items")))

    def _converge(self, entry):
        try:
            entry.result = entry.manager.converge(self.conn)
        except RealtimeVirtError as error:
            entry.errors.append(str(error))

    # -- exclusive -------------------------------------------------------------------
    def _unlisted(self, invalid):
        """Find the marked domains no item names; remove them when asked. True: stop (fail_fast)."""
        listed = set(entry.name for entry in self.entries if entry.name is not None)
        try:
            domains = self.conn.listAllDomains(0)
        except libvirt.libvirtError as error:
            raise LibvirtCallError("(every domain of the task)", "list the domains to find unlisted ones for",
                                   error.get_error_message() or str(error))
        found = []
        for dom in domains:
            name = dom.name()
            if name in listed:
                continue
            try:
                root = parse_xml(dom.XMLDesc(libvirt.VIR_DOMAIN_XML_INACTIVE), "libvirt XML")
            except libvirt.libvirtError:
                continue  # undefined meanwhile by someone else: not ours to report
            if marker.owner_of(root) == self.owner:
                found.append(name)
        for name in sorted(found):
            outcome = {"name": name, "changed": False, "removed": False, "errors": [], "uuid": None}
            self.unlisted.append(outcome)
            if not self.remove_unlisted:
                self.warnings.append("domain %s carries the mark of owner %r but no item of domains lists it; "
                                     "remove_unlisted: true removes it" % (name, self.owner))
                continue
            if invalid:
                self.warnings.append("domain %s is not listed, but is kept: %s failed validation, so the list "
                                     "is not trusted to be complete" % (name, ", ".join(e.label for e in invalid)))
                continue
            remover = DomainManager({"name": name, "uri": self.uri, "state": "absent"}, check_mode=self.check_mode,
                                    diff=self.want_diff, reader=self.reader, connect=self._connect)
            remover.prepare({})
            try:
                result = remover.converge(self.conn)
            except RealtimeVirtError as error:
                outcome["errors"].append(str(error))
                outcome["changed"] = bool(remover.done)
                if self.fail_fast:
                    return True
                continue
            outcome.update(changed=result["changed"], removed=result["changed"], uuid=result["uuid"])
            if "diff" in result:
                outcome["diff"] = result["diff"]
        return False

    # -- the result -------------------------------------------------------------------
    def _result(self):
        domains = [entry.outcome(self.want_diff) for entry in self.entries]
        changed = any(d["changed"] for d in domains) or any(u["changed"] for u in self.unlisted)
        result = {"changed": changed, "domains": domains, "unlisted": self.unlisted, "warnings": list(self.warnings),
                  "deprecations": [("domains[%d] (%s): %s" % (entry.index, entry.name, message), version)
                                   for entry in self.entries if entry.manager is not None
                                   for message, version in entry.manager.deprecations]}
        if self.want_diff:
            result["diff"] = [self._diff_of(d["name"], d["diff"]) for d in domains if d["changed"]] + \
                [self._diff_of(u["name"], u.get("diff") or {}) for u in self.unlisted if u["changed"]]
        failed = [entry for entry in self.entries if entry.errors]
        failed_unlisted = [u for u in self.unlisted if u["errors"]]
        result["failed"] = bool(failed or failed_unlisted)
        if result["failed"]:
            result["msg"] = self.summary(failed, failed_unlisted)
        return result

    @staticmethod
    def _diff_of(name, diff):
        after_header = "domain %s (inactive XML after)" % name
        if diff.get("after_header"):
            after_header += "; " + diff["after_header"]
        return {"before": diff.get("before", ""), "after": diff.get("after", ""),
                "before_header": "domain %s (inactive XML before)" % name,
                "after_header": after_header}

    def summary(self, failed, failed_unlisted):
        """One message naming every failed domain and why."""
        parts = ["%s: %s" % (entry.label, "; ".join(entry.errors)) for entry in failed]
        parts += ["unlisted domain %s: %s" % (u["name"], "; ".join(u["errors"])) for u in failed_unlisted]
        head = "%d of %d domains failed" % (len(failed), len(self.entries))
        if failed_unlisted:
            head += ", %d unlisted domain(s) could not be removed" % len(failed_unlisted)
        skipped = [entry for entry in self.entries if entry.skipped]
        if skipped:
            head += " (fail_fast: %d other domain(s) left as they were)" % len(skipped)
        return "%s: %s" % (head, " | ".join(parts))
