#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Print, as JSON, what the lab VM's kernel shows (run inside the VM).

The lab scenario reads this after every step instead of trusting what the
roles report: the booted command line, the arguments grub.cfg gives the
next boot (its default entry) and whether a role left a reboot pending,
isolated CPUs, real-time
throttling, hugepage pools and hugetlbfs mounts, and the SR-IOV state of
the NVMe physical function (found by PCI class 0108 with sriov_totalvfs),
its VFs, their drivers, IOMMU groups and /dev/vfio nodes, the text of the
files rt_host writes for tuned and irqbalance (None where absent) and
which of the files the roles install (the grub drop-in, the boot-time
units and scripts) are present, the ptp role's files and daemons (their
CPUs, policy and priority), rt_guest's ptp_kvm files and whether chrony
runs and is enabled. With a path argument it also
lists files under /etc, /boot and /usr/local newer than that path (to prove
a --check run wrote nothing); with --tuned it also asks the tuned daemon
which profile it runs (tuned-adm active), and with --report PATH it adds
that JSON file (an rt_validate report) parsed. One script in place of a task per
file: under TCG each Ansible task costs seconds.
"""

import argparse
import json
import os
import subprocess
import sys

PCI = "/sys/bus/pci/devices"


def read(path, default=None):
    try:
        with open(path) as handle:
            return handle.read().strip()
    except OSError:
        return default


def read_json(path):
    text = read(path)
    return None if text is None else json.loads(text)


def link_name(path):
    try:
        return os.path.basename(os.readlink(path))
    except OSError:
        return None


def hugepages():
    pools = {}
    base = "/sys/kernel/mm/hugepages"
    for name in sorted(os.listdir(base)):
        pools[name.split("-")[1]] = int(read(os.path.join(base, name, "nr_hugepages"), "0"))
    node0 = {}
    node_base = "/sys/devices/system/node/node0/hugepages"
    if os.path.isdir(node_base):
        for name in sorted(os.listdir(node_base)):
            node0[name.split("-")[1]] = int(read(os.path.join(node_base, name, "nr_hugepages"), "0"))
    return pools, node0


def hugetlbfs_mounts():
    mounts = []
    for line in (read("/proc/mounts", "") or "").splitlines():
        fields = line.split()
        if len(fields) > 3 and fields[2] == "hugetlbfs":
            mounts.append({"path": fields[1], "opts": fields[3]})
    return mounts


def vf_info(address):
    group = link_name(os.path.join(PCI, address, "iommu_group"))
    return {
        "pci_address": address,
        "driver": link_name(os.path.join(PCI, address, "driver")),
        "driver_override": read(os.path.join(PCI, address, "driver_override")),
        "iommu_group": group,
        "vfio_dev": bool(group) and os.path.exists(os.path.join("/dev/vfio", group)),
    }


def sriov_pfs():
    pfs = []
    for address in sorted(os.listdir(PCI)):
        dev = os.path.join(PCI, address)
        klass = read(os.path.join(dev, "class"), "")
        if not klass.startswith("0x0108") or not os.path.exists(os.path.join(dev, "sriov_totalvfs")):
            continue
        vfs = []
        for name in sorted(os.listdir(dev), key=lambda n: (len(n), n)):
            if name.startswith("virtfn"):
                vfs.append(vf_info(link_name(os.path.join(dev, name))))
        pfs.append({
            "pci_address": address,
            "class": klass,
            "driver": link_name(os.path.join(dev, "driver")),
            "sriov_totalvfs": int(read(os.path.join(dev, "sriov_totalvfs"), "0")),
            "sriov_numvfs": int(read(os.path.join(dev, "sriov_numvfs"), "0")),
            "vfs": vfs,
        })
    return pfs


def newer_than(stamp):
    since = os.stat(stamp).st_mtime
    found = []
    for top in ("/etc", "/boot", "/usr/local"):
        for directory, _dirs, files in os.walk(top):
            for name in [""] + files:
                path = os.path.join(directory, name) if name else directory
                try:
                    if os.lstat(path).st_mtime > since:
                        found.append(path)
                except OSError:
                    pass
    return sorted(found)


# What rt_host writes for tuned and irqbalance, read back as text
SETTINGS = (
    "/etc/tuned/realtime-virtual-host-variables.conf",
    "/etc/default/irqbalance",
)
# What the roles install and their undo removes: listed when present
INSTALLED = (
    "/etc/default/grub.d/60-realtime-virt.cfg",
    "/etc/systemd/system/realtime-virt-sriov-vfs.service",
    "/usr/local/sbin/realtime-virt-sriov-vfs",
    "/etc/realtime-virt/sriov-vfs.conf",
    "/etc/systemd/system/realtime-virt-hugepages.service",
)


# What the ptp role writes (read back as text, None where absent), and what
# rt_guest writes for ptp_kvm and chrony
PTP_FILES = (
    "/etc/linuxptp/realtime-virt-ptp4l.conf",
    "/etc/linuxptp/realtime-virt-stopped-time-daemons.conf",
    "/etc/systemd/system/realtime-virt-ptp4l.service",
    "/etc/systemd/system/realtime-virt-phc2sys.service",
)
PTP_KVM_FILES = (
    "/etc/modules-load.d/realtime-virt-ptp_kvm.conf",
    "/etc/chrony/conf.d/realtime-virt-ptp-kvm.conf",
)
WANTS = "/etc/systemd/system/multi-user.target.wants"


def processes(names):
    """Each process named in ``names``: its CPUs, policy and priority as the kernel shows them."""
    found = []
    for pid in sorted((p for p in os.listdir("/proc") if p.isdigit()), key=int):
        comm = read("/proc/%s/comm" % pid)
        if comm not in names:
            continue
        stat = read("/proc/%s/stat" % pid, "")
        # the fields after "(comm)": field 3 (state) first; rt_priority is 40, policy 41
        rest = stat.rsplit(")", 1)[-1].split()
        status = dict(line.split(":", 1) for line in (read("/proc/%s/status" % pid, "") or "").splitlines()
                      if ":" in line)
        found.append({"comm": comm, "pid": int(pid),
                      "cpus_allowed_list": status.get("Cpus_allowed_list", "").strip(),
                      "rt_priority": int(rest[37]) if len(rest) > 38 else None,
                      "policy": int(rest[38]) if len(rest) > 38 else None})
    return found


def grub_default_args(path="/boot/grub/grub.cfg"):
    """The arguments of the first ``linux`` line of grub.cfg (the default entry), its kernel's path left out."""
    for line in (read(path, "") or "").splitlines():
        words = line.split()
        if len(words) > 1 and words[0] == "linux":
            return words[2:]
    return None


def tuned_active():
    try:
        done = subprocess.run(["tuned-adm", "active"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return "tuned-adm active failed: %s" % error
    return done.stdout.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stamp", nargs="?", help="list the files newer than this one")
    parser.add_argument("--tuned", action="store_true", help="ask tuned-adm which profile runs")
    parser.add_argument("--report", action="append", default=[], metavar="PATH",
                        help="add this JSON file (an rt_validate report), parsed, under reports")
    args = parser.parse_args()
    pools, node0 = hugepages()
    state = {
        "boot_id": read("/proc/sys/kernel/random/boot_id"),
        "uptime": float(read("/proc/uptime", "0 0").split()[0]),
        "cmdline": read("/proc/cmdline", "").split(),
        # what the next boot gets, and whether a role left a reboot pending
        "grub_default_args": grub_default_args(),
        "reboot_marker": os.path.exists("/run/realtime-virt/reboot-required"),
        "isolated": read("/sys/devices/system/cpu/isolated", ""),
        "nohz_full": read("/sys/devices/system/cpu/nohz_full", ""),
        # the profile tuned loads when it starts (tuned-adm profile writes it)
        "tuned_profile": read("/etc/tuned/active_profile", ""),
        "sched_rt_runtime_us": int(read("/proc/sys/kernel/sched_rt_runtime_us", "0")),
        "hugepages": pools,
        "hugepages_node0": node0,
        "hugetlbfs": hugetlbfs_mounts(),
        "vfio_pci_loaded": os.path.isdir("/sys/bus/pci/drivers/vfio-pci"),
        "sriov_pfs": sriov_pfs(),
        "files": dict((path, read(path)) for path in SETTINGS),
        "installed": [path for path in INSTALLED if os.path.lexists(path)],
        "ptp": {
            "files": dict((path, read(path)) for path in PTP_FILES),
            "enabled": os.path.lexists(os.path.join(WANTS, "realtime-virt-ptp4l.service")),
            "processes": processes(("ptp4l", "phc2sys")),
        },
        "ptp_kvm_files": dict((path, read(path)) for path in PTP_KVM_FILES),
        "chrony": {
            "running": bool(processes(("chronyd",))),
            "enabled": os.path.lexists(os.path.join(WANTS, "chrony.service")),
        },
    }
    if args.stamp:
        state["newer_files"] = newer_than(args.stamp)
    if args.tuned:
        state["tuned_active"] = tuned_active()
    state["reports"] = dict((path, read_json(path)) for path in args.report)
    json.dump(state, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
