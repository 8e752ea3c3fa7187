# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What libvirt holds and what the kernel does for each domain (read only).

``parse_domain_xml`` is pure; ``observe_process`` reads /proc and /sys
through the collection's one reader; ``DomainObserver`` is the only part
that talks to libvirt.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from xml.etree import ElementTree

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError, parse_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import HostError
from ansible_collections.realtime.virt.plugins.module_utils._common.units import to_kib
from ansible_collections.realtime.virt.plugins.module_utils._kernel import pci, proc
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader


def _cpus(text, vcpus=None):
    try:
        empty = list(range(vcpus)) if vcpus else None
        return parse_cpuset(text or "", empty=empty)
    except CpusetError:
        return []


def _pci(address):
    try:
        return pci.format_address(int(address.get(key), 16) for key in ("domain", "bus", "slot", "function"))
    except (TypeError, ValueError):
        return None


def _memory_kib(node):
    return None if node is None else to_kib(node.text, node.get("unit"))


def parse_domain_xml(text):
    """The tuning a domain XML asks for, as plain data."""
    root = ElementTree.fromstring(text)
    vcpus = int((root.findtext("vcpu") or "0").strip() or 0)
    result = {
        "name": root.findtext("name"),
        "type": root.get("type"),
        "vcpus": vcpus,
        "memory_kib": _memory_kib(root.find("memory")),
        "pinning": [],
        "emulator_cpus": [],
        "iothread_pins": [],
        "realtime": None,
        "hugepages": None,
        "locked": root.find("memoryBacking/locked") is not None,
        "nosharepages": root.find("memoryBacking/nosharepages") is not None,
        "numatune_nodeset": None,
        "hostdevs": [],
        "serial_log": None,
    }
    for pin in root.findall("cputune/vcpupin"):
        result["pinning"].append({"vcpu": int(pin.get("vcpu")), "cpus": _cpus(pin.get("cpuset"))})
    result["pinning"].sort(key=lambda item: item["vcpu"])
    emulator = root.find("cputune/emulatorpin")
    if emulator is not None:
        result["emulator_cpus"] = _cpus(emulator.get("cpuset"))
    for pin in root.findall("cputune/iothreadpin"):
        result["iothread_pins"].append({"iothread": int(pin.get("iothread")), "cpus": _cpus(pin.get("cpuset"))})
    result["iothread_pins"].sort(key=lambda item: item["iothread"])
    scheds = root.findall("cputune/vcpusched")
    if scheds:
        rt_vcpus, scheduler, priority = set(), None, None
        for sched in scheds:
            rt_vcpus.update(_cpus(sched.get("vcpus"), vcpus))
            scheduler = scheduler or sched.get("scheduler")
            if sched.get("priority") is not None and priority is None:
                priority = int(sched.get("priority"))
        result["realtime"] = {"vcpus": sorted(v for v in rt_vcpus if v < vcpus), "scheduler": scheduler,
                              "priority": priority}
    pages = root.find("memoryBacking/hugepages")
    if pages is not None:
        page = pages.find("page")
        size = to_kib(page.get("size"), page.get("unit")) if page is not None else None
        result["hugepages"] = {"page_size_kib": size}
    memory = root.find("numatune/memory")
    if memory is not None:
        result["numatune_nodeset"] = memory.get("nodeset")
    for hostdev in root.findall("devices/hostdev"):
        if hostdev.get("type") != "pci":
            continue
        address = hostdev.find("source/address")
        if address is not None:
            pci = _pci(address)
            if pci:
                result["hostdevs"].append(pci)
    serial = root.find("devices/serial/log")
    if serial is not None:
        result["serial_log"] = serial.get("file")
    else:
        serial = root.find("devices/serial[@type='file']/source")
        if serial is not None:
            result["serial_log"] = serial.get("path")
    return result


def observe_process(reader, name, pid_file=None):
    """pid, threads (vCPU, IO, emulator) and hugetlb use of a running domain's qemu process."""
    pid = proc.pid_from_file(reader, pid_file or "/run/libvirt/qemu/%s.pid" % name)
    if pid is None:
        return {"pid": None, "vcpu_threads": [], "iothread_threads": [], "emulator_threads": [], "hugetlb_kib": None}
    threads = proc.qemu_threads(reader, pid)
    return {"pid": pid, "vcpu_threads": threads["vcpu"], "iothread_threads": threads["iothread"],
            "emulator_threads": threads["emulator"], "hugetlb_kib": proc.hugetlb_kib(reader, pid)}


def observe_hostdev(reader, address):
    return {"address": address, "driver": pci.driver(reader, address)}


class DomainObserver(object):
    """Read every (or the named) domain from libvirt and the kernel."""

    def __init__(self, uri, connect, reader=None, local=True):
        self.uri = uri
        self.connect = connect
        self.reader = reader or HostReader("/")
        self.local = local

    def run(self, names=None):
        try:
            conn = self.connect(self.uri)
        except Exception as error:  # pylint: disable=broad-except
            raise HostError("cannot connect to %s: %s" % (self.uri, error),
                            "start the libvirt daemon (see the rt_domain role)")
        try:
            domains = []
            for dom in sorted(conn.listAllDomains(0), key=lambda d: d.name()):
                if names and dom.name() not in names:
                    continue
                domains.append(self._one(dom))
            missing = sorted(set(names or []) - set(d["name"] for d in domains))
            return domains, missing
        finally:
            conn.close()

    def _one(self, dom):
        running = bool(dom.isActive())
        info = parse_domain_xml(dom.XMLDesc(0))
        info["running"] = running
        info["uuid"] = dom.UUIDString()
        info["pid"] = None
        info["vcpu_threads"] = []
        info["iothread_threads"] = []
        info["emulator_threads"] = []
        info["hugetlb_kib"] = None
        if running and self.local:
            info.update(observe_process(self.reader, info["name"]))
        info["hostdev_drivers"] = [observe_hostdev(self.reader, address) for address in info["hostdevs"]] \
            if self.local else []
        return info
