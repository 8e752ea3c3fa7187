#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# The stages of `make test` after its set-up, with the lab scenario beside
# them. The lab VM is a QEMU process of its own (not a libvirt domain) that
# Ansible reaches over SSH: nothing else the tests do reads or changes it,
# and it changes nothing on this host. It spends most of its time waiting
# for TCG, so it runs in the background while the other stages run in the
# foreground (docs/testing.md, "Duration").
#
# Order:
#   1. the lab image is built (or the cached one reused) in the background,
#      then the lab scenario starts there;
#   2. lint, imports, sanity, units, matrix and build-check run meanwhile;
#   3. the integration targets wait for the image build to end: it mounts
#      loop devices, and some targets compare this host's mounts before and
#      after;
#   4. integration, then the localhost molecule scenarios;
#   5. wait for the lab and print its result, then the role-task coverage.
# The lab is the long pole and needs about one core; the foreground stages
# run at nice 5 (REALTIME_VIRT_FOREGROUND_NICE), so the lab's QEMU wins the
# moments both want the second core.
# A failed stage stops the run; the lab is then stopped and destroyed.
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
rm -f "$lab_out" "$image_rc"
fg_nice=${REALTIME_VIRT_FOREGROUND_NICE:-5}

stage() {
    echo "=== make $*"
    nice -n "$fg_nice" "$make" --no-print-directory "$@" || {
        echo "make test: stage '$*' failed" >&2
        exit 1
    }
}

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
trap stop_lab EXIT
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
echo "make test: the lab scenario runs in the background (output: $lab_out)"

stage lint imports sanity units matrix build-check

waited=0
while [ ! -s "$image_rc" ]; do
    if ! kill -0 "$lab_pid" 2>/dev/null; then
        break
    fi
    [ $((waited % 30)) -eq 0 ] && echo "make test: waiting for the lab image build ($waited s)"
    sleep 5
    waited=$((waited + 5))
done
if [ "$(cat "$image_rc" 2>/dev/null)" != 0 ]; then
    echo "make test: the lab image build failed:" >&2
    tail -n 40 "$lab_out" >&2
    tail -n 40 "$cache/failed-build.log" >&2 2>/dev/null
    exit 1
fi

stage integration
echo "=== scripts/molecule.sh --skip lab"
nice -n "$fg_nice" scripts/molecule.sh --skip lab || {
    echo "make test: stage 'molecule' failed" >&2
    exit 1
}

echo "=== the lab scenario (background)"
start=$(date +%s)
wait "$lab_pid"
lab_rc=$?
lab_pid=
echo "make test: waited $(($(date +%s) - start)) s for the lab"
cat "$lab_out"
if [ "$lab_rc" -ne 0 ]; then
    echo "make test: stage 'lab' failed" >&2
    exit 1
fi

stage coverage
