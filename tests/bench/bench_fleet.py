# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmark: a simulated fleet of N hosts on one controller, through the
stages of playbooks/site.yml that can read a captured host tree instead of
the live host, with ansible.builtin.ping over the same hosts in the same
run as the floor every Ansible task pays.

The fleet: N inventory hosts (``fleet-0000`` ...), all on this machine
(``ansible_connection: local``, ``ansible_python_interpreter`` the venv's
python), each with its own host tree, the ``root`` that
realtime.virt.rt_node_facts and realtime.virt.rt_host_plan take.  The hosts
cycle through the 20 slots of ``CYCLE`` over the ``PROFILES``: one socket
with two CPUs and nothing isolated (the shape ``test_host``), two sockets
with SMT (``two_socket_smt``, a shut-off real-time domain already pinned to
CPUs 2-3 in its libvirt), a PREEMPT_RT kernel (``preempt_rt``), the two
socket shape with two QAT 4xxx PFs and their VFs or a C62x card with three
PFs (``tests/unit/fixtures/qat_trees.py``), PREEMPT_RT with an SR-IOV
network card, the 512-CPU 8-node shape (``big_512``), and three hosts
in 20 (15 %) that the plan must refuse: a domain asking 4 isolated CPUs
of a host that has 2, 16 x 1G hugepages on a node of 8 GiB, and
``qat_pfs`` naming a QAT PF the host lacks.  Each profile's stage variables are the inventory
group variables of its hosts (``rt_domain_domains``, ``hugepages_pages``,
``qat_pfs``, ``sriov_pfs``, ``rt_validate_guests`` ...), passed to the
modules as site.yml passes them; the hosts whose profile names guests have
those guests in the inventory group ``rt_guests`` (not played), so
``groups['all']`` holds more names than the fleet.

Trees: each profile's tree is built once (``rt_node_trees.build_shape``,
the PCI devices with ``qat_trees``/``pci_kernel``), under
``<work>/shapes/<profile>``, with a ``libvirt.xml`` beside ``proc`` and
``sys``: the domains libvirt holds on such a host, read through libvirt's
test driver (``rt_domain_uri: test://<root>/libvirt.xml``), in process,
so the plan's domains check runs without libvirtd and every host has a
libvirt of its own.  Each host's root is ``<work>/hosts/<host>``, a
symlink to its profile's tree: every host reads its own path, opens the
same files as with a copy, and the page cache holds one copy, as a live
host serves /proc and /sys from memory anyway (copies of 500 would take about
2.4 GB of small files on this disk, and prove nothing more).

Each run is one ``ansible-playbook tests/bench/fleet_site_stages.yml``:
a warm-up on one host (ping, rt_node_facts, rt_host_plan once each:
Ansible builds a module's payload once per run, in the first task that
ships it, and the timed tasks should not differ by who paid that; its time
is in the play's total and printed); ping; rt_node_facts (root); the
readiness report (site.yml's debug message, the filter on the
controller); rt_host_plan (root, uri and
site.yml's arguments; the refused hosts fail with ``ignore_errors`` and
the play goes on) and the set_fact that hands rt_host the boot arguments;
the same plan without its ``inventory`` argument (a probe: that argument
is every hostname of the inventory, O(N) per host and O(N^2) over the
fleet; the difference per host is what it costs); ping again; an assert
that every domain of a planned host got a node and a cpuset.  The bench
checks first that the playbook's plan arguments and readiness message are
still site.yml's.  Task times come from the callback
``realtime_virt_bench_times`` (from a task's start to its last host's
result), each host's outcome and the main process's peak memory from
``realtime_virt_bench_fleet`` (tests/bench/callback_plugins).

Reported for each N: each stage's task time per host (task time / N), the
ping floor per host (mean of the two pings), the controller's cost per
host (the play's task time / N; the whole command's wall time and the CPU
time of ansible-playbook and everything it started, per host, beside it),
the cost per host of the ``inventory`` argument, and the peak memory: the
``ansible-playbook`` main process's own maximum RSS (``RUSAGE_SELF`` read
by the callback at the end of the play: the controller proper, holding the
inventory, every host's variables, facts and results) and the largest
maximum RSS of any process of the run (``os.wait4`` on ansible-playbook:
Linux reports the largest of the process and its waited-for descendants,
workers and module processes included; not their sum).

Targets, at the largest N of the run (500 by default); exits 1 when one
is missed or when a host other than the ones built to fail fails a task
(or one of those does not fail its plan, or fails it for another reason):

* the plan stage (the rt_host_plan task, which places the domains too)
  per host at most 2x ping per host (printed with site.yml's handoff
  set_fact added too, without a target);
* the controller's cost per host (the play's task time / N) at most 1.5x
  that at the smallest N (50): no step grows faster than the fleet.  The
  ratio of each task is printed too.

Forks: ``max(5, 2 x CPU cores)`` unless ``--forks``: with connection local
every host's module runs on the controller's own cores, so workers beyond
about twice the cores only queue (two per core keep a core busy while the
other worker forks, writes its module or waits on the disk); and never
below Ansible's default 5, so a small controller is measured as a user
who left ``forks`` alone runs it.  On the 2-core development machine that
is 5.  The project's ansible.cfg is used as it is (no pipelining).

    .venv/bin/python tests/bench/bench_fleet.py                 # N = 50, 200, 500
    .venv/bin/python tests/bench/bench_fleet.py --hosts 20      # one quick run
    .venv/bin/python tests/bench/bench_fleet.py --sizes 5,20 --forks 4 --keep

It changes nothing on the machine (the trees and the inventory are made
under a temporary directory, removed at the end unless ``--keep``) and
needs neither root nor libvirtd (libvirt-python, which the venv has, for
the test driver).  About 0.7 s per host on the 2-core machine (the
probe included), so the default sizes take about 10 minutes.
"""

from __future__ import absolute_import, division, print_function

import argparse
import copy
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, ".cache", "collections"))
sys.path.insert(0, os.path.join(TOP, "tests", "unit", "fixtures"))

from callback_env import playbook_environment  # noqa: E402  (beside this file)

PLAYBOOK = os.path.join(HERE, "fleet_site_stages.yml")
SITE = os.path.join(TOP, "playbooks", "site.yml")
CALLBACKS = ("realtime_virt_bench_times", "realtime_virt_bench_fleet")
SIZES = (50, 200, 500)
TARGET_PLAN_VS_PING = 2.0
TARGET_GROWTH = 1.5

WARMUP = ("Warm-up: ping", "Warm-up: rt_node_facts", "Warm-up: rt_host_plan")
PING = ("Floor: ping, before the stages", "Floor: ping, after the stages")
FACTS = "Facts: rt_node_facts"
READINESS = "Facts: readiness report"
PLAN = "Plan: rt_host_plan"
HANDOFF = "Plan: hand rt_host the boot arguments"
PROBE = "Probe: rt_host_plan without the inventory argument"
CHECK = "Check: the planned hosts' domains are placed"
LABELS = {PING[0]: "ping before", FACTS: "facts", READINESS: "readiness", PLAN: "plan", HANDOFF: "handoff",
          PROBE: "plan without inventory", PING[1]: "ping after", CHECK: "placement check"}
ORDER = dict((name, index) for index, name in enumerate(LABELS))
SITE_PLAN = "Plan every stage before the first change"
SITE_READINESS = "Show the real-time readiness report before any change"

NIC = "0000:3b:00.0"
# A shut-off real-time domain pinned to CPUs 2-3, as libvirt's test driver
# reads it (runstate 5: shut off); the plan places new domains around it.
DEFINED_RT = """  <domain type="test" xmlns:test="http://libvirt.org/schemas/domain/test/1.0">
    <name>existing-rt</name>
    <memory unit="MiB">1024</memory>
    <vcpu placement="static">2</vcpu>
    <cputune><vcpupin vcpu="0" cpuset="2"/><vcpupin vcpu="1" cpuset="3"/></cputune>
    <os><type>hvm</type></os>
    <test:runstate>5</test:runstate>
  </domain>
"""


def domain(name, vcpus, memory_mib, page_size, **extra):
    entry = {"name": name, "vcpus": vcpus, "memory_mib": memory_mib, "cpus": "auto", "realtime": {},
             "memory": {"hugepages": {"page_size": page_size}}}
    entry.update(extra)
    return entry


TWO_SOCKET_VARS = {
    "rt_host_isolated_cpus": "2-15,18-31",
    "hugepages_pages": [{"size": "1G", "count": 8, "node": 0}, {"size": "1G", "count": 8, "node": 1}],
    "hugepages_default_size": "1G",
    "rt_domain_domains": [domain("plc-01", 4, 4096, "1G"), domain("plc-02", 4, 4096, "1G")],
    "rt_validate_guests": ["{{ inventory_hostname }}-plc-01"],
    "rt_validate_duration": "30s",
}

# profile -> shape of rt_node_trees (and overrides), PCI devices, what
# libvirt holds, the stage variables of its hosts, the guests they name,
# and for the hosts the plan must refuse the option its message names.
PROFILES = {
    "one_socket": {
        "shape": "test_host", "vars": {
            "rt_host_isolated_cpus": "auto",
            "hugepages_pages": [{"size": "2M", "count": 128, "node": 0}],
            "rt_domain_allow_unisolated": True,
            "rt_domain_domain_defaults": {"domain_type": "qemu", "memory": {"locked": False}},
            "rt_domain_domains": [domain("rtv-demo", 1, 64, "2M", rng={"profile": "ovirt"})]}},
    "two_socket": {"shape": "two_socket_smt", "defined": DEFINED_RT, "vars": TWO_SOCKET_VARS, "guests": ["plc-01"]},
    "preempt_rt": {
        "shape": "preempt_rt", "vars": {
            "rt_host_isolated_cpus": "2-3",
            "hugepages_pages": [{"size": "2M", "count": 512, "node": 0}],
            "rt_domain_domains": [domain("plc-01", 2, 512, "2M")]}},
    "qat_4xxx": {
        "shape": "two_socket_smt", "qat": "two_socket_4xxx", "guests": ["plc-01"],
        "vars": dict(TWO_SOCKET_VARS, qat_pfs=["0000:6b:00.0", "0000:e8:00.0"], qat_numvfs=16, qat_services="sym;asym",
                     rt_domain_domains=[domain("plc-01", 4, 4096, "1G", qat_vfs=2),
                                        domain("plc-02", 4, 4096, "1G", qat_vfs=2, numa_node=1)])},
    "qat_c62x": {
        "shape": "two_socket_smt", "qat": "c62x_three_pfs",
        "vars": {"rt_host_isolated_cpus": "2-15,18-31", "rt_host_reboot": "auto",
                 "qat_numvfs_per_pf": {"0000:3d:00.0": 8},
                 "rt_domain_domains": [domain("plc-01", 6, 2048, "1G", qat_vfs=1)]}},
    "sriov_nic": {
        "shape": "preempt_rt", "nic": True, "vars": {
            "rt_host_isolated_cpus": "2-3",
            "sriov_pfs": [{"pf": NIC, "count": 4}],
            "rt_domain_domains": [domain("plc-01", 2, 512, "2M")]}},
    "big_512": {
        "shape": "big_512", "vars": {
            "rt_host_isolated_cpus": "8-255,264-511",
            "hugepages_pages": [{"size": "1G", "count": 16, "node": node} for node in range(8)],
            "rt_domain_domains": [domain("plc-%02d" % index, 8, 2048, "1G") for index in range(8)]}},
    "bad_cpus": {
        "shape": "preempt_rt", "refused": "rt_domain_domains[0] (plc-01).cpus=",
        "vars": {"rt_host_isolated_cpus": "2-3", "rt_domain_domains": [domain("plc-01", 4, 512, "2M")]}},
    "bad_hugepages": {
        "shape": "test_host", "refused": "hugepages_pages=",
        "vars": {"rt_host_isolated_cpus": "auto", "hugepages_pages": [{"size": "1G", "count": 16, "node": 0}]}},
    "bad_qat": {
        "shape": "two_socket_smt", "refused": "qat_pfs[0]=",
        "vars": dict(TWO_SOCKET_VARS, qat_pfs=["0000:6b:00.0"], rt_validate_guests=[])},
}
# host i has profile CYCLE[i % 20]; a fleet of 5 already holds one refused host
CYCLE = ("one_socket", "two_socket", "preempt_rt", "qat_4xxx", "bad_cpus",
         "two_socket", "sriov_nic", "one_socket", "qat_c62x", "two_socket",
         "big_512", "bad_hugepages", "preempt_rt", "qat_4xxx", "two_socket",
         "one_socket", "sriov_nic", "bad_qat", "two_socket", "preempt_rt")


def host_name(index):
    return "fleet-%04d" % index


def build_trees(work):
    """Each profile's tree once, under ``<work>/shapes``; return the seconds it took."""
    import pci_kernel
    import qat_trees
    import rt_node_trees
    start = time.monotonic()
    for name, profile in PROFILES.items():
        root = os.path.join(work, "shapes", name)
        os.makedirs(root)
        rt_node_trees.build_shape(root, profile["shape"], **profile.get("overrides", {}))
        if profile.get("qat"):
            qat_trees.build(root, profile["qat"])
        if profile.get("nic"):
            pci_kernel.PciTree(root).add_pf(NIC, "1593", "1889", 8, driver="ice")
        with open(os.path.join(root, "libvirt.xml"), "w") as handle:
            handle.write("<node>\n%s</node>\n" % profile.get("defined", ""))
    return time.monotonic() - start


def write_inventory(work, count):
    """The inventory of ``count`` hosts, each root a symlink to its profile's tree; return its path."""
    import yaml
    hosts_dir = os.path.join(work, "hosts")
    if os.path.isdir(hosts_dir):
        shutil.rmtree(hosts_dir)
    os.makedirs(hosts_dir)
    python = os.path.join(TOP, ".venv", "bin", "python")
    groups, guests = {}, {}
    for index in range(count):
        name = host_name(index)
        profile = CYCLE[index % len(CYCLE)]
        root = os.path.join(hosts_dir, name)
        os.symlink(os.path.join("..", "shapes", profile), root)
        group = groups.setdefault("fleet_" + profile, {"hosts": {}, "vars": copy.deepcopy(PROFILES[profile]["vars"])})
        group["hosts"][name] = {"rt_bench_root": root}
        for guest in PROFILES[profile].get("guests", ()):
            guests["%s-%s" % (name, guest)] = None
    inventory = {"all": {
        "vars": {"ansible_connection": "local",
                 "ansible_python_interpreter": python if os.path.exists(python) else sys.executable,
                 "rt_domain_uri": "test://{{ rt_bench_root }}/libvirt.xml"},
        "children": {"fleet": {"children": groups}, "rt_guests": {"hosts": guests}}}}
    path = os.path.join(work, "inventory-%d.yml" % count)
    with open(path, "w") as handle:
        yaml.safe_dump(inventory, handle, default_flow_style=False, sort_keys=True)
    names = [host_name(index) for index in range(count)] + sorted(guests)
    return path, len(names), len(json.dumps(names))


def check_in_step():
    """The bench's plan arguments and readiness message are still those of playbooks/site.yml."""
    import yaml

    def tasks(path):
        found = {}
        for play in yaml.safe_load(open(path)):
            for task in play.get("tasks", []):
                for inner in task.get("block", [task]):
                    found[inner.get("name")] = inner
        return found

    site, bench = tasks(SITE), tasks(PLAYBOOK)
    site_args = dict(site[SITE_PLAN]["realtime.virt.rt_host_plan"])
    bench_args = dict(bench[PLAN]["realtime.virt.rt_host_plan"])
    problems = []
    if bench_args.pop("root", None) != "{{ rt_bench_root }}":
        problems.append("the bench's plan task does not read rt_bench_root")
    if bench_args != site_args:
        problems.append("the bench's plan arguments differ from site.yml's: %s"
                        % sorted(k for k in set(site_args) | set(bench_args) if site_args.get(k) != bench_args.get(k)))
    probe_args = dict(bench[PROBE]["realtime.virt.rt_host_plan"])
    if dict(probe_args, inventory=bench_args.get("inventory"), root=None) != dict(bench_args, root=None):
        problems.append("the probe differs from the plan task by more than its inventory argument")
    if site[SITE_READINESS]["ansible.builtin.debug"] != bench[READINESS]["ansible.builtin.debug"]:
        problems.append("the bench's readiness message differs from site.yml's")
    return problems


def environment(times, fleet):
    return playbook_environment(CALLBACKS, {"REALTIME_VIRT_BENCH_TIMES": times, "REALTIME_VIRT_BENCH_FLEET": fleet})


def run(work, count, forks, probe):
    """One ansible-playbook over ``count`` hosts: task times, outcomes, wall, CPU and peak memory."""
    inventory, names, names_bytes = write_inventory(work, count)
    times = os.path.join(work, "times-%d.json" % count)
    fleet = os.path.join(work, "fleet-%d.json" % count)
    log = os.path.join(work, "ansible-%d.log" % count)
    cmd = [os.path.join(TOP, ".venv", "bin", "ansible-playbook"), PLAYBOOK, "-i", inventory, "--forks", str(forks),
           "-e", "rt_bench_probe=%s" % probe]
    with open(log, "w") as out:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=TOP, stdout=out, stderr=subprocess.STDOUT, env=environment(times, fleet))
        _pid, status, usage = os.wait4(proc.pid, 0)
        whole = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0 or not os.path.exists(times) or not os.path.exists(fleet):
        with open(log) as handle:
            tail = handle.read()[-4000:]
        raise SystemExit("ansible-playbook over %d hosts ended with %d; the end of %s:\n%s"
                         % (count, proc.returncode, log, tail))
    with open(times) as handle:
        task_times = json.load(handle)
    with open(fleet) as handle:
        outcome = json.load(handle)
    return {"count": count, "inventory": names, "inventory_bytes": names_bytes, "times": task_times, "tasks": outcome["tasks"],
            "controller_rss_mb": outcome["controller_max_rss_kb"] / 1024.0, "largest_rss_mb": usage.ru_maxrss / 1024.0,
            "cpu": usage.ru_utime + usage.ru_stime, "whole": whole, "log": log}


def outcome_problems(result):
    """Every host that failed where it should not, or did not fail (for its reason) where it should."""
    count = result["count"]
    expected = dict((host_name(i), PROFILES[CYCLE[i % len(CYCLE)]]["refused"])
                    for i in range(count) if PROFILES[CYCLE[i % len(CYCLE)]].get("refused"))
    problems = []
    for name, entry in sorted(result["tasks"].items()):
        if entry["unreachable"]:
            problems.append("%s: %d host(s) unreachable" % (name, entry["unreachable"]))
        if name == PROBE and not entry["ok"] and not entry["failed"]:
            continue  # --no-probe: skipped on every host
        if name in (PLAN, PROBE):
            failed = entry["failed"]
            for host in sorted(set(failed) - set(expected)):
                problems.append("%s: %s failed, it should pass: %s" % (name, host, failed[host]))
            for host in sorted(set(expected) - set(failed)):
                problems.append("%s: %s passed, it should be refused (%s...)" % (name, host, expected[host]))
            for host in sorted(set(expected) & set(failed)):
                if expected[host] not in failed[host]:
                    problems.append("%s: %s refused for another reason than %s...: %s"
                                    % (name, host, expected[host], failed[host]))
        elif entry["failed"]:
            problems.append("%s: failed on %s" % (name, ", ".join("%s (%s)" % item for item in sorted(entry["failed"].items())[:5])))
    for name in WARMUP:
        if result["tasks"].get(name, {}).get("ok") != 1:
            problems.append("%s: %s, one host should run it" % (name, result["tasks"].get(name)))
    for name in PING + (FACTS, READINESS, PLAN, CHECK):
        if name not in result["tasks"]:
            problems.append("%s: did not run" % name)
        elif name != CHECK and sum(len(v) if isinstance(v, dict) else v
                                   for k, v in result["tasks"][name].items() if k != "skipped") != count:
            problems.append("%s: %s results for %d hosts" % (name, result["tasks"][name], count))
    planned = count - len(expected)
    if CHECK in result["tasks"] and result["tasks"][CHECK]["ok"] != planned:
        problems.append("%s: %d hosts placed, %d planned" % (CHECK, result["tasks"][CHECK]["ok"], planned))
    return problems, len(expected)


def figures(result):
    """Per-host seconds of each stage and of the controller, from one run."""
    count, times = result["count"], result["times"]
    per = dict((name, seconds / count) for name, seconds in times.items())
    ping = statistics.mean(per.get(name, float("nan")) for name in PING)
    return {
        "ping": ping, "ping_each": [per.get(name, float("nan")) for name in PING],
        "facts": per.get(FACTS, float("nan")), "readiness": per.get(READINESS, float("nan")),
        "plan": per.get(PLAN, float("nan")), "handoff": per.get(HANDOFF, 0.0), "probe": per.get(PROBE),
        "play": sum(times.values()) / count, "whole": result["whole"] / count, "cpu": result["cpu"] / count,
        "warmup": sum(times.get(name, 0.0) for name in WARMUP),
        "per_task": dict((name, value) for name, value in per.items() if name not in WARMUP),
    }


def in_process(work, repeat=5):
    """The modules' own work per profile, without Ansible: median ms of facts and of the whole plan."""
    import libvirt
    from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
    from ansible_collections.realtime.virt.plugins.module_utils._libvirt.observe import DomainObserver
    from ansible_collections.realtime.virt.plugins.module_utils._node.gather import gather_node_facts
    from ansible_collections.realtime.virt.plugins.module_utils._qat.gather import gather_qat
    from ansible_collections.realtime.virt.plugins.module_utils._site.plan import plan_host
    from ansible_collections.realtime.virt.plugins.modules.rt_host_plan import STAGES
    from ansible_collections.realtime.virt.plugins.action.rt_host_plan import fill_role_defaults, role_variables

    rows = []
    for name, profile in PROFILES.items():
        root = os.path.join(work, "shapes", name)
        variables = profile["vars"]
        # What the plan task passes (the profile's variables), the rest its roles' defaults as the action plugin fills them.
        given = {}
        for (stage, option), (_role, variable) in role_variables().items():
            if stage is not None and variable in variables:
                given.setdefault(stage, {})[option] = variables[variable]
        filled = fill_role_defaults(given)
        stages = dict((stage, filled[stage]) for stage in STAGES)
        stages["rt_validate"]["guests"] = [g.replace("{{ inventory_hostname }}", "h") for g in stages["rt_validate"]["guests"]]
        facts_ms, plan_ms, problems = [], [], None
        for dummy in range(repeat):
            start = time.perf_counter()
            gather_node_facts(root)
            facts_ms.append((time.perf_counter() - start) * 1e3)
            start = time.perf_counter()
            facts = gather_node_facts(root)[0]
            qat = gather_qat(root)[0]
            defined = DomainObserver("test://%s/libvirt.xml" % root, libvirt.open).run()[0] \
                if stages["rt_domain"]["domains"] else []
            dummy_plan, problems = plan_host(facts, stages, qat=qat, reader=HostReader(root), defined=defined)
            plan_ms.append((time.perf_counter() - start) * 1e3)
        rows.append((name, statistics.median(facts_ms), statistics.median(plan_ms), len(problems)))
    return rows


def met(ok):
    return "met" if ok else "NOT met"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--hosts", type=int, help="one run of this many hosts")
    group.add_argument("--sizes", default=",".join(str(n) for n in SIZES), help="fleet sizes, comma separated (50,200,500)")
    parser.add_argument("--forks", type=int, default=max(5, 2 * (os.cpu_count() or 1)),
                        help="Ansible forks (max(5, 2 x cores) = %(default)s here)")
    parser.add_argument("--no-probe", dest="probe", action="store_false",
                        help="leave out the plan without the inventory argument")
    parser.add_argument("--keep", action="store_true", help="keep the trees, inventories and logs")
    parser.add_argument("--smoke", action="store_true",
                        help="the small form of make test: each host's outcome is checked, the timing only reported")
    args = parser.parse_args(argv)
    sizes = [args.hosts] if args.hosts else sorted(set(int(n) for n in args.sizes.split(",") if n.strip()))

    drift = check_in_step()
    if drift:
        print("fleet_site_stages.yml is out of step with playbooks/site.yml:\n  " + "\n  ".join(drift))
        return 1

    work = tempfile.mkdtemp(prefix="rtv-fleet-bench-")
    try:
        return measure(work, sizes, args)
    finally:
        if args.keep:
            print("kept: %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


def measure(work, sizes, args):
    cores = os.cpu_count() or 1
    print("Fleet of N hosts on one controller (connection local, %d cores, forks %d%s), N = %s"
          % (cores, args.forks, " = max(5, 2 x cores)" if args.forks == max(5, 2 * cores) else ", given",
             ", ".join(str(n) for n in sizes)))
    built = build_trees(work)
    print("  %d profile trees built in %.2f s under %s/shapes; each host's root is a symlink to its profile's tree"
          % (len(PROFILES), built, work))
    print("  profiles in every 20 hosts: %s" % ", ".join(
        "%s %d" % (name, CYCLE.count(name)) for name in PROFILES))

    print("\nThe modules' own work in-process (no Ansible), median of 5, per profile:")
    print("  | profile | facts [ms] | facts+plan [ms] | problems |")
    for name, facts_ms, plan_ms, problems in in_process(work):
        print("  | %s | %.1f | %.1f | %d |" % (name, facts_ms, plan_ms, problems))

    results, failures = [], []
    for count in sizes:
        result = run(work, count, args.forks, args.probe)
        problems, refused = outcome_problems(result)
        result["figures"] = figures(result)
        result["refused"] = refused
        results.append(result)
        failures.extend("N=%d: %s" % (count, problem) for problem in problems)
        print("\nN = %d: %d in the inventory (guests included), %d refused by the plan as built, whole command %.1f s, "
              "warm-up (each module once, one host) %.2f s%s"
              % (count, result["inventory"], refused, result["whole"], result["figures"]["warmup"],
                 "" if problems else "; every host's outcome as expected"))
        for problem in problems:
            print("  WRONG: %s" % problem)

    print("\nPer host [ms] (task time / N; the controller's play = all tasks / N):")
    print("  | N | ping/host (before, after) | facts/host | readiness/host | plan/host | handoff/host | plan÷ping "
          "| play/host | whole/host | CPU/host | controller RSS [MB] | largest RSS [MB] |")
    print("  | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for result in results:
        f = result["figures"]
        print("  | %d | %.1f (%.1f, %.1f) | %.1f | %.1f | %.1f | %.1f | %.2f | %.1f | %.1f | %.1f | %.1f | %.1f |"
              % (result["count"], f["ping"] * 1e3, f["ping_each"][0] * 1e3, f["ping_each"][1] * 1e3, f["facts"] * 1e3,
                 f["readiness"] * 1e3, f["plan"] * 1e3, f["handoff"] * 1e3, f["plan"] / f["ping"], f["play"] * 1e3,
                 f["whole"] * 1e3, f["cpu"] * 1e3, result["controller_rss_mb"], result["largest_rss_mb"]))

    if args.probe:
        print("\nThe inventory argument of rt_host_plan (groups['all'], O(N) per host): plan minus the same plan "
              "without it, per host:")
        for result in results:
            f = result["figures"]
            size = result["inventory_bytes"]
            print("  N = %d: %d names, %.1f kB of arguments (JSON) per host, %.2f MB over the fleet; plan %.1f ms, "
                  "without %.1f ms, difference %+.1f ms per host"
                  % (result["count"], result["inventory"], size / 1024.0, size * result["count"] / 1024.0 / 1024.0,
                     f["plan"] * 1e3, f["probe"] * 1e3, (f["plan"] - f["probe"]) * 1e3))

    largest, smallest = results[-1], results[0]
    ratio = largest["figures"]["plan"] / largest["figures"]["ping"]
    plan_ok = ratio <= TARGET_PLAN_VS_PING
    print("\nTargets at N = %d:" % largest["count"])
    print("  plan per host / ping per host = %.2f (target <= %.1f): %s" % (ratio, TARGET_PLAN_VS_PING, met(plan_ok)))
    print("    with the handoff set_fact after it (site.yml's plan stage as a whole): %.2f (no target)"
          % ((largest["figures"]["plan"] + largest["figures"]["handoff"]) / largest["figures"]["ping"]))
    growth_ok = True
    if smallest["count"] < largest["count"]:
        growth = largest["figures"]["play"] / smallest["figures"]["play"]
        growth_ok = growth <= TARGET_GROWTH
        print("  controller per host (play / N) at %d / at %d = %.2f (target <= %.1f): %s"
              % (largest["count"], smallest["count"], growth, TARGET_GROWTH, met(growth_ok)))
        print("    the same ratio for each task, the whole command and the CPU time: %s" % ", ".join(
            "%s %.2f" % (LABELS.get(name, name), largest["figures"]["per_task"][name] / smallest["figures"]["per_task"][name])
            for name in sorted(largest["figures"]["per_task"], key=lambda n: ORDER.get(n, 99))
            if smallest["figures"]["per_task"].get(name))
            + ", whole %.2f, CPU %.2f" % (largest["figures"]["whole"] / smallest["figures"]["whole"],
                                          largest["figures"]["cpu"] / smallest["figures"]["cpu"]))
        rss = (largest["controller_rss_mb"] - smallest["controller_rss_mb"]) / (largest["count"] - smallest["count"])
        print("  controller peak RSS %.1f MB at %d, %.1f MB at %d: %.3f MB more per added host (reported, no target)"
              % (largest["controller_rss_mb"], largest["count"], smallest["controller_rss_mb"], smallest["count"], rss))
    else:
        print("  controller per host at the largest N / at the smallest: not checked (one size; give --sizes)")
        print("  controller peak RSS %.1f MB (reported, no target)" % largest["controller_rss_mb"])
    print("  every host's outcome as built (the refused hosts and only they fail their plan): %s" % met(not failures))
    for failure in failures:
        print("    %s" % failure)
    if args.smoke:
        return 0 if not failures else 1
    return 0 if plan_ok and growth_ok and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
