#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Build the lab VM's Debian 12 disk image, or reuse the cached one.
#
#   build-image.sh CACHE_DIR
#
# Prints the image directory (CACHE_DIR/debian12-<key>) on its last line; it
# holds disk.raw (never booted: runs use an overlay), id_ed25519 (the key root
# accepts) and build.log. <key> is a hash of this script and the ISO week,
# so editing the script builds a new image, as does a new week, and an
# unchanged one reuses the cache. Progress
# lines go to stderr as "lab image: [<seconds>s] ...".
#
# The Debian mirror is the one this machine's apt sources use (override with
# REALTIME_VIRT_LAB_MIRROR). Needs root, loop devices, debootstrap, sfdisk,
# partx, mkfs.ext4, grub-install (grub-pc-bin, grub2-common) and ssh-keygen.
set -euo pipefail

cache=${1:?usage: build-image.sh CACHE_DIR}
# The week is part of the key: roles install packages in the VM with the
# package lists of the image, which a mirror outdates at its point releases.
key=$( (cat "$0"; date -u +%G-W%V) | sha256sum | cut -c1-12)
image_dir="$cache/debian12-$key"
suite=bookworm
size=4G
packages=linux-image-amd64,grub-pc,openssh-server,python3,systemd-sysv,dbus,udev,ifupdown,isc-dhcp-client,iproute2,sudo,kmod
# What the roles expect on a host but do not install themselves (tuned,
# irqbalance; python3-apt, which Ansible's apt module needs in check mode,
# as Debian's standard and cloud installs have it), and what rt_validate
# would install (rt-tests: cyclictest); installing them here keeps apt's
# work under TCG out of every lab run. chrony: a host keeps its clock with
# a time daemon, which the ptp role must stop while ptp4l steers the clock
# and start again on its undo.
extra_packages=(python3-apt tuned irqbalance rt-tests chrony)
# What rt_domain installs (roles/rt_domain/vars/Debian.yml) with apt's
# recommends, about 370 packages that take apt over 10 minutes under TCG.
# They are installed here, then libvirt-daemon-system (the daemon's systemd
# units) and python3-libvirt are removed again: the lab VM then has no
# libvirt daemon that systemd knows of, as a fresh host, and rt_domain
# installs it there (the few packages that need it), then starts and
# enables it.
libvirt_packages=(qemu-system-x86 qemu-utils libvirt-daemon-system libvirt-clients python3-libvirt python3-lxml)
libvirt_left_out=(libvirt-daemon-system python3-libvirt)
start=$(date +%s)

say() { echo "lab image: [$(( $(date +%s) - start ))s] $*" >&2; }

mkdir -p "$cache"
# One build at a time per cache; a second caller waits, then reuses it.
exec 9>"$cache/.lock"
if ! flock -n 9; then
    say "another build holds $cache/.lock; waiting for it"
    flock 9
fi

if [ -f "$image_dir/disk.raw" ] && [ -f "$image_dir/id_ed25519" ]; then
    say "reusing the cached image $image_dir/disk.raw"
    echo "$image_dir"
    exit 0
fi

mirror_from_apt() {
    # First URI of a Debian (not security) repository in the apt sources.
    local uri
    uri=$(grep -hsE '^[[:space:]]*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)
    if [ -z "$uri" ]; then
        uri=$(grep -hsE '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
            | awk '{for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; exit}}' \
            | grep -E '/debian/?$' | head -n1 || true)
    fi
    echo "$uri"
}
mirror=${REALTIME_VIRT_LAB_MIRROR:-$(mirror_from_apt)}
if [ -z "$mirror" ]; then
    echo "lab image: no Debian mirror in /etc/apt/sources.list*; set REALTIME_VIRT_LAB_MIRROR" >&2
    exit 1
fi

work=$(mktemp -d "$cache/build.XXXXXX")
mnt="$work/mnt"
loop=""
cleanup() {
    local rc=$?
    if [ "$rc" -ne 0 ] && [ -s "${log:-}" ]; then
        cp "$log" "$cache/failed-build.log"
        echo "lab image: build failed (rc $rc); last lines of $cache/failed-build.log:" >&2
        tail -n 30 "$log" >&2
    fi
    for fs in dev/pts dev proc sys ""; do
        mountpoint -q "$mnt/$fs" 2>/dev/null && umount -l "$mnt/$fs"
    done
    if [ -n "$loop" ]; then
        partx -d "$loop" 2>/dev/null || true
        losetup -d "$loop" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
log="$work/build.log"

say "building a new image in $work (mirror $mirror, log $log)"
ssh-keygen -q -t ed25519 -N '' -C realtime-virt-lab -f "$work/id_ed25519"

truncate -s "$size" "$work/disk.raw"
echo 'type=83, bootable' | sfdisk -q "$work/disk.raw" >>"$log" 2>&1
loop=$(losetup -P -f --show "$work/disk.raw")
partx -a "$loop" 2>/dev/null || partx -u "$loop"
for _ in 1 2 3 4 5 6 7 8 9 10; do
    [ -b "${loop}p1" ] && break
    sleep 0.5
done
mkfs.ext4 -q -L root "${loop}p1"
mkdir -p "$mnt"
mount "${loop}p1" "$mnt"

say "debootstrap $suite (minbase + kernel, grub, sshd, python3, systemd; about 90 s)"
debootstrap --variant=minbase --include="$packages" "$suite" "$mnt" "$mirror" >>"$log" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
    sleep 10
    kill -0 "$pid" 2>/dev/null && say "debootstrap: $(tail -n1 "$log" | cut -c1-100)"
done
# A failed debootstrap ends the script; cleanup() shows the end of its log.
wait "$pid"

say "configuring the system"
echo lab >"$mnt/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 lab\n' >"$mnt/etc/hosts"
echo 'LABEL=root / ext4 errors=remount-ro 0 1' >"$mnt/etc/fstab"
printf 'auto lo\niface lo inet loopback\n\nauto eth0\niface eth0 inet dhcp\n' >"$mnt/etc/network/interfaces"
install -d -m 0700 "$mnt/root/.ssh"
install -m 0600 "$work/id_ed25519.pub" "$mnt/root/.ssh/authorized_keys"
# Short menu wait, kernel messages on the serial console (no "quiet"), the
# same eth0 on every machine type.
sed -i -e 's/^GRUB_TIMEOUT=.*/GRUB_TIMEOUT=1/' \
    -e 's/^GRUB_CMDLINE_LINUX_DEFAULT=.*/GRUB_CMDLINE_LINUX_DEFAULT=""/' \
    -e 's/^GRUB_CMDLINE_LINUX=.*/GRUB_CMDLINE_LINUX="console=ttyS0 net.ifnames=0"/' \
    "$mnt/etc/default/grub"
echo 'GRUB_TERMINAL=console' >>"$mnt/etc/default/grub"
rm -f "$mnt/etc/machine-id" "$mnt/var/lib/dbus/machine-id"
touch "$mnt/etc/machine-id"

say "installing grub on the disk"
grub-install --target=i386-pc --boot-directory="$mnt/boot" "$loop" >>"$log" 2>&1
for fs in dev dev/pts proc sys; do
    mount --bind "/$fs" "$mnt/$fs"
done
chroot "$mnt" update-grub >>"$log" 2>&1
say "installing ${extra_packages[*]} (services are enabled, not started, in the image)"
# policy-rc.d keeps the packages from starting their daemons in the chroot.
printf '#!/bin/sh\nexit 101\n' >"$mnt/usr/sbin/policy-rc.d"
chmod 0755 "$mnt/usr/sbin/policy-rc.d"
DEBIAN_FRONTEND=noninteractive chroot "$mnt" apt-get install -y -q --no-install-recommends \
    "${extra_packages[@]}" >>"$log" 2>&1
say "installing what rt_domain installs, then removing ${libvirt_left_out[*]} for rt_domain to install in the VM"
DEBIAN_FRONTEND=noninteractive chroot "$mnt" apt-get install -y -q "${libvirt_packages[@]}" >>"$log" 2>&1
DEBIAN_FRONTEND=noninteractive chroot "$mnt" apt-get remove -y -q "${libvirt_left_out[@]}" >>"$log" 2>&1
rm -f "$mnt/usr/sbin/policy-rc.d"
chroot "$mnt" apt-get clean
for fs in dev/pts dev proc sys; do
    umount "$mnt/$fs"
done
# update-grub saw the loop device; the first boot finds the disk by label
# (inside the VM update-grub then writes its UUID).
sed -i -E "s#root=(${loop}p1|UUID=[0-9a-f-]+)#root=LABEL=root#g" "$mnt/boot/grub/grub.cfg"
grep -q 'root=LABEL=root' "$mnt/boot/grub/grub.cfg" \
    || { echo "lab image: grub.cfg has no root=LABEL=root" >&2; exit 1; }

umount "$mnt"
partx -d "$loop" 2>/dev/null || true
losetup -d "$loop"
loop=""

mkdir -p "$image_dir.tmp"
mv "$work/disk.raw" "$work/id_ed25519" "$work/id_ed25519.pub" "$log" "$image_dir.tmp/"
rm -rf "$image_dir"
mv "$image_dir.tmp" "$image_dir"
# Images built by other versions of this script are not used any more.
find "$cache" -mindepth 1 -maxdepth 1 -type d -name 'debian12-*' ! -name "debian12-$key" -exec rm -rf {} +
say "image ready: $image_dir/disk.raw ($(du -h "$image_dir/disk.raw" | cut -f1) used)"
echo "$image_dir"
