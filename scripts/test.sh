#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# The stages of `make test` after its set-up, with the lab scenario beside
# them. The lab VM is a QEMU process of its own (not a libvirt domain) that
# Ansible reaches over SSH: nothing else the tests do reads or changes it,
# and it changes nothing on this host. It spends most of its time waiting
# for TCG, so it runs in the background while the other stages run in the
# foreground (docs/testing.md, "The budget").
#
# Order:
#   0. a lab VM that an earlier, killed run left on this machine is stopped
#      (found through the pid files the lab's boot-vm.sh registers in the
#      image cache), and the load average is printed;
#   1. the set-up (make setup), then the lab image is built (or the cached
#      one reused) in the background and the lab scenario starts there;
#      make demo-clean, lint, imports, sanity, units, matrix, build-check
#      and docs run meanwhile;
#   2. the integration targets wait for the image build to end: it mounts
#      loop devices, and some targets compare this host's mounts before and
#      after;
#   3. integration, then the localhost molecule scenarios;
#   4. wait for the lab and print its result, then the role-task coverage.
# The lab is the long pole and needs about one core; the foreground stages
# run at nice 5 (REALTIME_VIRT_FOREGROUND_NICE), so the lab's QEMU wins the
# moments both want the second core.
# A failed stage stops the run; the lab is then stopped and destroyed.
# However the run ends, it prints a table of each stage's wall time and of
# the lab's steps (scripts/lab_steps.py), the budget docs/testing.md keeps.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
export PATH="$top/.venv/bin:$PATH"
make=${MAKE:-make}

out="$top/tests/output/molecule"
mkdir -p "$out"
lab_out="$out/lab.out"
image_rc="$out/lab-image.rc"
# the image cache of extensions/molecule/lab/vars/lab.yml, kept per machine
cache=${REALTIME_VIRT_LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/realtime-virt/lab}
lab_steps="$out/lab-steps.jsonl"
rm -f "$lab_out" "$image_rc" "$lab_steps"
fg_nice=${REALTIME_VIRT_FOREGROUND_NICE:-5}
run_start=$(date +%s)

# The stage table: a name and its wall time per stage, printed at the end.
names=()
seconds=()
record() {
    names+=("$1")
    seconds+=("$2")
}
table() {
    local i total
    total=$(($(date +%s) - run_start))
    echo "=== make test: wall time per stage (the lab ran beside the foreground)"
    printf '%-40s %8s\n' stage seconds
    for i in "${!names[@]}"; do
        printf '%-40s %8s\n' "${names[$i]}" "${seconds[$i]}"
    done
    printf '%-40s %8s\n' "scripts/test.sh in all" "$total"
    python3 scripts/lab_steps.py "$lab_steps"
}

stage() {
    local start
    echo "=== make $*"
    start=$(date +%s)
    nice -n "$fg_nice" "$make" --no-print-directory "$@" || {
        record "$*" "$(($(date +%s) - start)) (failed)"
        echo "make test: stage '$*' failed" >&2
        exit 1
    }
    record "$*" "$(($(date +%s) - start))"
}

# A lab VM that a killed run left (its molecule never reached destroy) holds
# a core under TCG and slows everything here. boot-vm.sh registers each VM's
# pid file in the image cache; stop the VMs those name, and only when the
# process is still the lab's QEMU started with that very pid file.
stop_stale_vms() {
    local link
    for link in "$cache"/running/*; do
        [ -L "$link" ] || continue
        extensions/molecule/lab/files/stop-vm.sh "$(readlink "$link")" |
            sed 's/^stopped qemu/make test: stopped the lab VM an earlier run left, qemu/'
        rm -f "$link"
    done
}
stop_stale_vms
echo "make test: load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"

stage setup

lab_pid=
stop_lab() {
    if [ -n "$lab_pid" ] && kill -0 "$lab_pid" 2>/dev/null; then
        echo "make test: stopping the lab scenario (it runs in its own process group)" >&2
        kill -- "-$lab_pid" 2>/dev/null
        wait "$lab_pid" 2>/dev/null
        # molecule did not get to its destroy; the VM is a daemonised qemu
        scripts/molecule.sh --destroy lab >/dev/null 2>&1 || true
    fi
}
finish() {
    stop_lab
    table
}
trap finish EXIT
trap 'exit 130' INT TERM

# setsid: a process group of its own, so stop_lab reaches every process.
# The inner script expands its own positional parameters:
# shellcheck disable=SC2016
setsid bash -c '
    extensions/molecule/lab/files/build-image.sh "$1" >/dev/null
    rc=$?
    echo "$rc" >"$2"
    [ "$rc" -eq 0 ] || exit "$rc"
    scripts/molecule.sh lab
' lab "$cache" "$image_rc" >"$lab_out" 2>&1 &
lab_pid=$!
lab_start=$(date +%s)
echo "make test: the lab scenario runs in the background (output: $lab_out)"

stage demo-clean
for name in lint imports sanity units bench-smoke matrix build-check docs; do
    stage "$name"
done

waited=0
while [ ! -s "$image_rc" ]; do
    if ! kill -0 "$lab_pid" 2>/dev/null; then
        break
    fi
    [ $((waited % 30)) -eq 0 ] && echo "make test: waiting for the lab image build ($waited s)"
    sleep 5
    waited=$((waited + 5))
done
record "wait for the lab image" "$waited"
if [ "$(cat "$image_rc" 2>/dev/null)" != 0 ]; then
    echo "make test: the lab image build failed:" >&2
    tail -n 40 "$lab_out" >&2
    tail -n 40 "$cache/failed-build.log" >&2 2>/dev/null
    exit 1
fi

stage integration
echo "=== scripts/molecule.sh --skip lab"
start=$(date +%s)
nice -n "$fg_nice" scripts/molecule.sh --skip lab || {
    record "molecule (all but the lab)" "$(($(date +%s) - start)) (failed)"
    echo "make test: stage 'molecule' failed" >&2
    exit 1
}
record "molecule (all but the lab)" "$(($(date +%s) - start))"

echo "=== the lab scenario (background)"
start=$(date +%s)
wait "$lab_pid"
lab_rc=$?
lab_pid=
echo "make test: waited $(($(date +%s) - start)) s for the lab"
record "wait for the lab" "$(($(date +%s) - start))"
record "lab, in the background (image and scenario)" "$(($(date +%s) - lab_start))"
cat "$lab_out"
if [ "$lab_rc" -ne 0 ]; then
    echo "make test: stage 'lab' failed" >&2
    exit 1
fi

stage coverage
