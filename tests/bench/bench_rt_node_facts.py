# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmark: the cost of realtime.virt.rt_node_facts against ansible.builtin.setup.

Both are measured side by side in one play, in interleaved rounds, each
minus an ansible.builtin.ping baseline (the cost every module pays to be
shipped and started).  Prints per-call costs and the ratio; the target is
rt_node_facts at most 10% of setup.  It also times the module's own
gathering in-process over the 512-CPU, 8-node fixture tree (target: under
150 ms).  Run with `make bench`.
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
sys.path.insert(0, os.path.join(TOP, "tests", "unit", "fixtures"))


def ansible_side_by_side(rounds, calls):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "times.json")
        cmd = [
            "ansible-playbook", os.path.join(HERE, "rt_node_facts_vs_setup.yml"),
            "-e", "bench_rounds=%d bench_calls=%d bench_out=%s" % (rounds, calls, out),
        ]
        subprocess.run(cmd, cwd=TOP, check=True, stdout=subprocess.DEVNULL)
        with open(out) as handle:
            times = json.load(handle)
    ping, setup, facts = [], [], []
    for t0, t1, t2, t3 in times:
        t0, t1, t2, t3 = float(t0), float(t1), float(t2), float(t3)
        ping.append((t1 - t0) / calls)
        setup.append((t2 - t1) / calls)
        facts.append((t3 - t2) / calls)
    return ping, setup, facts


def in_process_512(repeat):
    from rt_node_trees import build_shape
    from ansible_collections.realtime.virt.plugins.module_utils._node.gather import gather_node_facts

    with tempfile.TemporaryDirectory() as root:
        build_shape(root, "big_512")
        samples = []
        for dummy in range(repeat):
            start = time.perf_counter()
            gather_node_facts(root)
            samples.append(time.perf_counter() - start)
    return samples


def main():
    rounds = int(os.environ.get("BENCH_ROUNDS", "5"))
    calls = int(os.environ.get("BENCH_CALLS", "4"))
    print("rt_node_facts vs setup: %d interleaved rounds of %d calls each, localhost, one play" % (rounds, calls))
    ping, setup, facts = ansible_side_by_side(rounds, calls)
    base = statistics.median(ping)
    setup_cost = statistics.median(setup) - base
    facts_cost = statistics.median(facts) - base
    print("  per call (median): ping %.1f ms, setup %.1f ms, rt_node_facts %.1f ms"
          % (base * 1e3, statistics.median(setup) * 1e3, statistics.median(facts) * 1e3))
    print("  minus the ping baseline: setup %.1f ms, rt_node_facts %.1f ms" % (setup_cost * 1e3, facts_cost * 1e3))
    ratio = facts_cost / setup_cost if setup_cost > 0 else float("nan")
    print("  ratio rt_node_facts / setup = %.3f (target <= 0.10): %s" % (ratio, "met" if ratio <= 0.10 else "NOT met"))

    samples = in_process_512(int(os.environ.get("BENCH_REPEAT", "20")))
    fast = statistics.median(samples) < 0.150
    print("in-process gathering on the 512-CPU 8-node fixture, %d runs: median %.1f ms, max %.1f ms (target < 150 ms): %s"
          % (len(samples), statistics.median(samples) * 1e3, max(samples) * 1e3, "met" if fast else "NOT met"))
    return 0 if ratio <= 0.10 and fast else 1


if __name__ == "__main__":
    sys.exit(main())
