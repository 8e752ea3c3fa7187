#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Build (once) the collection's small guest: the distribution kernel and an
# initramfs holding busybox and cyclictest (with the libraries ldd names).
# It is the latency probe of realtime.virt.rt_validate, and the guest the
# tests boot. Its init prints "realtime-virt guest booted" and the CPUs on
# the serial console, then, by the kernel command line:
#   rtv.idle        stays up (a running domain for tests), or else
#   rtv.duration=S  runs cyclictest --policy fifo --priority 95 -i 100
#                   -H 1000 -D S -q (S default 10), prints the result
#                   between two markers and powers the guest off.
# Usage: build-probe-guest.sh CACHE_DIR   -> CACHE_DIR/vmlinuz, CACHE_DIR/initrd.img
# Prints "probe: built" when it built something, "probe: cached" otherwise.
# An image built by another version of this script is built again.
set -euo pipefail
cache=${1:?usage: build-probe-guest.sh CACHE_DIR}
mkdir -p "$cache"
build_id=$(sha256sum "$0" | cut -c1-16)
if [ -s "$cache/vmlinuz" ] && [ -s "$cache/initrd.img" ] && [ "$(cat "$cache/build-id" 2>/dev/null)" = "$build_id" ]; then
  echo "probe: cached in $cache"
  exit 0
fi
for tool in cyclictest busybox cpio gzip ldd apt-get dpkg; do
  command -v "$tool" >/dev/null || { echo "probe: $tool is missing (packages rt-tests busybox-static cpio)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# the versioned kernel package behind the linux-image-amd64 metapackage
pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
pkg=${pkg%-unsigned}
[ -n "$pkg" ] || { echo "probe: no kernel package found behind linux-image-amd64 (run apt-get update)" >&2; exit 1; }
apt-get download "${pkg}-unsigned" >/dev/null 2>&1 || apt-get download "$pkg" >/dev/null
dpkg -x ./*.deb kernel
cp kernel/boot/vmlinuz-* "$cache/vmlinuz.tmp"

root=$work/root
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
cp "$(command -v busybox)" "$root/bin/busybox"
for applet in sh mount cat echo sed tr poweroff sleep sync; do ln -s busybox "$root/bin/$applet"; done
ct=$(command -v cyclictest)
cp "$ct" "$root/bin/cyclictest"
# shared libraries and the loader, at the paths ldd gives
ldd "$ct" | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i}' | sort -u | while read -r lib; do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done

cat > "$root/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
duration=10
idle=no
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    rtv.duration=*) duration=${arg#rtv.duration=} ;;
    rtv.idle) idle=yes ;;
  esac
done
echo "realtime-virt guest booted: $(cat /proc/version)"
echo "realtime-virt guest cpus: $(cat /sys/devices/system/cpu/online)"
if [ "$idle" = yes ]; then
  while true; do sleep 3600; done
fi
echo "rtv-probe: cpus $(cat /sys/devices/system/cpu/online), cyclictest for ${duration}s"
echo "rtv-probe: cyclictest begin"
/bin/cyclictest --policy fifo --priority 95 -i 100 -H 1000 -D "${duration}" -q -m 2>&1
echo "rtv-probe: cyclictest end rc=$?"
sync
poweroff -f
INIT
chmod 0755 "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$cache/initrd.img.tmp"
mv "$cache/vmlinuz.tmp" "$cache/vmlinuz"
mv "$cache/initrd.img.tmp" "$cache/initrd.img"
echo "$build_id" > "$cache/build-id"
echo "probe: built in $cache"
