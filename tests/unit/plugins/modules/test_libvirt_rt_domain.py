# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""libvirt_rt_domain: documentation matches the argument spec; the manager's
decisions (define, start, stop, pending_restart, check mode) against a fake
libvirt connection and a fixture /sys tree."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os

import pytest
import yaml

libvirt = pytest.importorskip("libvirt")

from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._libvirt import manager as _domain
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.errors import LibvirtCallError
from ansible_collections.realtime.virt.plugins.modules import libvirt_rt_domain


def _doc_options(options):
    result = {}
    for name, spec in options.items():
        result[name] = (spec.get("type", "str"), spec.get("default"), bool(spec.get("required", False)),
                        tuple(spec.get("choices") or ()), _doc_options(spec.get("suboptions") or {}))
    return result


def _spec_options(spec):
    result = {}
    for name, item in spec.items():
        result[name] = (item.get("type", "str"), item.get("default"), bool(item.get("required", False)),
                        tuple(item.get("choices") or ()), _spec_options(item.get("options") or {}))
    return result


def test_documentation_matches_argument_spec(module_doc):
    doc = module_doc(libvirt_rt_domain)
    assert _doc_options(doc["options"]) == _spec_options(libvirt_rt_domain.argument_spec())
    examples = yaml.safe_load(libvirt_rt_domain.EXAMPLES)
    assert all("realtime.virt.libvirt_rt_domain" in task for task in examples)
    assert any(task.get("realtime.virt.libvirt_rt_domain", {}).get("name") == "vm-realtime" for task in examples)
    yaml.safe_load(libvirt_rt_domain.RETURN)


# --- fake libvirt -------------------------------------------------------------


class FakeDomain(object):
    def __init__(self, conn, xml, active=False):
        self.conn = conn
        self.xml = xml
        self.active = active
        self.autostart_flag = False

    def XMLDesc(self, flags=0):
        return self.xml

    def isActive(self):
        return self.active

    def UUIDString(self):
        return "00000000-0000-0000-0000-000000000001"

    def autostart(self):
        return 1 if self.autostart_flag else 0

    def setAutostart(self, flag):
        self.conn.calls.append(("autostart", flag))
        if self.conn.fail_autostart:
            raise libvirt.libvirtError(self.conn.fail_autostart)
        self.autostart_flag = bool(flag)

    def create(self):
        self.conn.calls.append("create")
        if self.conn.fail_start:
            raise libvirt.libvirtError(self.conn.fail_start)
        self.active = True

    def destroy(self):
        self.conn.calls.append("destroy")
        self.active = False

    def undefineFlags(self, flags):
        self.conn.calls.append("undefine")
        self.conn.domain = None


class FakeConn(object):
    def __init__(self, domain_xml=None, active=False):
        self.calls = []
        self.fail_define = None
        self.fail_start = None
        self.fail_autostart = None
        self.domain = FakeDomain(self, domain_xml, active) if domain_xml else None

    def lookupByName(self, name):
        if self.domain is None:
            error = libvirt.libvirtError("Domain not found")
            error.err = (libvirt.VIR_ERR_NO_DOMAIN, 0, "Domain not found", 0, "", None, None, 0, 0)
            raise error
        return self.domain

    def defineXMLFlags(self, xml, flags):
        self.calls.append(("define", flags))
        if self.fail_define:
            raise libvirt.libvirtError(self.fail_define)
        # a stand-in for libvirt's normalisation: add a uuid and a default
        from lxml import etree
        root = etree.fromstring(xml.encode())
        if root.find("uuid") is None:
            uuid = etree.SubElement(root, "uuid")
            uuid.text = "00000000-0000-0000-0000-000000000001"
        root.find("vcpu").set("placement", "static")
        text = etree.tostring(root, encoding="unicode")
        if self.domain is None:
            self.domain = FakeDomain(self, text)
        else:
            self.domain.xml = text
        return self.domain

    def close(self):
        pass


@pytest.fixture
def host_tree(tmp_path):
    def write(path, text):
        full = os.path.join(str(tmp_path), path.lstrip("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as handle:
            handle.write(text)
    write("/sys/devices/system/cpu/online", "0-3\n")
    write("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "0\n")
    write("/sys/devices/system/node/node0/cpulist", "0-3\n")
    write("/dev/urandom", "")
    return HostReader(str(tmp_path))


PARAMS = {"name": "vm", "uri": "qemu:///system", "state": "present", "domain_type": "qemu", "memory_mib": 64, "vcpus": 2,
          "cpu": {"mode": "maximum", "pinning": [{"vcpu": 0, "cpuset": "1"}, {"vcpu": 1, "cpuset": "2"}]},
          "realtime": {"mask": "0"}, "memory": {"locked": False}, "rng": {}, "restart": False}


def run(conn, reader, check_mode=False, diff=True, **changes):
    params = copy.deepcopy(PARAMS)
    params.update(changes)
    manager = _domain.DomainManager(params, check_mode=check_mode, diff=diff, reader=reader, connect=lambda uri: conn)
    return manager.run()


def test_fresh_host_check_mode_predicts_change_and_touches_nothing(host_tree):
    conn = FakeConn()
    result = run(conn, host_tree, check_mode=True)
    assert result["changed"] is True and conn.calls == [] and conn.domain is None
    assert result["diff"]["before"] == "" and "<vcpusched" in result["diff"]["after"]
    assert "/dev/urandom" in result["xml"]  # /dev/random is absent from the fixture tree


def test_define_uses_validate_flag_then_converges(host_tree):
    conn = FakeConn()
    assert run(conn, host_tree)["changed"] is True
    assert conn.calls == [("define", libvirt.VIR_DOMAIN_DEFINE_VALIDATE)]
    conn.calls = []
    for check_mode in (True, False):
        result = run(conn, host_tree, check_mode=check_mode)
        assert result["changed"] is False and result["differences"] == [] and conn.calls == []


def test_running_domain_redefined_reports_pending_restart(host_tree):
    conn = FakeConn()
    run(conn, host_tree, state="running")
    assert conn.calls[-1] == "create"
    conn.calls = []
    checked = run(conn, host_tree, check_mode=True, state="running", realtime={"mask": "0", "priority": 5})
    assert checked["changed"] is True and checked["pending_restart"] is True and conn.calls == []
    result = run(conn, host_tree, state="running", realtime={"mask": "0", "priority": 5})
    assert result["changed"] is True and result["pending_restart"] is True
    assert [c for c in conn.calls if c in ("destroy", "create")] == []
    conn.calls = []
    result = run(conn, host_tree, state="running", realtime={"mask": "0", "priority": 7}, restart=True)
    assert result["pending_restart"] is False and conn.calls[-2:] == ["destroy", "create"]


def test_stopped_and_absent(host_tree):
    conn = FakeConn()
    run(conn, host_tree, state="running")
    conn.calls = []
    assert run(conn, host_tree, state="stopped")["changed"] is True and conn.calls == ["destroy"]
    assert run(conn, host_tree, state="stopped")["changed"] is False
    assert run(conn, host_tree, check_mode=True, state="absent")["changed"] is True and conn.domain is not None
    assert run(conn, host_tree, state="absent")["changed"] is True and conn.domain is None
    assert run(conn, host_tree, state="absent")["changed"] is False


def test_define_failure_names_domain_and_element(host_tree):
    conn = FakeConn()
    conn.fail_define = "unsupported configuration: vcpusched priority out of range"
    with pytest.raises(LibvirtCallError) as info:
        run(conn, host_tree)
    assert info.value.element == "vcpusched" and "'vm'" in str(info.value) and "define" in str(info.value)


def test_memlock_failure_explains_the_fix(host_tree):
    conn = FakeConn()
    conn.fail_start = "internal error: Process exited: cannot limit locked memory of process 42 to 1234: Operation not permitted"
    with pytest.raises(LibvirtCallError) as info:
        run(conn, host_tree, state="running", memory={"locked": True})
    assert "memory.locked: false" in str(info.value) and "CAP_SYS_RESOURCE" in str(info.value)
    assert info.value.element == "locked"


@pytest.mark.parametrize("changes, option", [
    ({"cpu": {"pinning": [{"vcpu": 0, "cpuset": "9"}]}}, "cpu.pinning[0].cpuset"),          # offline in the tree
    ({"memory": {"hugepages": {"page_size": "1G"}}}, "memory.hugepages.page_size"),       # the tree has only 2M
    ({"realtime": {"mask": "0-1"}, "cpu": {"pinning": [{"vcpu": 0, "cpuset": "1"}]}}, "realtime.mask"),
])
def test_bad_input_fails_before_libvirt_is_touched(host_tree, changes, option):
    conn = FakeConn()
    opened = []

    def connect(uri):
        opened.append(uri)
        return conn
    params = copy.deepcopy(PARAMS)
    params.update(changes)
    with pytest.raises(OptionError) as info:
        _domain.DomainManager(params, reader=host_tree, connect=connect).run()
    assert info.value.option == option and opened == []


@pytest.mark.parametrize("uri, local", [("qemu:///system", True), ("qemu+unix:///system", True),
                                        ("qemu+ssh://host/system", False), ("qemu://host/system", False)])
def test_local_uri(uri, local):
    assert _domain.is_local(uri) is local


@pytest.mark.parametrize("message, paths, element", [
    ("unsupported configuration: vcpusched priority", [], "vcpusched"),
    ("XML error: No PCI buses available", ["domain/os/type: attribute machine"], "os/type"),
    ("cannot limit locked memory of process", ["domain/memoryBacking/locked: missing", "domain/cputune"], "memoryBacking/locked"),
    ("unable to map backing store for guest RAM", [], "hugepages"),
    ("something else entirely", [], None),
])
def test_failing_element(message, paths, element):
    assert _domain.failing_element(message, [p.split(":")[0] for p in paths]) == element


# --- autostart: libvirt's flag beside the XML ------------------------------------------------


def test_autostart_check_real_check_real_on_a_new_domain(host_tree):
    conn = FakeConn()
    checked = run(conn, host_tree, check_mode=True, autostart=True)
    assert checked["changed"] is True and conn.calls == [] and conn.domain is None
    assert checked["autostart"] is True
    assert checked["differences"][-1].startswith("autostart: off, wanted on")
    assert checked["diff"]["before"] == "" and checked["diff"]["after"].startswith("<!-- autostart: on -->\n<domain")
    done = run(conn, host_tree, autostart=True)
    assert done["changed"] is True and done["autostart"] is True and conn.domain.autostart_flag is True
    assert conn.calls == [("define", libvirt.VIR_DOMAIN_DEFINE_VALIDATE), ("autostart", 1)]
    assert done["diff"] == checked["diff"]
    conn.calls = []
    for check_mode in (True, False):
        again = run(conn, host_tree, check_mode=check_mode, autostart=True)
        assert again["changed"] is False and again["autostart"] is True and again["differences"] == []
        assert again["diff"]["before"] == again["diff"]["after"]
        assert again["diff"]["before"].startswith("<!-- autostart: on -->\n")
        assert conn.calls == []


def test_autostart_alone_changes_only_the_flag(host_tree):
    conn = FakeConn()
    run(conn, host_tree, state="running")
    conn.calls = []
    checked = run(conn, host_tree, check_mode=True, state="running", autostart=True)
    assert checked["changed"] is True and conn.calls == [] and conn.domain.autostart_flag is False
    assert checked["differences"] == [
        "autostart: off, wanted on (libvirt's flag beside the XML, set without redefining)"]
    assert checked["autostart"] is True and checked["pending_restart"] is False
    before, after = checked["diff"]["before"].split("\n"), checked["diff"]["after"].split("\n")
    assert before[0] == "<!-- autostart: off -->" and after[0] == "<!-- autostart: on -->" and before[1:] == after[1:]
    done = run(conn, host_tree, state="running", autostart=True)
    assert done["changed"] is True and conn.calls == [("autostart", 1)] and conn.domain.autostart_flag is True
    assert done["pending_restart"] is False and done["state"] == "running"
    conn.calls = []
    off = run(conn, host_tree, state="stopped", autostart=False)
    assert off["changed"] is True and conn.calls == [("autostart", 0), "destroy"]
    assert off["autostart"] is False and conn.domain.autostart_flag is False
    assert off["differences"][-1].startswith("autostart: on, wanted off")


def test_autostart_unset_leaves_the_flag_as_it_is(host_tree):
    conn = FakeConn()
    run(conn, host_tree)
    conn.domain.autostart_flag = True          # set behind the module's back (virsh autostart)
    conn.calls = []
    kept = run(conn, host_tree, diff=True)
    assert kept["changed"] is False and kept["autostart"] is True and conn.calls == []
    assert "autostart" not in kept["diff"]["before"]
    redefined = run(conn, host_tree, realtime={"mask": "0", "priority": 3})
    assert redefined["changed"] is True and conn.calls == [("define", libvirt.VIR_DOMAIN_DEFINE_VALIDATE)]
    assert redefined["autostart"] is True and not any(d.startswith("autostart") for d in redefined["differences"])


def test_autostart_with_state_absent_is_refused_before_libvirt_is_opened(host_tree):
    for value in (True, False):
        opened = []
        params = {"name": "vm", "uri": "qemu:///system", "state": "absent", "autostart": value}
        with pytest.raises(OptionError) as info:
            _domain.DomainManager(params, reader=host_tree, connect=opened.append).run()
        assert info.value.option == "autostart" and opened == []
        assert str(info.value).startswith("autostart=%r: state absent undefines the domain" % value)
        assert "Fix: leave autostart out" in str(info.value)


def test_autostart_refused_by_libvirt_names_domain_and_call(host_tree):
    conn = FakeConn()
    conn.fail_autostart = "Failed to create symlink '/etc/libvirt/qemu/autostart/vm.xml': Read-only file system"
    with pytest.raises(LibvirtCallError) as info:
        run(conn, host_tree, autostart=True)
    assert str(info.value).startswith("libvirt could not set the autostart flag of domain 'vm': Failed to create symlink")
