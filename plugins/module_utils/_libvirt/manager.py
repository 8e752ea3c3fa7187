# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The manager of libvirt_rt_domain: the only code that talks to libvirt.

Order of work: check the options and the host (nothing touched), read the
domain's inactive XML, compare, then - outside check mode only - define
(with libvirt's validation flag), set libvirt's autostart flag, start,
stop or restart, and finally read back what libvirt and the kernel now
show.

``DomainManager.run()`` does all of it for one domain (libvirt_rt_domain).
The steps are also callable apart, so that libvirt_rt_domains does the same
work for many domains with one host-facts read and one connection:
``host_facts()`` once, ``prepare(host)`` per domain (the checks and the
wanted XML; nothing touched), then ``converge(conn)`` per domain on the
open connection.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._common.options import DEFAULT_URI
from ansible_collections.realtime.virt.plugins.module_utils._kernel import proc
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.compare import differences
from ansible_collections.realtime.virt.plugins.module_utils._libvirt import marker
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.devices import device_kinds
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.diff import domain_diff
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.errors import LibvirtCallError
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.render import fill_identity, render
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import build_spec
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.vcpus import DEPRECATED_IN
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.uri import is_local
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import parse_xml, to_text
from ansible_collections.realtime.virt.plugins.module_utils._node.gather import NodeFacts

try:
    import libvirt
except ImportError:  # pragma: no cover - reported by the module through missing_required_lib
    libvirt = None

# words in libvirt's messages -> the element they are about (first hit wins)
ELEMENT_HINTS = (
    ("machine type", "os/type"), ("vcpusched", "vcpusched"), ("scheduler", "vcpusched"), ("emulatorpin", "emulatorpin"), ("vcpupin", "vcpupin"),
    ("locked memory", "locked"), ("memlock", "locked"), ("hugetlbfs", "hugepages"), ("hugepage", "hugepages"),
    ("backing store", "hugepages"), ("nosharepages", "nosharepages"), ("numatune", "numatune"), ("memnode", "numatune"), ("numa", "numa"),
    ("hostdev", "hostdev"), ("pci", "hostdev"), ("rng", "rng"), ("pmu", "pmu"), ("feature", "cpu"),
    ("cpu mode", "cpu"), ("host-passthrough", "cpu"), ("maximum", "cpu"), ("cpu", "cpu"), ("kernel", "kernel"),
    ("initrd", "initrd"), ("disk", "disk"), ("interface", "interface"), ("network", "interface"),
    ("serial", "serial"), ("memory", "memory"), ("vcpu", "vcpu"),
)
SET_AUTOSTART = "set the autostart flag of"
# actions of _call that change the domain
CHANGES = ("define", "mark", SET_AUTOSTART, "stop", "start", "undefine")
MEMLOCK_FIX = ("the memory lock limit of the qemu process cannot be raised on this host: set memory.locked: false, "
               "or give the libvirt daemon CAP_SYS_RESOURCE or a high LimitMEMLOCK")


SCHED_FIX = ("the kernel refused a real-time policy for the vCPU threads: set kernel.sched_rt_runtime_us to -1 "
             "(the rt_host role does), or give libvirt's machine cgroup a real-time runtime (cpu.rt_runtime_us)")


def failing_element(message, changed_paths=None):
    """Name the element a libvirt error is about.

    ``changed_paths`` are the paths of the managed elements that differ
    from the stored definition (``domain/cputune/vcpusched``...): a hint
    that names one of them wins; when only one element changed, it is the
    one; otherwise the first hint found in the message.
    """
    lowered = message.lower()
    hinted = [element for word, element in ELEMENT_HINTS if word in lowered]
    paths = sorted(set(path[len("domain/"):] for path in (changed_paths or []) if path.startswith("domain/")))
    for element in hinted:
        for path in paths:
            if path == element or path.endswith("/" + element) or ("/" + element + "/") in ("/" + path + "/"):
                return path
    if len(paths) == 1:
        return paths[0]
    return hinted[0] if hinted else None


def _on_off(flag):
    return "on" if flag else "off"


def autostart_line(flag):
    """The line --diff shows libvirt's autostart flag with (it is not part of the domain XML)."""
    return "<!-- autostart: %s -->" % _on_off(flag)


def wants_rdt(params):
    """Whether a domain's options ask Intel RDT (cache or memory bandwidth allocation)."""
    return bool(params.get("cachetune") or params.get("memorytune"))


def host_facts(reader, uri, rdt=False):
    """What a domain's options are checked against: the host's facts on a local URI, else nothing.

    ``rdt``: read resctrl too (only when a domain asks RDT: it reads the
    cache directories of every CPU).
    """
    return NodeFacts(reader=reader).domain_host(rdt=rdt) if is_local(uri) else {}


class DomainManager(object):
    """Bring one libvirt domain to the state the module options describe."""

    def __init__(self, params, check_mode=False, diff=False, reader=None, connect=None, owner=None):
        """``owner``: the mark libvirt_rt_domains puts on the domain (marker.py); None keeps
        whatever mark the domain carries, as libvirt_rt_domain does."""
        self.params = params
        self.check_mode = check_mode
        self.want_diff = diff
        self.name = params["name"]
        self.uri = params.get("uri") or DEFAULT_URI
        self.local = is_local(self.uri)
        self.reader = reader or HostReader("/")
        self._connect = connect or libvirt.open
        self.conn = None
        self.warnings = []
        # deprecated option values the options use: ``(message, version)``, for module.deprecate()
        self.deprecations = []
        self.owner = owner
        self.done = []  # the changes libvirt made so far (define, start...), in order
        self.state = params.get("state") or "present"
        self._wanted = self._kinds = None

    # -- libvirt access -------------------------------------------------------
    def _call(self, action, func, *args, **kwargs):
        changed_paths = kwargs.pop("changed_paths", None)
        try:
            answer = func(*args, **kwargs)
            if action in CHANGES:
                self.done.append(action)
            return answer
        except libvirt.libvirtError as error:
            message = error.get_error_message() or str(error)
            fix = None
            if "locked memory" in message.lower() or "memlock" in message.lower():
                fix = MEMLOCK_FIX
            elif "scheduler parameters" in message.lower():
                fix = SCHED_FIX
            raise LibvirtCallError(self.name, action, message, failing_element(message, changed_paths), fix)

    def _lookup(self):
        try:
            return self.conn.lookupByName(self.name)
        except libvirt.libvirtError as error:
            if error.get_error_code() == libvirt.VIR_ERR_NO_DOMAIN:
                return None
            raise LibvirtCallError(self.name, "look up", error.get_error_message() or str(error))

    def _open(self):
        try:
            self.conn = self._connect(self.uri)
        except libvirt.libvirtError as error:
            raise LibvirtCallError(self.name, "connect to %s for" % self.uri, error.get_error_message() or str(error),
                                   fix="check that libvirtd runs and that this user may use %s" % self.uri)

    # -- the run ----------------------------------------------------------------
    def run(self):
        """The whole work for one domain: host facts, checks, one connection, converge."""
        self.prepare(self.host_facts() if self.state != "absent" else {})
        self._open()
        try:
            result = self.converge(self.conn)
            result["deprecations"] = list(self.deprecations)
            return result
        finally:
            try:
                self.conn.close()
            except Exception:  # pragma: no cover - closing must not hide the result
                pass

    def host_facts(self):
        """What the options are checked against (empty on a remote URI)."""
        return host_facts(self.reader, self.uri, wants_rdt(self.params))

    def prepare(self, host):
        """Check the options against ``host`` and draw the wanted XML; touches nothing.

        Raises :class:`OptionError` on bad input.
        """
        if self.state == "absent":
            if self.params.get("autostart") is not None:
                raise OptionError("autostart", self.params["autostart"],
                                  "state absent undefines the domain, and libvirt drops its autostart flag with it",
                                  "leave autostart out (or null) for state absent")
            return
        base_root = None
        if self.params.get("base_xml"):
            base_root = parse_xml(self.params["base_xml"])
        plan = build_spec(self.params, host, base_root)
        self.deprecations = [(message, DEPRECATED_IN) for message in plan.get("deprecations") or []]
        self._wanted = marker.strip(render(plan, base_root))
        self._kinds = device_kinds(plan, base_root is not None)

    def converge(self, conn):
        """Bring the domain to its state on ``conn``, an open connection (after prepare())."""
        self.conn = conn
        if self.state == "absent":
            return self._absent()
        return self._present(self.state, self._wanted, self._kinds)

    def _absent(self):
        dom = self._lookup()
        result = {"changed": False, "pending_restart": False, "xml": "", "uuid": None, "differences": []}
        if dom is None:
            result["diff"] = {"before": "", "after": ""}
            return self._finish(result)
        before = self._call("read", dom.XMLDesc, libvirt.VIR_DOMAIN_XML_INACTIVE)
        result.update(changed=True, uuid=dom.UUIDString(), differences=["domain: exists, wanted absent"])
        result["diff"] = {"before": before, "after": ""}
        if not self.check_mode:
            if dom.isActive():
                self._call("stop", dom.destroy)
            flags = (libvirt.VIR_DOMAIN_UNDEFINE_MANAGED_SAVE | libvirt.VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA
                     | libvirt.VIR_DOMAIN_UNDEFINE_NVRAM)
            self._call("undefine", dom.undefineFlags, flags)
        return self._finish(result)

    def _present(self, state, wanted, kinds):
        dom = self._lookup()
        current = before = None
        active = False
        if dom is not None:
            before = self._call("read", dom.XMLDesc, libvirt.VIR_DOMAIN_XML_INACTIVE)
            current = parse_xml(before, "libvirt XML")
            active = bool(dom.isActive())
        fill_identity(wanted, current)
        diffs = differences(wanted, current, kinds)
        need_define = bool(diffs)
        had_owner = marker.owner_of(current)
        owner = had_owner if self.owner is None else self.owner
        need_mark = self.owner is not None and current is not None and had_owner != self.owner and not need_define

        live_diffs = []
        if active and not need_define:
            live = parse_xml(self._call("read", dom.XMLDesc, 0), "libvirt live XML")
            live_diffs = differences(wanted, live, kinds)
        restart_due = active and state != "stopped" and (need_define or bool(live_diffs))
        restart = bool(self.params.get("restart")) and restart_due
        need_start = state == "running" and not active
        need_stop = state == "stopped" and active
        want_autostart = self.params.get("autostart")
        had_autostart = bool(self._call("read the autostart flag of", dom.autostart)) if dom is not None else False
        need_autostart = want_autostart is not None and had_autostart != bool(want_autostart)
        changed = need_define or need_start or need_stop or restart or need_mark or need_autostart
        wanted_text = to_text(marker.marked(wanted, owner))

        if not self.check_mode:
            if need_define:
                flags = getattr(libvirt, "VIR_DOMAIN_DEFINE_VALIDATE", 1)
                dom = self._call("define", self.conn.defineXMLFlags, wanted_text, flags,
                                 changed_paths=[line.split(":", 1)[0] for line in diffs])
            elif need_mark:
                self._call("mark", dom.setMetadata, libvirt.VIR_DOMAIN_METADATA_ELEMENT,
                           marker.element_text(self.owner), marker.PREFIX, marker.NAMESPACE,
                           libvirt.VIR_DOMAIN_AFFECT_CONFIG)
            if need_autostart:
                self._call(SET_AUTOSTART, dom.setAutostart, 1 if want_autostart else 0)
            if need_stop or restart:
                self._call("stop", dom.destroy)
            if need_start or restart:
                self._call("start", dom.create)
            active = bool(dom.isActive())

        if self.check_mode or dom is None:
            xml = wanted_text if need_define else before
            if need_mark:
                xml = to_text(marker.marked(current, self.owner))
            uuid = dom.UUIDString() if dom is not None else None
            if need_start or restart:
                active = True
            if need_stop:
                active = False
            autostart = bool(want_autostart) if need_autostart else had_autostart
        else:
            xml = self._call("read", dom.XMLDesc, libvirt.VIR_DOMAIN_XML_INACTIVE)
            uuid = dom.UUIDString()
            autostart = bool(self._call("read the autostart flag of", dom.autostart)) if need_autostart else had_autostart

        if need_define:
            found = list(diffs)
        else:
            found = (self._mark_differences(had_owner) if need_mark else []) + ["live domain: %s" % d for d in live_diffs]
        if need_autostart:
            found.append("autostart: %s, wanted %s (libvirt's flag beside the XML, set without redefining)"
                         % (_on_off(had_autostart), _on_off(want_autostart)))
        diff = self._diff(current, wanted, kinds, need_define, owner if owner != had_owner else None)
        if want_autostart is not None:
            # The flag is not in the XML: a first line on each side shows it (before: only if the domain exists).
            if current is not None:
                diff["before"] = "%s\n%s" % (autostart_line(had_autostart), diff["before"])
            diff["after"] = "%s\n%s" % (autostart_line(want_autostart), diff["after"])
        result = {
            "changed": changed,
            "xml": xml,
            "uuid": uuid,
            "pending_restart": bool(restart_due and not restart),
            "differences": found,
            "state": "running" if active else "shut off",
            "autostart": autostart,
            "diff": diff,
        }
        if active and dom is not None and not (self.check_mode and (need_start or restart)):
            result["vcpu_threads"] = self._vcpu_threads()
        return self._finish(result)

    def _diff(self, current, wanted, kinds, need_define, new_owner):
        """The one-form diff; a mark this run sets shows on the after side."""
        diff = domain_diff(current, wanted, kinds, need_define, self.params.get("base_xml"))
        if new_owner is not None:
            diff["after"] = to_text(marker.marked(parse_xml(diff["after"], "rendered XML"), new_owner))
        return diff

    def _mark_differences(self, had_owner):
        have = "no mark" if had_owner is None else "the mark of owner %r" % had_owner
        return ["domain/metadata/managed: %s, wanted the mark of owner %r (set without redefining)"
                % (have, self.owner)]

    def _vcpu_threads(self):
        if not self.local:
            return []
        pid = proc.pid_from_file(self.reader, "/run/libvirt/qemu/%s.pid" % self.name)
        if pid is None:
            return []
        return proc.vcpu_threads(self.reader, pid)

    def _finish(self, result):
        if not self.want_diff:
            result.pop("diff", None)
        return result
