# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmark: realtime.virt.libvirt_rt_domains (one task) against a loop of
community.libvirt.virt command=define given the same XML, and how the
module's no-change re-run grows with the number of defined domains.

Part 1, side by side in one run: both tools converge their own 50 domains
(2 vCPUs pinned, emulator pin, ``<vcpusched>`` on vCPU 0, virtio-rng with a
rate, TCG), then re-run with nothing to change and re-run in check mode;
re-run and check mode twice each. The tool that goes first alternates from
one phase to the next. Targets: no-change re-run and check-mode re-run take
at most 0.1 of the loop's time, converge at most 0.3; in check mode the
module reports 0 changes and ``virt`` one per domain.

Part 2: the module alone re-runs with nothing to change over 50, 200 and
500 defined (not started) domains, three times each (median). Target: the
time per domain at 500 is at most 1.5 times the time per domain at 50.
Since the task time holds a fixed cost per task (shipping and starting the
module), the module's own work is also timed in-process (no Ansible: the
manager of libvirt_rt_domains reading, rendering and comparing the same
defined domains, median of five): its time per domain at 500 must be at
most 1.5 times that at 50 too, which is what shows the work grows
linearly.

Times are task times inside the play (the ``realtime_virt_bench_times``
callback of tests/bench/callback_plugins: from the start of the task to its
last result), so the ``ansible-playbook`` start-up both tools pay is left
out; the whole-command times are printed too. Needs root and a running
libvirtd (qemu:///system); every domain it defines is named
``rtv-batch-bench-*`` and removed at the end (and at the start, left over
from an interrupted run). Exits 1 when a target is missed.

    .venv/bin/python tests/bench/bench_libvirt_rt_domains.py [count [sizes]]

``count`` (50) is the size of part 1, ``sizes`` (``50,200,500``) those of
part 2; smaller values make a quick try, not the measured run.
"""

from __future__ import absolute_import, division, print_function

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, ".cache", "collections"))

from callback_env import playbook_environment  # noqa: E402  (beside this file)

PREFIX = "rtv-batch-bench"
OWNER = "rtv-batch-bench"
PLAYBOOK = os.path.join(HERE, "libvirt_rt_domains_phase.yml")
CALLBACK = "realtime_virt_bench_times"
OPTIONS = {
    "domain_type": "qemu", "memory_mib": 64, "vcpus": 2,
    "cpu": {"mode": "maximum", "pinning": [{"vcpu": 0, "cpuset": "0"}, {"vcpu": 1, "cpuset": "1"}], "emulator_cpuset": "0"},
    "realtime": {"mask": "0"}, "memory": {"locked": False},
    "rng": {"rate": {"period": 1000, "bytes": 1024}, "backend": "/dev/urandom"},
}
GROWTH = (50, 200, 500)
REPEATS = 3
IN_PROCESS = 5
TARGET_RERUN = 0.1
TARGET_CHECK = 0.1
TARGET_CONVERGE = 0.3
TARGET_GROWTH = 1.5


def items(tag, count):
    return [dict(OPTIONS, name="%s-%s-%d" % (PREFIX, tag, index)) for index in range(count)]


def write_vars(directory, tool, domains):
    """The phase playbook's variables, and for virt each domain's XML as this module renders it."""
    from ansible_collections.realtime.virt.plugins.module_utils._libvirt.render import render
    from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import to_text
    from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import build_spec
    if tool == "virt":
        for domain in domains:
            with open(os.path.join(directory, domain["name"] + ".xml"), "w") as handle:
                handle.write(to_text(render(build_spec(domain, {}))))
    path = os.path.join(directory, "vars-%s-%d.json" % (tool, len(domains)))
    with open(path, "w") as handle:
        json.dump({"bench_domains": domains, "bench_names": [d["name"] for d in domains], "bench_owner": OWNER,
                   "bench_xml_dir": directory}, handle)
    return path


def environment(times):
    return playbook_environment((CALLBACK,), {"REALTIME_VIRT_BENCH_TIMES": times})


def phase(tool, variables, directory, check=False):
    """One ansible-playbook run: the task time, the whole-command time and the changed count."""
    times = os.path.join(directory, "times.json")
    out = os.path.join(directory, "changed")
    cmd = [os.path.join(TOP, ".venv", "bin", "ansible-playbook"), PLAYBOOK, "--tags", tool,
           "-e", "@" + variables, "-e", "bench_out=" + out]
    if check:
        cmd.append("--check")
    start = time.monotonic()
    subprocess.run(cmd, cwd=TOP, check=True, stdout=subprocess.DEVNULL, env=environment(times))
    whole = time.monotonic() - start
    with open(times) as handle:
        task = json.load(handle)["Timed: " + tool]
    with open(out) as handle:
        changed = int(handle.read().strip() or 0)
    os.unlink(times)
    os.unlink(out)
    return {"task": task, "whole": whole, "changed": changed}


def cleanup():
    """Undefine every domain named rtv-batch-bench-* (and nothing else)."""
    import libvirt
    conn = libvirt.open("qemu:///system")
    try:
        for dom in conn.listAllDomains(0):
            if dom.name().startswith(PREFIX + "-"):
                if dom.isActive():
                    dom.destroy()
                dom.undefine()
    finally:
        conn.close()


def compare(directory, count):
    """Part 1: rows of (phase, first tool, batch, virt)."""
    variables = {"batch": write_vars(directory, "batch", items("b", count)),
                 "virt": write_vars(directory, "virt", items("v", count))}
    plan = (("converge", False), ("re-run (no change)", False), ("check-mode re-run", True),
            ("re-run (no change)", False), ("check-mode re-run", True))
    rows = []
    for number, (label, check) in enumerate(plan):
        order = ("batch", "virt") if number % 2 == 0 else ("virt", "batch")
        measured = {}
        for tool in order:
            measured[tool] = phase(tool, variables[tool], directory, check)
        rows.append((label, order[0], measured["batch"], measured["virt"]))
        print("  %-20s %s first: batch %.2f s, virt %.2f s" % (label, order[0], measured["batch"]["task"],
                                                               measured["virt"]["task"]), flush=True)
    return rows


def in_process(domains):
    """Seconds the manager of libvirt_rt_domains takes for a no-change run, without Ansible."""
    from ansible_collections.realtime.virt.plugins.module_utils._libvirt.batch import BatchManager
    params = {"uri": "qemu:///system", "domains": domains, "defaults": {}, "exclusive": False,
              "remove_unlisted": False, "owner": OWNER, "fail_fast": False}
    start = time.perf_counter()
    result = BatchManager(params).run()
    elapsed = time.perf_counter() - start
    if result["changed"] or result["failed"]:
        raise RuntimeError("the in-process run changed or failed: %s" % result.get("msg"))
    return elapsed


def growth(directory, sizes):
    """Part 2: per size, the converge, the median of REPEATS no-change re-runs and of IN_PROCESS in-process runs."""
    rows = []
    for count in sizes:
        domains = items("g", count)
        variables = write_vars(directory, "batch", domains)
        converge = phase("batch", variables, directory)
        reruns = [phase("batch", variables, directory) for dummy in range(REPEATS)]
        own = statistics.median(in_process(domains) for dummy in range(IN_PROCESS))
        task = statistics.median(r["task"] for r in reruns)
        whole = statistics.median(r["whole"] for r in reruns)
        rows.append({"count": count, "converge": converge, "reruns": reruns, "task": task, "whole": whole,
                     "own": own, "changed": max(r["changed"] for r in reruns)})
        print("  %d domains: re-run %.2f s (%s), in-process %.3f s" % (
            count, task, ", ".join("%.2f" % r["task"] for r in reruns), own), flush=True)
    return rows


def ratio(rows, label, key):
    chosen = [row for row in rows if row[0] == label]
    return sum(row[2][key] for row in chosen) / sum(row[3][key] for row in chosen)


def report(count, rows, grown):
    failures = []
    print()
    print("Part 1: %d domains, libvirt_rt_domains (batch, one task) vs community.libvirt.virt define (virt, a loop)" % count)
    print("| phase | first | batch task [s] | virt task [s] | batch/virt | batch whole [s] | virt whole [s] "
          "| batch changed | virt changed |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, first, batch, virt in rows:
        print("| %s | %s | %.2f | %.2f | %.3f | %.2f | %.2f | %d | %d |" % (
            label, first, batch["task"], virt["task"], batch["task"] / virt["task"], batch["whole"], virt["whole"],
            batch["changed"], virt["changed"]))
    print()
    targets = (("converge", TARGET_CONVERGE), ("re-run (no change)", TARGET_RERUN), ("check-mode re-run", TARGET_CHECK))
    for label, target in targets:
        task, whole = ratio(rows, label, "task"), ratio(rows, label, "whole")
        met = task <= target
        print("%s: batch/virt task time %.3f (target at most %.1f: %s); whole command %.3f"
              % (label, task, target, "met" if met else "NOT met", whole))
        if not met:
            failures.append("%s ratio %.3f above %.1f" % (label, task, target))
    for label, first, batch, virt in rows:
        if label == "converge":
            continue
        if batch["changed"] != 0:
            failures.append("%s (%s first): libvirt_rt_domains reported %d changes" % (label, first, batch["changed"]))
        if label.startswith("check") and virt["changed"] != count:
            failures.append("%s (%s first): virt reported %d changes, expected %d" % (label, first, virt["changed"], count))
    print("check mode: libvirt_rt_domains %s changes, virt %s" % (
        "/".join(str(r[2]["changed"]) for r in rows if r[0].startswith("check")),
        "/".join(str(r[3]["changed"]) for r in rows if r[0].startswith("check"))))

    print()
    print("Part 2: libvirt_rt_domains no-change re-run over defined (not started) domains, median of %d" % REPEATS)
    print("| domains | converge task [s] | re-run task [s] (runs) | task per domain [ms] | re-run whole [s] "
          "| in-process [s] | in-process per domain [ms] | changed |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in grown:
        print("| %d | %.2f | %.2f (%s) | %.2f | %.2f | %.3f | %.2f | %d |" % (
            row["count"], row["converge"]["task"], row["task"], ", ".join("%.2f" % r["task"] for r in row["reruns"]),
            1000.0 * row["task"] / row["count"], row["whole"], row["own"], 1000.0 * row["own"] / row["count"],
            row["changed"]))
    first, last = grown[0], grown[-1]
    print()
    for key, label in (("task", "task time"), ("own", "in-process time")):
        growth_ratio = (last[key] / last["count"]) / (first[key] / first["count"])
        slope = [(b[key] - a[key]) / (b["count"] - a["count"]) * 1000.0 for a, b in zip(grown, grown[1:])]
        met = growth_ratio <= TARGET_GROWTH
        print("%s per domain at %d / at %d: %.2f (target at most %.1f: %s); added time per added domain: %s ms"
              % (label, last["count"], first["count"], growth_ratio, TARGET_GROWTH, "met" if met else "NOT met",
                 ", ".join("%.2f" % s for s in slope)))
        if not met:
            failures.append("%s per domain at %d is %.2f times that at %d"
                            % (label, last["count"], growth_ratio, first["count"]))
    if any(row["changed"] for row in grown):
        failures.append("a no-change re-run of part 2 reported changes")
    return failures


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    sizes = tuple(int(size) for size in sys.argv[2].split(",")) if len(sys.argv) > 2 else GROWTH
    started = time.monotonic()
    cleanup()
    with tempfile.TemporaryDirectory() as directory:
        os.chmod(directory, 0o755)
        try:
            print("Part 1 (%d domains per tool)" % count, flush=True)
            rows = compare(directory, count)
            cleanup()
            print("Part 2", flush=True)
            grown = growth(directory, sizes)
        finally:
            cleanup()
    failures = report(count, rows, grown)
    print()
    print("bench_libvirt_rt_domains: %.0f s in all; %s" % (
        time.monotonic() - started, "every target met" if not failures else "MISSED: " + "; ".join(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
