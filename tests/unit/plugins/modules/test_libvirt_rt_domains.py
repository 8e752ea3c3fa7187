# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""libvirt_rt_domains through its main(), against a fake libvirt holding many
domains and a fixture /sys tree: one connection and one host-facts read per
task, per-item errors, fail_fast, exclusive and remove_unlisted, check and
diff mode per domain, the mark, and libvirt calls growing linearly."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os

import pytest
import yaml

libvirt = pytest.importorskip("libvirt")

from libvirt_fake import FakeLibvirt  # noqa: E402  (needs libvirt, imported above)

from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._libvirt import batch, marker
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.manager import DomainManager
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.options import argument_spec as domain_spec
from ansible_collections.realtime.virt.plugins.module_utils._node.gather import NodeFacts
from ansible_collections.realtime.virt.plugins.modules import libvirt_rt_domain, libvirt_rt_domains

ITEM = {"name": "rtv-a", "domain_type": "qemu", "memory_mib": 64, "vcpus": 2,
        "cpu": {"mode": "maximum", "pinning": [{"vcpu": 0, "cpuset": "1"}, {"vcpu": 1, "cpuset": "2"}],
                "emulator_cpuset": "0"},
        "realtime": {"mask": "0"}, "memory": {"locked": False}, "rng": {"rate": {"period": 1000, "bytes": 1024}}}


def item(name, **changes):
    result = copy.deepcopy(ITEM)
    result["name"] = name
    result.update(changes)
    return result


def plain_xml(name, owner=None):
    metadata = ""
    if owner is not None:
        metadata = '<metadata><rtv:managed xmlns:rtv="%s" owner="%s"/></metadata>' % (marker.NAMESPACE, owner)
    return "<domain type='qemu'><name>%s</name>%s<memory unit='KiB'>65536</memory><vcpu>1</vcpu>" \
           "<os><type>hvm</type></os></domain>" % (name, metadata)


@pytest.fixture
def host(tmp_path, monkeypatch):
    """The fixture tree as the host, the fake libvirt as libvirt.open, host-fact reads counted."""
    def write(path, text):
        full = os.path.join(str(tmp_path), path.lstrip("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as handle:
            handle.write(text)
    write("/sys/devices/system/cpu/online", "0-3\n")
    write("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "0\n")
    write("/sys/devices/system/node/node0/cpulist", "0-3\n")
    write("/dev/urandom", "")
    fake = FakeLibvirt()
    fake.host_reads = 0
    real = NodeFacts.domain_host

    def counted(self, *args, **kwargs):
        fake.host_reads += 1
        fake.rdt_reads = getattr(fake, "rdt_reads", 0) + bool(kwargs.get("rdt"))
        return real(self, *args, **kwargs)
    monkeypatch.setattr(NodeFacts, "domain_host", counted)
    monkeypatch.setattr(libvirt, "open", fake.connect)
    monkeypatch.setattr(batch, "HostReader", lambda top: HostReader(str(tmp_path)))
    return fake


@pytest.fixture
def run(host, run_module):
    """``run(domains, check=False, diff=False, **options)`` -> ModuleExit; counters reset per run."""
    def runner(domains, check=False, diff=False, **options):
        host.opened = host.host_reads = 0
        del host.conn.calls[:]
        params = dict(options, domains=domains)
        return run_module(libvirt_rt_domains.main, params, check=check, diff=diff)
    return runner


def by_name(outcome):
    return dict((d["name"], d) for d in outcome.result["domains"])


# --- documentation ---------------------------------------------------------------------


def _shape(options):
    return dict((name, (spec.get("type", "str"), spec.get("default"), bool(spec.get("required", False)),
                        tuple(spec.get("choices") or ())))
                for name, spec in options.items())


def test_documentation_matches_both_argument_specs(module_doc):
    doc = module_doc(libvirt_rt_domains)
    spec = libvirt_rt_domains.argument_spec()
    top = dict((k, v) for k, v in doc["options"].items())
    assert _shape(top) == _shape(spec)
    # every item option of libvirt_rt_domain is documented, with its type, default, choices
    items = doc["options"]["domains"]["suboptions"]
    wanted = _shape(domain_spec())
    wanted["uri"] = ("str", None, False, ())   # an item's uri defaults to the task's
    assert _shape(items) == wanted
    # and it is the same spec as the single module's
    assert libvirt_rt_domain.argument_spec() == domain_spec()
    examples = yaml.safe_load(libvirt_rt_domains.EXAMPLES)
    assert all("realtime.virt.libvirt_rt_domains" in task or "ansible.builtin.debug" in task for task in examples)
    assert yaml.safe_load(libvirt_rt_domains.RETURN)["domains"]["contains"]["errors"]


# --- converge, re-run, check mode ---------------------------------------------------------


def test_converge_rerun_and_check_mode_are_exact_per_domain(run, host):
    domains = [item("rtv-a"), item("rtv-b", state="running"), item("rtv-c", realtime=None, vcpus=1, cpu={})]
    checked = run(domains, check=True, diff=True)
    assert not checked.failed and checked.result["changed"] is True
    assert [d["changed"] for d in checked.result["domains"]] == [True, True, True]
    assert host.changes() == [] and host.conn.domains == {}
    assert [d["diff"]["before"] for d in checked.result["domains"]] == ["", "", ""]
    assert "<vcpusched" in by_name(checked)["rtv-a"]["diff"]["after"]
    assert all('owner="realtime.virt"' in d["diff"]["after"] for d in checked.result["domains"])
    assert len(checked.result["diff"]) == 3 and "rtv-b" in checked.result["diff"][1]["after_header"]

    done = run(domains)
    assert not done.failed and [d["changed"] for d in done.result["domains"]] == [True, True, True]
    assert host.changes() == [("define", "rtv-a"), ("define", "rtv-b"), ("create", "rtv-b"), ("define", "rtv-c")]
    assert by_name(done)["rtv-b"]["state"] == "running" and by_name(done)["rtv-a"]["state"] == "shut off"
    assert all(d["uuid"] for d in done.result["domains"])
    assert "xml" not in done.result["domains"][0]
    for name in ("rtv-a", "rtv-b", "rtv-c"):
        assert marker.owner_of(_root(host, name)) == "realtime.virt"

    for check in (True, False):
        again = run(domains, check=check, diff=True)
        assert not again.failed and again.result["changed"] is False, again.result
        assert [d["changed"] for d in again.result["domains"]] == [False, False, False]
        assert again.result["diff"] == [] and host.changes() == []
        assert host.opened == 1 and host.host_reads == 1


def _root(host, name):
    from lxml import etree
    return etree.fromstring(host.conn.domains[name].xml.encode())


def test_one_connection_and_one_host_read_for_many_domains(run, host):
    outcome = run([item("rtv-%02d" % n) for n in range(12)], exclusive=True)
    assert not outcome.failed
    assert host.opened == 1 and host.host_reads == 1
    assert host.conn.calls.count(("list", None)) == 1


def test_libvirt_calls_grow_linearly_with_the_domains(run, host):
    """Reading and comparing stay linear: the same calls per domain at 5 and at 20 domains."""
    counts = {}
    for count in (5, 20):
        domains = [item("rtv-%02d" % n) for n in range(count)]
        run(domains)
        run(domains, exclusive=True)                      # converged: reads only
        counts[count] = len(host.conn.calls)
    assert counts[20] - 1 == 4 * (counts[5] - 1)          # one listAllDomains, the rest per domain
    per_domain = (counts[5] - 1) // 5
    # look-up, inactive XML, run state, autostart flag, and libvirt_rt_domain's read-back of run state and XML
    assert per_domain <= 6, host.conn.calls


# --- per-item failures ---------------------------------------------------------------------


def test_a_bad_item_names_itself_and_the_others_converge(run, host):
    domains = [item("rtv-a"), item("rtv-b", realtime={"priority": 0}, vcpus="two"), item("rtv-c"),
               item("rtv-d", cpu={"pinning": [{"vcpu": 0, "cpuset": "9"}]}, realtime=None)]
    outcome = run(domains)
    assert outcome.failed
    msg = outcome.result["msg"]
    assert msg.startswith("libvirt_rt_domains: 2 of 4 domains failed: ")
    assert "domains[1] (rtv-b): " in msg and "vcpus" in msg
    assert "domains[3] (rtv-d): cpu.pinning[0].cpuset='9'" in msg and "not online" in msg
    assert "rtv-a" not in msg and "rtv-c" not in msg
    assert host.changes() == [("define", "rtv-a"), ("define", "rtv-c")]
    state = by_name(outcome)
    assert state["rtv-b"]["failed"] and state["rtv-b"]["errors"] and not state["rtv-b"]["changed"]
    assert state["rtv-a"]["changed"] and not state["rtv-a"]["failed"]
    assert outcome.result["changed"] is True


def test_the_host_rdt_is_read_once_and_only_for_a_domain_that_asks_it(run, host):
    host.rdt_reads = 0
    assert not run([item("rtv-a")]).failed and host.rdt_reads == 0
    cache = [{"vcpus": "0", "caches": [{"id": 0, "size": 2, "unit": "MiB"}]}]
    outcome = run([item("rtv-a"), item("rtv-b", cachetune=cache)])
    # the fixture host has no resctrl: rtv-b is refused before libvirt, rtv-a converges
    assert host.host_reads == 1 and host.rdt_reads == 1
    assert "domains[1] (rtv-b): cachetune=" in outcome.result["msg"]
    assert "cannot give the domain cache allocation" in outcome.result["msg"]
    assert ("define", "rtv-b") not in host.changes()


def test_a_libvirt_refusal_fails_only_that_domain_and_is_named(run, host):
    host.conn.fail_define["rtv-b"] = "unsupported configuration: vcpusched priority out of range"
    outcome = run([item("rtv-a"), item("rtv-b"), item("rtv-c")])
    assert outcome.failed
    assert "1 of 3 domains failed: domains[1] (rtv-b): libvirt could not define domain 'rtv-b'" in outcome.result["msg"]
    assert sorted(host.conn.domains) == ["rtv-a", "rtv-c"]


def test_a_domain_that_failed_after_its_define_reports_the_change(run, host):
    host.conn.fail_start["rtv-a"] = "cannot limit locked memory of process 42: Operation not permitted"
    outcome = run([item("rtv-a", state="running"), item("rtv-b")])
    state = by_name(outcome)
    assert outcome.failed and state["rtv-a"]["failed"] and state["rtv-a"]["changed"] is True
    assert "memory.locked: false" in outcome.result["msg"]
    assert state["rtv-b"]["changed"] and not state["rtv-b"]["failed"]


def test_fail_fast_stops_before_anything_on_a_validation_error(run, host):
    outcome = run([item("rtv-a"), item("rtv-b", realtime={"mask": "0-7"}), item("rtv-c")], fail_fast=True)
    assert outcome.failed and host.opened == 0 and host.changes() == []
    assert [d["skipped"] for d in outcome.result["domains"]] == [True, False, True]
    assert "domains[1] (rtv-b): realtime.mask='0-7'" in outcome.result["msg"]
    assert "fail_fast: 2 other domain(s) left as they were" in outcome.result["msg"]


def test_fail_fast_stops_at_the_first_libvirt_failure(run, host):
    host.conn.fail_define["rtv-b"] = "XML error: something"
    outcome = run([item("rtv-a"), item("rtv-b"), item("rtv-c")], fail_fast=True)
    assert outcome.failed
    assert host.changes() == [("define", "rtv-a"), ("define", "rtv-b")] and sorted(host.conn.domains) == ["rtv-a"]
    assert [d["skipped"] for d in outcome.result["domains"]] == [False, False, True]


def test_without_fail_fast_every_failure_is_listed(run, host):
    host.conn.fail_define["rtv-c"] = "XML error: something"
    outcome = run([item("rtv-a", vpcus=2), item("rtv-b"), item("rtv-c"), "not a mapping"])
    msg = outcome.result["msg"]
    assert "3 of 4 domains failed" in msg
    assert "domains[0] (rtv-a): Unsupported parameters: vpcus" in msg
    assert "domains[2] (rtv-c): libvirt could not define" in msg
    assert "domains[3]: each item must be a mapping" in msg
    assert sorted(host.conn.domains) == ["rtv-b"]


def test_the_same_name_twice_fails_both_items(run, host):
    outcome = run([item("rtv-a"), item("rtv-b"), item("rtv-a", vcpus=1, cpu={}, realtime=None)])
    msg = outcome.result["msg"]
    assert "domains[0] (rtv-a): name='rtv-a': the name is given by domains[0], domains[2]" in msg
    assert "domains[2] (rtv-a): name='rtv-a'" in msg
    assert sorted(host.conn.domains) == ["rtv-b"]


def test_an_item_cannot_name_another_uri(run, host):
    outcome = run([item("rtv-a", uri="qemu+ssh://other/system"), item("rtv-b", uri="qemu:///system")])
    assert "domains[0] (rtv-a): uri='qemu+ssh://other/system'" in outcome.result["msg"]
    assert sorted(host.conn.domains) == ["rtv-b"]


def test_all_items_bad_opens_no_connection(run, host):
    outcome = run([item("rtv-a", realtime={"priority": 100})])
    assert outcome.failed and host.opened == 0 and not outcome.result["changed"]


def test_defaults_fill_what_items_leave_out_and_are_checked_first(run, host):
    bare = dict((k, v) for k, v in ITEM.items() if k != "domain_type")
    outcome = run([dict(bare, name="rtv-a"), dict(bare, name="rtv-b", domain_type="kvm")],
                  defaults={"domain_type": "qemu"})
    assert not outcome.failed, outcome.result
    assert host.conn.domains["rtv-a"].xml.startswith("<domain type=\"qemu\"")
    assert host.conn.domains["rtv-b"].xml.startswith("<domain type=\"kvm\"")
    bad = run([item("rtv-c")], defaults={"restart": "often"})
    assert bad.failed and "defaults=" in bad.result["msg"] and "restart" in bad.result["msg"] and host.opened == 0
    named = run([item("rtv-c")], defaults={"name": "x"})
    assert named.failed and "defaults.name='x'" in named.result["msg"]


def test_remove_unlisted_needs_exclusive(run, host):
    outcome = run([item("rtv-a")], remove_unlisted=True)
    assert outcome.failed and "remove_unlisted=True" in outcome.result["msg"] and host.opened == 0


# --- a running domain -----------------------------------------------------------------------


def test_a_running_domain_changed_reports_pending_restart(run, host):
    run([item("rtv-a", state="running"), item("rtv-b", state="running")])
    changed = [item("rtv-a", state="running", realtime={"mask": "0", "priority": 5}), item("rtv-b", state="running")]
    checked = run(changed, check=True)
    assert by_name(checked)["rtv-a"]["pending_restart"] and by_name(checked)["rtv-a"]["changed"]
    assert not by_name(checked)["rtv-b"]["pending_restart"] and host.changes() == []
    done = run(changed)
    assert by_name(done)["rtv-a"]["pending_restart"] and host.changes() == [("define", "rtv-a")]
    again = run(changed)
    assert not again.result["changed"] and by_name(again)["rtv-a"]["pending_restart"]
    assert by_name(again)["rtv-a"]["differences"][0].startswith("live domain: ")


# --- the mark ---------------------------------------------------------------------------------


def test_a_listed_domain_without_the_mark_gets_it_without_a_redefinition(run, host):
    run([item("rtv-a", state="running")], owner="old")
    assert marker.owner_of(_root(host, "rtv-a")) == "old"
    checked = run([item("rtv-a", state="running")], check=True, diff=True)
    result = by_name(checked)["rtv-a"]
    assert result["changed"] and not result["pending_restart"] and host.changes() == []
    assert "owner=\"realtime.virt\"" in result["diff"]["after"] and "owner=\"old\"" in result["diff"]["before"]
    assert "the mark of owner 'old'" in result["differences"][0]
    done = run([item("rtv-a", state="running")])
    assert host.changes() == [("mark", "rtv-a")] and not by_name(done)["rtv-a"]["pending_restart"]
    assert marker.owner_of(_root(host, "rtv-a")) == "realtime.virt"
    assert not run([item("rtv-a", state="running")]).result["changed"]


def test_the_single_module_keeps_a_mark_and_never_adds_one(host, tmp_path):
    run_single = DomainManager
    params = dict(item("rtv-a"), uri="qemu:///system", state="present", restart=False)
    reader = HostReader(str(tmp_path))
    run_single(params, reader=reader, connect=host.connect).run()
    assert marker.owner_of(_root(host, "rtv-a")) is None
    host.conn.domains["rtv-a"].xml = marker_xml = host.conn.domains["rtv-a"].xml.replace(
        "<vcpu", '<metadata><rtv:managed xmlns:rtv="%s" owner="t"/></metadata><vcpu' % marker.NAMESPACE, 1)
    assert marker.owner_of(_root(host, "rtv-a")) == "t"
    result = run_single(dict(params, vcpus=3, cpu={"mode": "maximum"}, realtime=None), reader=reader,
                        connect=host.connect).run()
    assert result["changed"] and host.conn.domains["rtv-a"].xml != marker_xml
    assert marker.owner_of(_root(host, "rtv-a")) == "t"


# --- exclusive --------------------------------------------------------------------------------


def _hosts_with_strangers(host):
    host.conn.add("rtv-mine-old", plain_xml("rtv-mine-old", owner="realtime.virt"), running=True)
    host.conn.add("rtv-other-team", plain_xml("rtv-other-team", owner="team-b"))
    host.conn.add("rtv-by-hand", plain_xml("rtv-by-hand"))


def test_exclusive_reports_unlisted_marked_domains_and_touches_nothing(run, host):
    _hosts_with_strangers(host)
    outcome = run([item("rtv-a")], exclusive=True)
    assert not outcome.failed
    assert [u["name"] for u in outcome.result["unlisted"]] == ["rtv-mine-old"]
    assert outcome.result["unlisted"][0]["removed"] is False and not outcome.result["unlisted"][0]["changed"]
    assert any("rtv-mine-old" in w and "remove_unlisted" in w for w in outcome.warnings)
    assert host.changes() == [("define", "rtv-a")]
    assert sorted(host.conn.domains) == ["rtv-a", "rtv-by-hand", "rtv-mine-old", "rtv-other-team"]


def test_remove_unlisted_is_predicted_in_check_mode_and_removes_only_its_own(run, host):
    _hosts_with_strangers(host)
    checked = run([item("rtv-a")], exclusive=True, remove_unlisted=True, check=True, diff=True)
    assert checked.result["changed"] and host.changes() == [] and "rtv-mine-old" in host.conn.domains
    unlisted = checked.result["unlisted"][0]
    assert unlisted["name"] == "rtv-mine-old" and unlisted["changed"] and unlisted["diff"]["after"] == ""
    assert "<name>rtv-mine-old</name>" in unlisted["diff"]["before"]
    assert [d["before_header"] for d in checked.result["diff"]] == [
        "domain rtv-a (inactive XML before)", "domain rtv-mine-old (inactive XML before)"]
    done = run([item("rtv-a")], exclusive=True, remove_unlisted=True)
    assert not done.failed and done.result["unlisted"][0]["removed"]
    # the removal comes first, so its CPUs and memory are free for the listed domains
    assert host.changes() == [("destroy", "rtv-mine-old"), ("undefine", "rtv-mine-old"), ("define", "rtv-a")]
    assert sorted(host.conn.domains) == ["rtv-a", "rtv-by-hand", "rtv-other-team"]
    again = run([item("rtv-a")], exclusive=True, remove_unlisted=True, check=True)
    assert not again.result["changed"] and again.result["unlisted"] == []


def test_the_owner_scopes_exclusive(run, host):
    _hosts_with_strangers(host)
    outcome = run([], exclusive=True, remove_unlisted=True, owner="team-b")
    assert [u["name"] for u in outcome.result["unlisted"]] == ["rtv-other-team"]
    assert sorted(host.conn.domains) == ["rtv-by-hand", "rtv-mine-old"]


def test_unlisted_domains_are_kept_when_an_item_failed_validation(run, host):
    _hosts_with_strangers(host)
    outcome = run([item("rtv-a"), {"vcpus": 1}], exclusive=True, remove_unlisted=True)
    assert outcome.failed and "domains[1]: " in outcome.result["msg"] and "name" in outcome.result["msg"]
    assert "rtv-mine-old" in host.conn.domains and not outcome.result["unlisted"][0]["removed"]
    assert any("domains[1] failed validation" in w for w in outcome.warnings)
    assert host.changes() == [("define", "rtv-a")]


def test_a_listed_domain_is_never_unlisted_even_when_its_item_is_bad(run, host):
    _hosts_with_strangers(host)
    outcome = run([item("rtv-mine-old", realtime={"priority": 0})], exclusive=True)
    assert outcome.result["unlisted"] == [] and "rtv-mine-old" in host.conn.domains


def test_state_absent_items_remove_their_domain(run, host):
    run([item("rtv-a"), item("rtv-b")])
    checked = run([{"name": "rtv-a", "state": "absent"}, item("rtv-b")], check=True)
    assert by_name(checked)["rtv-a"]["changed"] and host.changes() == []
    done = run([{"name": "rtv-a", "state": "absent"}, item("rtv-b")])
    assert by_name(done)["rtv-a"]["changed"] and sorted(host.conn.domains) == ["rtv-b"]
    assert host.host_reads == 1  # rtv-b still needs the host's facts
    assert not run([{"name": "rtv-a", "state": "absent"}]).result["changed"] and host.host_reads == 0


# --- autostart --------------------------------------------------------------------------------


def test_autostart_per_item_check_real_check_real(run, host):
    domains = [item("rtv-a", autostart=True), item("rtv-b", state="running", autostart=False), item("rtv-c")]
    checked = run(domains, check=True, diff=True)
    assert host.changes() == [] and host.conn.domains == {}
    assert [d["autostart"] for d in checked.result["domains"]] == [True, False, False]
    assert by_name(checked)["rtv-a"]["differences"][-1].startswith("autostart: off, wanted on")
    assert by_name(checked)["rtv-a"]["diff"]["after"].startswith("<!-- autostart: on -->\n")
    assert by_name(checked)["rtv-b"]["diff"]["after"].startswith("<!-- autostart: off -->\n")
    assert "autostart" not in by_name(checked)["rtv-c"]["diff"]["after"]
    done = run(domains, diff=True)
    assert not done.failed and [d["autostart"] for d in done.result["domains"]] == [True, False, False]
    assert host.changes() == [("define", "rtv-a"), ("autostart", "rtv-a"), ("define", "rtv-b"), ("create", "rtv-b"),
                              ("define", "rtv-c")]
    assert [host.conn.domains[n].autostart_flag for n in ("rtv-a", "rtv-b", "rtv-c")] == [True, False, False]
    assert [d["diff"] for d in done.result["domains"]] == [d["diff"] for d in checked.result["domains"]]
    for check in (True, False):
        again = run(domains, check=check)
        assert not again.result["changed"] and host.changes() == []
        assert [d["autostart"] for d in again.result["domains"]] == [True, False, False]


def test_autostart_alone_is_set_without_a_redefinition_and_shows_in_the_diff(run, host):
    run([item("rtv-a", state="running"), item("rtv-b")])
    flipped = [item("rtv-a", state="running", autostart=True), item("rtv-b")]
    checked = run(flipped, check=True, diff=True)
    assert by_name(checked)["rtv-a"]["changed"] and not by_name(checked)["rtv-b"]["changed"]
    assert host.changes() == [] and host.conn.domains["rtv-a"].autostart_flag is False
    (diff,) = checked.result["diff"]
    assert diff["before_header"] == "domain rtv-a (inactive XML before)"
    before, after = diff["before"].split("\n"), diff["after"].split("\n")
    assert (before[0], after[0]) == ("<!-- autostart: off -->", "<!-- autostart: on -->") and before[1:] == after[1:]
    done = run(flipped)
    assert host.changes() == [("autostart", "rtv-a")] and host.conn.domains["rtv-a"].autostart_flag is True
    assert not by_name(done)["rtv-a"]["pending_restart"] and by_name(done)["rtv-a"]["state"] == "running"
    assert not run(flipped).result["changed"]
    # unset again: the flag is left as libvirt has it
    left = run([item("rtv-a", state="running"), item("rtv-b")])
    assert not left.result["changed"] and by_name(left)["rtv-a"]["autostart"] is True


def test_defaults_autostart_skips_absent_items_and_an_absent_item_cannot_ask_for_it(run, host):
    run([item("rtv-a"), item("rtv-b")])
    outcome = run([{"name": "rtv-a", "state": "absent"}, item("rtv-b")], defaults={"autostart": True})
    assert not outcome.failed, outcome.result
    assert sorted(host.conn.domains) == ["rtv-b"] and host.conn.domains["rtv-b"].autostart_flag is True
    assert by_name(outcome)["rtv-a"]["autostart"] is None and by_name(outcome)["rtv-b"]["autostart"] is True
    refused = run([{"name": "rtv-b", "state": "absent", "autostart": False}])
    assert refused.failed and host.changes() == [] and host.opened == 0
    assert refused.result["msg"] == (
        "libvirt_rt_domains: 1 of 1 domains failed: domains[0] (rtv-b): autostart=False: state absent undefines the "
        "domain, and libvirt drops its autostart flag with it. Fix: leave autostart out (or null) for state absent")


def test_a_refused_autostart_fails_that_domain_after_its_define(run, host):
    host.conn.fail_autostart["rtv-a"] = "Failed to create symlink: Permission denied"
    outcome = run([item("rtv-a", autostart=True), item("rtv-b", autostart=True)])
    state = by_name(outcome)
    assert outcome.failed and state["rtv-a"]["failed"] and state["rtv-a"]["changed"] is True
    assert "domains[0] (rtv-a): libvirt could not set the autostart flag of domain 'rtv-a'" in outcome.result["msg"]
    assert state["rtv-b"]["autostart"] is True and host.conn.domains["rtv-b"].autostart_flag is True
