# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The manager of libvirt_rt_domain: the only code that talks to libvirt.

Order of work: check the options and the host (nothing touched), read the
domain's inactive XML, compare, then - outside check mode only - define
(with libvirt's validation flag), start, stop or restart, and finally read
back what libvirt and the kernel now show.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.realtime.virt.plugins.module_utils._kernel import proc
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.compare import differences
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.diff import domain_diff
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.errors import LibvirtCallError
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.render import (
    device_kinds, fill_identity, parse_xml, render, to_text)
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import build_spec
from ansible_collections.realtime.virt.plugins.module_utils._node.gather import NodeFacts

try:
    import libvirt
except ImportError:  # pragma: no cover - reported by the module through missing_required_lib
    libvirt = None

LOCAL_URI = re.compile(r"^[A-Za-z0-9]+(\+unix)?://(/|$)")
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


def is_local(uri):
    return bool(LOCAL_URI.match(uri or ""))


class DomainManager(object):
    """Bring one libvirt domain to the state the module options describe."""

    def __init__(self, params, check_mode=False, diff=False, reader=None, connect=None):
        self.params = params
        self.check_mode = check_mode
        self.want_diff = diff
        self.name = params["name"]
        self.uri = params.get("uri") or "qemu:///system"
        self.local = is_local(self.uri)
        self.reader = reader or HostReader("/")
        self._connect = connect or libvirt.open
        self.conn = None
        self.warnings = []

    # -- libvirt access -------------------------------------------------------
    def _call(self, action, func, *args, **kwargs):
        changed_paths = kwargs.pop("changed_paths", None)
        try:
            return func(*args, **kwargs)
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
        state = self.params.get("state") or "present"
        wanted = kinds = None
        if state != "absent":
            base_root = None
            if self.params.get("base_xml"):
                base_root = parse_xml(self.params["base_xml"])
            host = NodeFacts(reader=self.reader).domain_host() if self.local else {}
            plan = build_spec(self.params, host, base_root)
            wanted = render(plan, base_root)
            kinds = device_kinds(plan, base_root is not None)
        self._open()
        try:
            if state == "absent":
                return self._absent()
            return self._present(state, wanted, kinds)
        finally:
            try:
                self.conn.close()
            except Exception:  # pragma: no cover - closing must not hide the result
                pass

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

        live_diffs = []
        if active and not need_define:
            live = parse_xml(self._call("read", dom.XMLDesc, 0), "libvirt live XML")
            live_diffs = differences(wanted, live, kinds)
        restart_due = active and state != "stopped" and (need_define or bool(live_diffs))
        restart = bool(self.params.get("restart")) and restart_due
        need_start = state == "running" and not active
        need_stop = state == "stopped" and active
        changed = need_define or need_start or need_stop or restart
        wanted_text = to_text(wanted)

        if not self.check_mode:
            if need_define:
                flags = getattr(libvirt, "VIR_DOMAIN_DEFINE_VALIDATE", 1)
                dom = self._call("define", self.conn.defineXMLFlags, wanted_text, flags,
                                 changed_paths=[line.split(":", 1)[0] for line in diffs])
            if need_stop or restart:
                self._call("stop", dom.destroy)
            if need_start or restart:
                self._call("start", dom.create)
            active = bool(dom.isActive())

        if self.check_mode or dom is None:
            xml = wanted_text if need_define else before
            uuid = dom.UUIDString() if dom is not None else None
            if need_start or restart:
                active = True
            if need_stop:
                active = False
        else:
            xml = self._call("read", dom.XMLDesc, libvirt.VIR_DOMAIN_XML_INACTIVE)
            uuid = dom.UUIDString()

        result = {
            "changed": changed,
            "xml": xml,
            "uuid": uuid,
            "pending_restart": bool(restart_due and not restart),
            "differences": diffs if need_define else ["live domain: %s" % d for d in live_diffs],
            "state": "running" if active else "shut off",
            "diff": domain_diff(current, wanted, kinds, need_define, self.params.get("base_xml")),
        }
        if active and dom is not None and not (self.check_mode and (need_start or restart)):
            result["vcpu_threads"] = self._vcpu_threads()
        return self._finish(result)

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
