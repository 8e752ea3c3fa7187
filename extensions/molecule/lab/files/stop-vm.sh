#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Stop the lab VM a pid file names, and remove the pid file.
#
#   stop-vm.sh PIDFILE
#
# Only the process of that pid file, and only while its command line is the
# lab's QEMU started with that very pid file (boot-vm.sh): a pid the kernel
# gave to another process since is left alone. SIGTERM, then SIGKILL after
# 10 s. Prints "stopped qemu <pid>" when it stopped one. destroy.yml uses it
# for its run's VM, scripts/test.sh for the VMs killed runs left.
set -uo pipefail
pidfile=$(realpath -m "${1:?usage: stop-vm.sh PIDFILE}")
[ -f "$pidfile" ] || exit 0
pid=$(cat "$pidfile")
if [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null |
        grep -q -- "-name realtime-virt-lab .*-pidfile $pidfile "; then
    kill "$pid"
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        kill -0 "$pid" 2>/dev/null || break
        sleep 1
    done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    echo "stopped qemu $pid"
fi
rm -f "$pidfile"
