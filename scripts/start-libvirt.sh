#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Make sure hugetlbfs is mounted and virtlogd + libvirtd answer.
# On a systemd host the services are started through systemctl; on a host
# without an init system (containers, CI VMs) the daemons are started
# directly.  hugetlbfs must be mounted BEFORE libvirtd starts, or domains
# backed by hugepages fail with "hugetlbfs filesystem is not mounted".
set -euo pipefail
mkdir -p /dev/hugepages
if ! grep -qs " /dev/hugepages hugetlbfs " /proc/mounts; then
  mount -t hugetlbfs hugetlbfs /dev/hugepages
  echo "libvirt: mounted hugetlbfs on /dev/hugepages"
fi
if virsh -c qemu:///system version >/dev/null 2>&1; then
  echo "libvirt: libvirtd already answers on qemu:///system"
  exit 0
fi
if [ -d /run/systemd/system ]; then
  systemctl start virtlogd libvirtd
else
  mkdir -p /var/log/libvirt /var/run/libvirt
  pgrep -x virtlogd >/dev/null || virtlogd -d
  pgrep -x libvirtd >/dev/null || libvirtd -d
fi
for _ in $(seq 1 50); do
  if virsh -c qemu:///system version >/dev/null 2>&1; then
    echo "libvirt: libvirtd started"
    exit 0
  fi
  sleep 0.2
done
echo "libvirt: libvirtd did not answer on qemu:///system within 10 s; see /var/log/libvirt" >&2
exit 1
