#!/usr/bin/env bash
# Build (once) a tiny guest for libvirt_rt_domain tests: the Debian 6.1
# kernel and a busybox initramfs whose init prints a marker on the serial
# console and then idles, so the domain keeps running for the checks.
# Output: $CACHE/vmlinuz and $CACHE/initrd.img (reused when present).
# CACHE = $REALTIME_VIRT_CACHE/guest, default /work/main/.cache/guest.
set -euo pipefail
CACHE="${REALTIME_VIRT_CACHE:-/work/main/.cache}/guest"
mkdir -p "$CACHE"
if [ -s "$CACHE/vmlinuz" ] && [ -s "$CACHE/initrd.img" ]; then
  echo "guest: cached in $CACHE"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# the versioned, unsigned kernel package behind linux-image-amd64
pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
pkg=${pkg%-unsigned}
[ -n "$pkg" ] || { echo "guest: cannot find the kernel package (run apt-get update)" >&2; exit 1; }
apt-get download "${pkg}-unsigned" >/dev/null 2>&1 || apt-get download "$pkg" >/dev/null
dpkg -x ./*.deb kernel
cp kernel/boot/vmlinuz-* "$CACHE/vmlinuz.tmp"

busybox=$(command -v busybox || echo /bin/busybox)
mkdir -p root/bin root/proc root/sys root/dev
cp "$busybox" root/bin/busybox
for tool in sh mount echo cat sleep poweroff; do ln -s busybox "root/bin/$tool"; done
cat > root/init <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
echo "realtime-virt guest booted: $(cat /proc/version)"
echo "realtime-virt guest cpus: $(cat /sys/devices/system/cpu/online)"
while true; do sleep 3600; done
INIT
chmod 0755 root/init
(cd root && find . | cpio -o -H newc --quiet | gzip -1) > "$CACHE/initrd.img.tmp"
mv "$CACHE/vmlinuz.tmp" "$CACHE/vmlinuz"
mv "$CACHE/initrd.img.tmp" "$CACHE/initrd.img"
echo "guest: built in $CACHE"
