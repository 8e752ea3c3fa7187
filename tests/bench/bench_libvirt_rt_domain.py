# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmark: realtime.virt.libvirt_rt_domain against community.libvirt.virt define.

Both tools define the same 50 real-time domains (the XML given to ``virt``
is this module's own rendering of the same options), side by side in one
run, interleaved phase by phase, the tool that goes first alternating
from one phase to the next:

1. converge: the domains do not exist yet;
2. re-run: nothing has changed (idempotence cost);
3. check mode re-run: the changed count must be 0 for this module.

Prints wall times per phase and tool, the ratios rt/virt and the changed
counts.  Target: the no-change re-run is at least as fast as ``virt`` and
check mode reports 0 changes.  Needs a running libvirtd (qemu:///system)
and root; removes every domain it defined.  Run with
``python3 tests/bench/bench_libvirt_rt_domain.py [count]``.
"""

from __future__ import absolute_import, division, print_function

import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, ".cache", "collections"))
PREFIX = "rtv-bench"
OPTIONS = {
    "domain_type": "qemu", "memory_mib": 64, "vcpus": 2,
    "cpu": {"mode": "maximum", "pinning": [{"vcpu": 0, "cpuset": "0"}, {"vcpu": 1, "cpuset": "1"}], "emulator_cpuset": "0"},
    "realtime": {"mask": "0"}, "memory": {"locked": False},
    "rng": {"rate": {"period": 1000, "bytes": 1024}, "backend": "/dev/urandom"},
}


def write_virt_xml(directory, count):
    from ansible_collections.realtime.virt.plugins.module_utils._libvirt.render import render
    from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import to_text
    from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import build_spec
    for index in range(count):
        name = "%s-virt-%d" % (PREFIX, index)
        params = dict(OPTIONS, name=name)
        with open(os.path.join(directory, name + ".xml"), "w") as handle:
            handle.write(to_text(render(build_spec(params, {}))))


def phase(tool, count, tmp, check=False):
    out = os.path.join(tmp, "changed-%s" % tool)
    cmd = [os.path.join(TOP, ".venv", "bin", "ansible-playbook"), os.path.join(HERE, "libvirt_rt_domain_phase.yml"),
           "-e", "bench_tool=%s bench_count=%d bench_prefix=%s bench_xml_dir=%s bench_out=%s" % (tool, count, PREFIX, tmp, out)]
    if check:
        cmd.append("--check")
    start = time.monotonic()
    subprocess.run(cmd, cwd=TOP, check=True, stdout=subprocess.DEVNULL)
    elapsed = time.monotonic() - start
    changed = None
    if os.path.exists(out):
        with open(out) as handle:
            changed = int(handle.read().strip() or 0)
        os.unlink(out)
    return elapsed, changed


def cleanup(count):
    for tool in ("rt", "virt"):
        for index in range(count):
            subprocess.run(["virsh", "-c", "qemu:///system", "undefine", "%s-%s-%d" % (PREFIX, tool, index)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    cleanup(count)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        write_virt_xml(tmp, count)
        try:
            phases = (("converge (fresh)", False), ("re-run (no change)", False), ("check mode re-run", True))
            for number, (label, check) in enumerate(phases):
                # Alternate which tool goes first, so neither always runs on a warmer libvirtd.
                order = ("rt", "virt") if number % 2 == 0 else ("virt", "rt")
                measured = dict((tool, phase(tool, count, tmp, check)) for tool in order)
                rows.append((label + " [%s first]" % order[0], measured["rt"][0], measured["virt"][0],
                             measured["rt"][1], measured["virt"][1]))
        finally:
            cleanup(count)
    print("libvirt_rt_domain vs community.libvirt.virt define, %d domains, one run" % count)
    print("%-32s %10s %10s %8s %12s %12s" % ("phase", "rt [s]", "virt [s]", "rt/virt", "rt changed", "virt changed"))
    for label, rt_time, virt_time, rt_changed, virt_changed in rows:
        print("%-32s %10.2f %10.2f %8.2f %12s %12s"
              % (label, rt_time, virt_time, rt_time / virt_time, rt_changed, virt_changed))
    rerun = rows[1]
    check = rows[2]
    ok = rerun[1] <= rerun[2] * 1.05 and check[3] == 0
    print("target (re-run no slower than virt within 5%%, check mode 0 changes): %s" % ("met" if ok else "NOT met"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
