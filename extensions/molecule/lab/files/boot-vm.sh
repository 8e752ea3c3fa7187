#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Boot the lab VM from a throwaway overlay of the cached image and wait for SSH.
#
#   boot-vm.sh IMAGE_DIR RUN_DIR [PORT]
#
# IMAGE_DIR is what build-image.sh printed. RUN_DIR receives disk.qcow2 (the
# overlay; the cached disk.raw is never written), nvme.raw (the NVMe
# namespace), console.log (the serial console), qemu.pid and port. PORT is
# the first loopback port tried for SSH (default 2222); the next free one is
# used when it is taken. The pid file is registered in IMAGE_DIR's parent
# (the per-machine image cache) as running/<hash of RUN_DIR>, a symbolic link
# to it, so that make test can stop a VM a killed run left in any clone
# (scripts/test.sh). Progress lines "lab vm: [<seconds>s] ..." go to
# stdout; the last line is "port=<port>".
#
# The machine: q35 with an emulated IOMMU (interrupt remapping), -cpu max
# (pdpe1gb, so 1G pages), 2 vCPUs, 3 GiB, TCG, a virtio disk, user
# networking with SSH forwarded from 127.0.0.1, and QEMU's NVMe controller
# with SR-IOV (4 VFs), a PCI physical function whose VFs bind to vfio-pci.
# The controller sits at a fixed address, 0000:00:10.0 (its VFs follow as
# functions 1-4 of that slot), so the lab's inventory can name it in
# sriov_pfs as a fleet's inventory names its cards (vars/main.yml).
# max-ram-below-4g=1G: q35 otherwise maps 2 GiB below 4G and 1 GiB above,
# and the kernel's early allocations (made top-down) leave no free,
# aligned 1 GiB range, so "hugepagesz=1G hugepages=1" reserves nothing
# ("HugeTLB: allocating 1 of page size 1.00 GiB failed"). With 1 GiB below
# and 2 GiB above 4G, the range 4-5 GiB stays free for the boot-time page.
set -euo pipefail

image_dir=$(realpath "${1:?usage: boot-vm.sh IMAGE_DIR RUN_DIR [PORT]}")
run_dir=$(realpath -m "${2:?usage: boot-vm.sh IMAGE_DIR RUN_DIR [PORT]}")
port=${3:-2222}
timeout=${REALTIME_VIRT_LAB_BOOT_TIMEOUT:-300}
start=$(date +%s)

say() { echo "lab vm: [$(( $(date +%s) - start ))s] $*"; }

port_taken() { [ -n "$(ss -Hltn "sport = :$1")" ]; }

mkdir -p "$run_dir"
if [ -f "$run_dir/qemu.pid" ] && kill -0 "$(cat "$run_dir/qemu.pid")" 2>/dev/null; then
    echo "lab vm: a VM of this run already runs (pid $(cat "$run_dir/qemu.pid")); destroy it first" >&2
    exit 1
fi
while port_taken "$port"; do
    port=$((port + 1))
done
echo "$port" >"$run_dir/port"

rm -f "$run_dir/disk.qcow2" "$run_dir/console.log"
qemu-img create -q -f qcow2 -F raw -b "$image_dir/disk.raw" "$run_dir/disk.qcow2"
truncate -s 256M "$run_dir/nvme.raw"

registry="$(dirname "$image_dir")/running"
mkdir -p "$registry"
ln -sfn "$run_dir/qemu.pid" "$registry/$(printf '%s' "$run_dir" | sha256sum | cut -c1-16)"

say "booting (TCG) with SSH on 127.0.0.1:$port; serial console in $run_dir/console.log"
qemu-system-x86_64 \
    -name realtime-virt-lab -accel tcg \
    -machine q35,kernel-irqchip=split,max-ram-below-4g=1G -cpu max -m 3072 -smp 2 \
    -device intel-iommu,intremap=on,caching-mode=on \
    -drive "file=$run_dir/disk.qcow2,format=qcow2,if=virtio" \
    -nic "user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:$port-:22" \
    -device nvme-subsys,id=subsys0 \
    -drive "file=$run_dir/nvme.raw,if=none,id=nvm,format=raw" \
    -device nvme,bus=pcie.0,addr=0x10,serial=lab0001,subsys=subsys0,sriov_max_vfs=4,sriov_vq_flexible=8,sriov_vi_flexible=4,max_ioqpairs=12,msix_qsize=10 \
    -device nvme-ns,drive=nvm,nsid=1,shared=false \
    -display none -monitor none \
    -serial "file:$run_dir/console.log" \
    -pidfile "$run_dir/qemu.pid" -daemonize

ssh_ok() {
    ssh -q -o BatchMode=yes -o ConnectTimeout=5 -o StrictHostKeyChecking=no \
        -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \
        -i "$image_dir/id_ed25519" -p "$port" root@127.0.0.1 true </dev/null
}

while ! ssh_ok; do
    if ! kill -0 "$(cat "$run_dir/qemu.pid")" 2>/dev/null; then
        echo "lab vm: qemu exited; last console lines:" >&2
        tail -n 20 "$run_dir/console.log" >&2 || true
        exit 1
    fi
    if [ $(( $(date +%s) - start )) -ge "$timeout" ]; then
        echo "lab vm: no SSH after ${timeout}s; last console lines:" >&2
        tail -n 20 "$run_dir/console.log" >&2 || true
        exit 1
    fi
    last=$(tail -n 1 "$run_dir/console.log" 2>/dev/null | tr -d '\r' | cut -c1-90 || true)
    say "waiting for SSH; console: ${last:-(nothing yet)}"
    sleep 5
done
say "SSH answers on 127.0.0.1:$port"
echo "port=$port"
