# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmark: the fleet page (rt_validate_html) at 50, 200 and 500 hosts.

One host report is built the way the rt_validate role builds it, from the
cyclictest and oslat outputs of tests/unit/fixtures/cyclictest (host
isolated CPUs, oslat, the probe guest untuned and tuned, one inventory
guest: 5 measurements, 387 non-empty buckets), judged by the collection's
own filters (rt_validate_latency_check, rt_validate_report) with
rt_validate_max_latency_us 10000 (a test machine's loose threshold). It is
copied to N hosts, node-0000 onwards, varied:

- every host's latencies shifted by (host number mod 17) us;
- a few hosts fail one check (a domain's vCPU unpinned): max(1, N/10), at
  most 5, the later ones by name; a few warn (tuned-adm verify failed and
  accepted): max(1, N/10), at most 10;
- a history of 5 previous runs (rt_validate_history, keep 20) in which the
  failing hosts failed already, and one passing host made worse in this
  run: its guest's max latency 4x the previous run's (the page must list it
  under "Worse since the previous run" and show it first among the passing
  hosts).

The page is rendered through the filter as the role calls it: the
expression of roles/rt_validate/tasks/html.yml, templated by ansible-core's
Templar (lazy containers and all), in a fresh Python process per render.
The page is written to a file, its size measured, and headless chromium
draws it (window 1280x1600, as tests/report/screenshot.py does). The
screenshot is read back with Pillow: it must show the fleet summary's fail,
warn and pass colours and the first failing host's histogram bars (its
section, open, follows the summary). Chromium's time is the whole process,
start-up included, the median of 3 draws (the machine may be shared); a
blank page's time and the load average are printed beside it. The page is
read back with lxml too: hosts failing first, then warning, then passing,
the summary's counts, the worse host listed and first among the passing,
only the failing hosts' sections open, no script.

Targets at 500 hosts (the exit status is 1 when one is missed): the page at
most 5 MB, rendered in at most 3 s, drawn in at most 3 s (the top of the
page). With --before REV the same fleet is also rendered with the
collection as it was at git revision REV (its filter, without a history)
and drawn, side by side in the same run.

    .venv/bin/python tests/bench/bench_fleet_page.py                 # N = 50, 200, 500
    .venv/bin/python tests/bench/bench_fleet_page.py --before HEAD   # and the page of HEAD
    .venv/bin/python tests/bench/bench_fleet_page.py --hosts 5       # the small form of make test
"""

from __future__ import absolute_import, division, print_function

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
COLLECTIONS = os.path.join(TOP, ".cache", "collections")
FIXTURES = os.path.join(TOP, "tests", "unit", "fixtures", "cyclictest")
sys.path.insert(0, COLLECTIONS)

THRESHOLD_US = 10000
HISTORY_RUNS = 5
DRAWS = 3
WORSE_FACTOR = 4
TARGET_BYTES = 5 * 1000 * 1000
TARGET_RENDER_S = 3.0
TARGET_DRAW_S = 3.0
TARGET_HOSTS = 500
WINDOW = (1280, 1600)
# The page's colours (plugins/module_utils/_validate/svg.py): the verdicts and the first series of bars.
COLOURS = {"fail": (0xB7, 0x1C, 0x1C), "warn": (0xB2, 0x6A, 0x00), "pass": (0x1E, 0x7D, 0x32),
           "bar": (0x1F, 0x6F, 0xB4)}
# The role's expressions (roles/rt_validate/tasks/html.yml): the hosts' JSON reports as the role fetched
# them to the report directory, read back as text; history.json under the report root.
HISTORY_EXPRESSION = ("{{ lookup('ansible.builtin.file', history_file) | realtime.virt.rt_validate_history("
                      "query('ansible.builtin.file', *report_files), run=run, time=generated, keep=20) | to_json }}")
EXPRESSION = ("{{ query('ansible.builtin.file', *report_files) | realtime.virt.rt_validate_html(generated=generated, "
              "history=lookup('ansible.builtin.file', history_file), regression_factor=1.5) }}")
# The role before this change: the reports out of hostvars, no history.
EXPRESSION_BEFORE = "{{ reports | realtime.virt.rt_validate_html(generated=generated) }}"


def read(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def base_measurements():
    """(subject, kind, parsed run) of one host, from the fixtures, in the role's order."""
    from ansible_collections.realtime.virt.plugins.module_utils._validate.cyclictest import parse_cyclictest, parse_oslat

    host = parse_cyclictest(read("host-2threads-json.stdout"))
    guest = parse_cyclictest(read("host-2threads.txt"))
    return [
        ("host isolated CPUs 2-3", "host", host),
        ("host isolated CPUs 2-3 (oslat)", "host-oslat", parse_oslat(read("oslat-cpu1.json"))),
        ("probe guest rtv-probe untuned", "probe-baseline", shifted(host, 20)),
        ("probe guest rtv-probe", "probe", parse_cyclictest(read("probe-serial.log"))),
        ("guest vm1 CPUs 1-2", "guest", guest),
    ]


def shifted(parsed, by, factor=1):
    """A parsed run with every latency moved by ``by`` us (and the max multiplied by ``factor``)."""
    out = dict(parsed)
    out["histogram"] = [[latency + by, count] for latency, count in parsed["histogram"]]
    out["max_us"] = parsed["max_us"] * factor + by
    out["min_us"] = parsed["min_us"] + by
    return out


DOMAIN_CHECKS = [
    ("real-time vCPUs pinned", "one host CPU each (vCPUs 0-1)", "vCPU 0 on 2, vCPU 1 on 3"),
    ("vCPU 0 thread scheduling", "SCHED_FIFO priority 1", "SCHED_FIFO priority 1 (tid 30505, CPUs 2)"),
    ("vCPU 0 thread affinity", "2", "2"),
    ("vCPU 1 thread scheduling", "SCHED_FIFO priority 1", "SCHED_FIFO priority 1 (tid 30506, CPUs 3)"),
    ("vCPU 1 thread affinity", "3", "3"),
    ("emulator threads pinned", "CPUs 0 (<emulatorpin>)", "3 threads on CPUs 0"),
    ("memory on hugepages", "2048 KiB pages in use by qemu", "1048576 KiB hugetlb mapped (smaps_rollup)"),
]
HOST_CHECKS = [
    ("isolated CPUs", "CPU isolation", "no unexpected interrupts or threads on 2-3", "none"),
    ("host", "transparent hugepages", "one of never, madvise", "enabled: madvise"),
    ("host", "KSM", "run in 0, 2", "/sys/kernel/mm/ksm/run: 0"),
    ("host", "tuned-adm verify", "tuned-adm verify succeeds", "Verification succeeded"),
    ("applied settings", "sysctl kernel.sched_rt_runtime_us", "-1", "-1"),
    ("applied settings", "kernel arguments", "rt_host's arguments in /proc/cmdline", "all 6 present"),
]


def host_report(number, measurements, fail=False, warn=False, worse=False):
    """One host's JSON report, as rt_validate writes it."""
    from ansible_collections.realtime.virt.plugins.filter.rt_validate import rt_validate_latency_check, rt_validate_report
    from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import check

    name = "node-%04d" % number
    checks = [check("domain vm1", what, expected, observed, "pass") for what, expected, observed in DOMAIN_CHECKS]
    if fail:
        checks[0] = check("domain vm1", DOMAIN_CHECKS[0][0], DOMAIN_CHECKS[0][1], "vCPU 0 on 2, vCPU 1 unpinned",
                          "fail", "domain vm1: real-time vCPU(s) 1 not pinned")
    for subject, what, expected, observed in HOST_CHECKS:
        status, message = "pass", ""
        if warn and what == "tuned-adm verify":
            status, observed, message = "fail", "Verification failed", "host: tuned-adm verify failed"
        checks.append(check(subject, what, expected, observed, status, message))
    kept = []
    for subject, kind, parsed in measurements:
        run = shifted(parsed, number % 17, WORSE_FACTOR if worse and kind == "guest" else 1)
        status = "baseline"
        if kind != "probe-baseline":
            item = rt_validate_latency_check(run, subject, threshold_us=THRESHOLD_US,
                                             tool="oslat" if kind == "host-oslat" else "cyclictest")
            checks.append(item)
            status = item["status"]
        kept.append({"subject": subject, "kind": kind, "status": status, "threshold_us": THRESHOLD_US,
                     "cyclictest": run})
    report = rt_validate_report(checks, name, accept=["tuned-adm verify"] if warn else None)
    report["measurements"] = kept
    return report


def fleet(hosts, history_runs=HISTORY_RUNS):
    """(reports of this run, history before it, the numbers of the failing, warning and worse hosts)."""
    from ansible_collections.realtime.virt.plugins.module_utils._validate.history import update_history

    measurements = base_measurements()
    count_fail, count_warn = min(5, max(1, hosts // 10)), min(10, max(1, hosts // 10))
    failing = [hosts - 1 - k * (hosts // count_fail) for k in range(count_fail)]
    warning = [n for n in range(hosts // count_warn // 2, hosts, max(1, hosts // count_warn)) if n not in failing]
    warning = warning[:count_warn]
    worse = next(n for n in range(1, hosts) if n not in failing and n not in warning) if hosts > 1 else 0
    history = {}
    for run in range(history_runs):
        before = [host_report(n, measurements, fail=n in failing, warn=n in warning) for n in range(hosts)]
        history = update_history(history, before, "20261201T%02d0000Z" % run, "2026-12-01 %02d:00:00 UTC" % run)
    reports = [host_report(n, measurements, fail=n in failing, warn=n in warning, worse=n == worse)
               for n in range(hosts)]
    return reports, history, sorted(failing), warning, worse


def collection_at(revision, where):
    """A collections path holding realtime.virt as it was at git ``revision`` (plugins/ only)."""
    target = os.path.join(where, "ansible_collections", "realtime", "virt")
    os.makedirs(target)
    archive = subprocess.run(["git", "-C", TOP, "archive", revision, "plugins", "galaxy.yml", "meta"],
                             stdout=subprocess.PIPE, check=True).stdout
    subprocess.run(["tar", "-x", "-C", target], input=archive, check=True)
    return where


def worker(args):
    """In a fresh process: template the role's expressions over the fleet's files, write the page, print the times."""
    from ansible.parsing.dataloader import DataLoader
    from ansible.plugins.loader import init_plugin_loader
    from ansible.template import Templar, trust_as_template

    init_plugin_loader([args.collections])
    with open(args.fleet) as handle:
        fleet_files = json.load(handle)
    variables = {"generated": "2026-12-07 12:00:00 UTC", "run": "20261207T120000Z",
                 "report_files": fleet_files["report_files"], "history_file": fleet_files["history_file"]}
    times = {}
    if args.old_filter:
        # as the role called it before: the report documents out of hostvars
        variables["reports"] = [json.load(open(path)) for path in fleet_files["report_files"]]
    else:
        start = time.perf_counter()
        text = Templar(loader=DataLoader(), variables=variables).template(trust_as_template(HISTORY_EXPRESSION))
        with open(fleet_files["history_file"], "w") as handle:
            handle.write(text)
        times["history_s"] = time.perf_counter() - start
    templar = Templar(loader=DataLoader(), variables=variables)
    start = time.perf_counter()
    page = templar.template(trust_as_template(EXPRESSION_BEFORE if args.old_filter else EXPRESSION))
    times["render_s"] = time.perf_counter() - start
    with open(args.out, "w") as handle:
        handle.write(page)
    print(json.dumps(times))
    return 0


def render(fleet_file, out, collections, before=False):
    argv = [sys.executable, os.path.abspath(__file__), "--worker", "--fleet", fleet_file, "--out", out,
            "--collections", collections] + (["--old-filter"] if before else [])
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections, PYTHONPATH=collections)
    run = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env,
                         check=False)
    if run.returncode != 0:
        raise SystemExit("bench_fleet_page: the render failed:\n%s" % run.stderr[-3000:])
    return json.loads(run.stdout.strip().splitlines()[-1])


def draw(page, png):
    """Seconds chromium takes to draw ``page`` into ``png``, and {colour name: pixels near it}."""
    from PIL import Image

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if os.path.exists(png):
        os.unlink(png)
    argv = [browser, "--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--window-size=%d,%d" % WINDOW, "--screenshot=%s" % png, "file://" + os.path.abspath(page)]
    if os.geteuid() == 0:
        argv.insert(1, "--no-sandbox")  # chromium refuses to run as root with its sandbox
    start = time.perf_counter()
    run = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300, check=False)
    seconds = time.perf_counter() - start
    if run.returncode != 0 or not os.path.exists(png):
        raise SystemExit("bench_fleet_page: chromium exited with %d and drew no %s:\n%s"
                         % (run.returncode, png, run.stdout.decode(errors="replace")[-2000:]))
    image = Image.open(png).convert("RGB")
    colours = image.getcolors(WINDOW[0] * WINDOW[1])
    found = dict((name, sum(n for n, c in colours if all(abs(a - b) <= 24 for a, b in zip(c, rgb))))
                 for name, rgb in COLOURS.items())
    return seconds, found


def shown(page):
    """What the page lists, read back with lxml: hosts in order, the summary's counts, what got worse."""
    import lxml.html

    root = lxml.html.parse(page).getroot()
    summary = root.xpath('//p[@class="summary"]')
    return {"rows": root.xpath('//table[@class="fleet"]/tbody/tr/@data-host'),
            "verdicts": root.xpath('//table[@class="fleet"]/tbody/tr/@data-verdict'),
            "counts": dict((k, int(summary[0].get("data-" + k))) for k in ("fail", "warn", "pass")) if summary else {},
            "worse": root.xpath('//table[@class="regressions"]/tbody/tr/@data-host'),
            "open": root.xpath("//section[details[@open]]/@id"), "scripts": len(root.xpath("//script"))}


def write_fleet(hosts, work, history_runs):
    """The fleet's files as the role leaves them on the controller; returns what the checks need to know."""
    reports, history, failing, warning, worse = fleet(hosts, history_runs)
    root = os.path.join(work, "rt-reports-%d" % hosts)
    run_dir = os.path.join(root, "20261207T120000Z")
    os.makedirs(run_dir)
    paths = []
    for report in reports:
        paths.append(os.path.join(run_dir, report["host"] + ".json"))
        with open(paths[-1], "w") as handle:
            json.dump(report, handle, indent=4, sort_keys=True)  # to_nice_json, as the host wrote it
    history_file = os.path.join(root, "history.json")
    with open(history_file, "w") as handle:
        json.dump(history, handle)
    fleet_file = os.path.join(work, "fleet-%d.json" % hosts)
    with open(fleet_file, "w") as handle:
        json.dump({"report_files": paths, "history_file": history_file}, handle)
    return fleet_file, history_file, json.dumps(history), failing, warning, worse


def measure(hosts, work, before, history_runs):
    fleet_file, history_file, history_text, failing, warning, worse = write_fleet(hosts, work, history_runs)
    result = {"hosts": hosts}
    pages = ([("before", before, True)] if before else []) + [("after", COLLECTIONS, False)]
    for label, collections, old in pages:
        with open(history_file, "w") as handle:
            handle.write(history_text)  # each render starts from the history before this run
        page = os.path.join(work, "%s-%d.html" % (label, hosts))
        times = render(fleet_file, page, collections, before=old)
        drawn = sorted((draw(page, page + ".png") for _draw in range(DRAWS)), key=lambda pair: pair[0])
        seconds, colours = drawn[len(drawn) // 2]
        result[label] = dict(times, bytes=os.path.getsize(page), draw_s=seconds, colours=colours, page=page)
    after = result["after"]
    after["shown"] = shown(after["page"])
    with open(history_file) as handle:
        after["history_runs"] = max(len(runs) for runs in json.load(handle)["hosts"].values())
    expected_failing = ["node-%04d" % n for n in failing]
    problems = []
    rows, verdicts = after["shown"]["rows"], after["shown"]["verdicts"]
    if rows[:len(failing)] != expected_failing or verdicts != sorted(verdicts, key=["fail", "warn", "pass"].index):
        problems.append("hosts not failing first, then warning, then passing: %s" % rows[:len(failing) + 3])
    if after["shown"]["counts"] != {"fail": len(failing), "warn": len(warning), "pass": hosts - len(failing) - len(warning)}:
        problems.append("the summary counts %s" % after["shown"]["counts"])
    if hosts > 1 and after["shown"]["worse"] != ["node-%04d" % worse]:
        problems.append("what got worse lists %s, not node-%04d" % (after["shown"]["worse"], worse))
    if hosts > 1 and rows[len(failing) + len(warning)] != "node-%04d" % worse:
        problems.append("the worse host node-%04d is not first among the passing" % worse)
    # a page of at most 10 hosts opens every host's section, a larger one the failing hosts' only
    opened = ["host-" + name for name in (rows if hosts <= 10 else expected_failing)]
    if after["shown"]["open"] != opened or after["shown"]["scripts"]:
        problems.append("open sections %s, not %s; scripts %d"
                        % (after["shown"]["open"][:6], opened[:6], after["shown"]["scripts"]))
    if after["history_runs"] != min(history_runs + 1, 20):
        problems.append("history.json keeps %d runs of a host, not %d"
                        % (after["history_runs"], min(history_runs + 1, 20)))
    top = after["colours"]
    if min(top["fail"], top["warn"], top["pass"]) < 50:
        problems.append("the summary did not draw: fail/warn/pass pixels %d/%d/%d" % (top["fail"], top["warn"], top["pass"]))
    if top["bar"] < 100:
        problems.append("the first failing host's histogram did not draw: %d bar pixels" % top["bar"])
    result["problems"] = problems
    return result


def line(label, figures):
    return "%-7s %8.2f MB %9.2f s %8.2f s" % (label, figures["bytes"] / 1e6, figures["render_s"], figures["draw_s"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--hosts", type=int, action="append", help="fleet size (repeatable); default 50, 200, 500")
    parser.add_argument("--before", metavar="REV", help="also render and draw the page of git revision REV")
    parser.add_argument("--keep", metavar="DIR", help="keep the pages and screenshots in DIR")
    parser.add_argument("--history-runs", type=int, default=HISTORY_RUNS, metavar="K",
                        help="previous runs in the history (default %d; 19 fills the role's default of 20)"
                        % HISTORY_RUNS)
    parser.add_argument("--smoke", action="store_true",
                        help="the small form of make test: what the page shows is checked, its timing only reported")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--fleet", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--collections", help=argparse.SUPPRESS)
    parser.add_argument("--old-filter", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        print("bench_fleet_page: chromium is not installed (scripts/host-packages.sh installs it)", file=sys.stderr)
        return 1
    sizes = args.hosts or [50, 200, 500]
    work = args.keep or tempfile.mkdtemp(prefix="rtv-fleet-page-")
    if args.keep:
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
    try:
        before = collection_at(args.before, os.path.join(work, "before")) if args.before else None
        blank = os.path.join(work, "blank.html")
        with open(blank, "w") as handle:
            handle.write("<!DOCTYPE html><html><body></body></html>\n")
        floor = draw(blank, blank + ".png")[0]
        sample = host_report(0, base_measurements())
        buckets = sum(1 for m in sample["measurements"] for _latency, count in m["cyclictest"]["histogram"] if count)
        print("fleet page: %s hosts, %d measurements (%d non-empty buckets) and %d checks a host, %d previous runs "
              "in the history; chromium %dx%d (median of %d draws), a blank page draws in %.2f s; load average %s"
              % (", ".join(map(str, sizes)), len(sample["measurements"]), buckets, len(sample["checks"]),
                 args.history_runs, WINDOW[0], WINDOW[1], DRAWS, floor,
                 " ".join("%.2f" % load for load in os.getloadavg())))
        print("%-6s %-7s %11s %11s %10s  %s" % ("hosts", "page", "size", "render", "draw", "per host"))
        results, missed = [], []
        for hosts in sizes:
            result = measure(hosts, work, before, args.history_runs)
            results.append(result)
            for label in ("before", "after"):
                if label in result:
                    figures = result[label]
                    print("%-6d %s  %5.1f KB" % (hosts, line(label, figures), figures["bytes"] / 1e3 / hosts))
            after = result["after"]
            print("       after: history.json %.2f s; screenshot: summary fail/warn/pass %d/%d/%d pixels, the first "
                  "failing host's bars %d pixels; worse since the previous run: %s"
                  % (after["history_s"], after["colours"]["fail"], after["colours"]["warn"], after["colours"]["pass"],
                     after["colours"]["bar"], ", ".join(after["shown"]["worse"]) or "none"))
            missed.extend("%d hosts: %s" % (hosts, problem) for problem in result["problems"])
        largest = results[-1]["after"]
        scale = "" if results[-1]["hosts"] == TARGET_HOSTS else " (measured at %d hosts)" % results[-1]["hosts"]
        for what, value, target, unit in (("size", largest["bytes"] / 1e6, TARGET_BYTES / 1e6, "MB"),
                                          ("render", largest["render_s"], TARGET_RENDER_S, "s"),
                                          ("draw", largest["draw_s"], TARGET_DRAW_S, "s")):
            met = value <= target
            print("target %s <= %g %s at %d hosts%s: %.2f %s, %s"
                  % (what, target, unit, TARGET_HOSTS, scale, value, unit, "met" if met else "NOT met"))
            if not met and not args.smoke:
                missed.append("%s %.2f %s above %g" % (what, value, unit, target))
        for problem in missed:
            print("MISSED: " + problem)
        return 1 if missed else 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
