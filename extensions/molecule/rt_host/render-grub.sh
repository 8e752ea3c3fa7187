#!/bin/sh
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Render grub.cfg the way update-grub would, on a host without /boot/grub:
# in a private mount namespace, bind an empty directory with a dummy kernel
# over /boot, then run grub-mkconfig to $1. Nothing outside the namespace
# changes. Usage: unshare -m sh render-grub.sh OUTPUT
set -eu
out=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/grub"
: > "$work/vmlinuz-6.1.0-0-amd64"
mount --make-rprivate / 2>/dev/null || true
mount --bind "$work" /boot
grub-mkconfig -o "$work/grub.cfg" 2>/dev/null
cp "$work/grub.cfg" "$out"
