#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Install the Debian packages the demo and the tests need (idempotent).
set -euo pipefail
PACKAGES=(
  qemu-system-x86 qemu-utils
  libvirt-daemon libvirt-daemon-driver-qemu libvirt-daemon-system libvirt-clients
  libvirt-dev pkg-config gcc python3-dev python3-venv libxml2-utils shellcheck
  rt-tests busybox-static cpio stress-ng tuned procps git make
  # what rt_host installs for tuned on Debian: present before the tests, so
  # the demo's undo and reliability_check_mode find the host as it was
  linux-perf tuna
  # the lab VM's image build (udev: grub-install asks udevadm where a loop
  # device's partition starts, and fails without it)
  debootstrap fdisk grub-pc-bin grub2-common udev e2fsprogs mount openssh-client iproute2
  # the fake QAT host of tests/integration (mfusepy loads libfuse.so.2)
  libfuse2
  # a real browser that draws the fleet report (tests/report/screenshot.py)
  chromium
  # ptp4l and pmc for the PTP test on a veth pair (ptp_veth), and linuxptp's
  # own profile files the unit tests compare the ptp role's with
  linuxptp
  # the independent reading of each interface's timestamping (rt_node_facts)
  ethtool
)
missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "host packages: all ${#PACKAGES[@]} present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "host packages: missing ${missing[*]}; run as root (or install them) and try again" >&2
  exit 1
fi
echo "host packages: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "host packages: done"
