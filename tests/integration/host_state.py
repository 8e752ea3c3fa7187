#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the collection can change on this host, as one comparable snapshot.

Used by the reliability targets to prove that check mode, bad input and
faults leave the host alone, and to put the host back afterwards.

  host_state.py snapshot OUT.json      write a snapshot
  host_state.py compare A.json B.json  exit 1 and print the differences
  host_state.py save DIR               keep what restore needs in DIR
  host_state.py restore DIR            put files, sysctls and pools back, remove new domains
  host_state.py reset                  make the host look untuned (a "fresh" host)

The snapshot holds the sysctls the roles set, the hugepage pools (global
and per NUMA node), the hugetlbfs mounts, every file under /etc (and the
boot scripts and markers) that a role manages, and libvirt's domain list
with each domain's state and inactive XML.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

# Every sysctl a role or a test writes; restore puts each one back.
SYSCTLS = ("kernel/sched_rt_runtime_us", "kernel/sched_rt_period_us", "vm/nr_hugepages", "vm/nr_overcommit_hugepages",
           "vm/nr_hugepages_mempolicy")
FILES = (
    "/etc/sysctl.d/60-realtime-virt.conf",
    "/etc/default/grub.d/60-realtime-virt.cfg",
    "/etc/modprobe.d/realtime-virt-kvm.conf",
    "/etc/tuned/realtime-virtual-host-variables.conf",
    "/etc/tuned/active_profile",
    "/etc/default/irqbalance",
    "/etc/fstab",
    "/boot/grub/grub.cfg",
)
GLOBS = (
    "/etc/realtime-virt/*",
    "/etc/tuned/realtime-virt-*/tuned.conf",
    "/etc/modules-load.d/realtime-virt*",
    "/etc/systemd/system/realtime-virt*",
    "/usr/local/sbin/realtime-virt*",
    "/run/realtime-virt/*",
)
# files a fresh host does not have (reset removes them; restore brings them back)
ROLE_OWNED = ("/etc/sysctl.d/60-realtime-virt.conf", "/etc/default/grub.d/60-realtime-virt.cfg",
              "/etc/modprobe.d/realtime-virt-kvm.conf", "/etc/tuned/realtime-virtual-host-variables.conf") + GLOBS
URI = "qemu:///system"


def _read(path, strip=True):
    try:
        with open(path) as handle:
            text = handle.read()
    except (IOError, OSError):
        return None
    return text.strip() if strip else text


def _paths():
    paths = set(FILES)
    for pattern in GLOBS:
        paths.update(glob.glob(pattern))
    return sorted(paths)


def _pools():
    pools = {}
    for path in sorted(glob.glob("/sys/kernel/mm/hugepages/hugepages-*/nr_hugepages")
                       + glob.glob("/sys/devices/system/node/node*/hugepages/hugepages-*/nr_hugepages")):
        pools[path] = _read(path)
    return pools


def _virsh(*args):
    proc = subprocess.run(["virsh", "-c", URI] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=60, check=False)
    return proc.returncode, proc.stdout


def domains():
    rc, out = _virsh("list", "--all", "--name")
    if rc != 0:
        return {"error": "virsh list failed (is libvirtd running?)"}
    result = {}
    for name in [line for line in out.splitlines() if line.strip()]:
        result[name] = {"state": _virsh("domstate", name)[1].strip(), "inactive_xml": _virsh("dumpxml", "--inactive", name)[1]}
    return result


def snapshot():
    files = {}
    for path in _paths():
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                data = handle.read()
            stat = os.stat(path)
            files[path] = {"sha256": hashlib.sha256(data).hexdigest(), "mode": oct(stat.st_mode & 0o7777),
                           "uid": stat.st_uid, "gid": stat.st_gid}
    return {"sysctl": dict((key, _read("/proc/sys/" + key)) for key in SYSCTLS), "hugepage_pools": _pools(),
            "hugetlbfs_mounts": sorted("%s %s" % pair for pair in _hugetlbfs_mounts()), "files": files,
            "domains": domains()}


def etc_files(root="/etc"):
    """Every file under ``root``: path -> sha256 of its content, or ``-> target`` for a symbolic link."""
    found = {}
    for top, dirs, names in os.walk(root):
        dirs.sort()
        for name in names + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
            path = os.path.join(top, name)
            if os.path.islink(path):
                found[path] = "-> " + os.readlink(path)
            elif os.path.isfile(path):
                try:
                    with open(path, "rb") as handle:
                        found[path] = hashlib.sha256(handle.read()).hexdigest()
                except OSError as exc:
                    found[path] = "unreadable: %s" % exc.strerror
    return found


def compare_etc(before, after):
    """One line per file under /etc that appeared, went or changed."""
    lines = []
    for path in sorted(set(before) | set(after)):
        if path not in after:
            lines.append("%s: removed" % path)
        elif path not in before:
            lines.append("%s: added" % path)
        elif before[path] != after[path]:
            lines.append("%s: changed" % path)
    return lines


def _hugetlbfs_mounts():
    """``(path, options)`` of every hugetlbfs mount, as /proc/mounts lists them."""
    mounts = []
    for line in (_read("/proc/mounts") or "").splitlines():
        fields = line.split()
        if fields[2:3] == ["hugetlbfs"]:
            mounts.append((fields[1], fields[3]))
    return mounts


def compare(before, after):
    lines = []
    for name, snap in (("first", before), ("second", after)):
        if "error" in (snap.get("domains") or {}):
            # libvirt down is never "the same": the domains could not be compared at all
            lines.append("domains: libvirt did not answer when the %s snapshot was taken" % name)
    for section in sorted(set(before) | set(after)):
        old, new = before.get(section), after.get(section)
        if isinstance(old, dict) and isinstance(new, dict):
            for key in sorted(set(old) | set(new)):
                if old.get(key) != new.get(key):
                    lines.append("%s %s: %s -> %s" % (section, key, _short(old.get(key)), _short(new.get(key))))
        elif old != new:
            lines.append("%s: %s -> %s" % (section, _short(old), _short(new)))
    return lines


def _short(value):
    text = json.dumps(value, sort_keys=True)
    return text if len(text) < 160 else text[:157] + "..."


def save(directory):
    os.makedirs(directory, exist_ok=True)
    saved = {"files": {}, "sysctl": {}, "pools": _pools(), "domains": sorted(domains()),
             "mounts": _hugetlbfs_mounts()}
    for index, path in enumerate(_paths()):
        if os.path.isfile(path):
            copy = os.path.join(directory, "file-%d" % index)
            shutil.copy2(path, copy)
            stat = os.stat(path)
            saved["files"][path] = {"copy": copy, "uid": stat.st_uid, "gid": stat.st_gid}
    for key in SYSCTLS:
        saved["sysctl"][key] = _read("/proc/sys/" + key)
    with open(os.path.join(directory, "saved.json"), "w") as handle:
        json.dump(saved, handle, indent=1, sort_keys=True)


def _write(path, value):
    try:
        with open(path, "w") as handle:
            handle.write(str(value))
    except (IOError, OSError) as error:
        sys.stderr.write("restore: %s: %s\n" % (path, error))


def restore(directory):
    with open(os.path.join(directory, "saved.json")) as handle:
        saved = json.load(handle)
    for path in _paths():
        if path not in saved["files"] and os.path.isfile(path):
            os.unlink(path)
    for path, item in saved["files"].items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        shutil.copy2(item["copy"], path)
        os.chown(path, item["uid"], item["gid"])
    # domains a run under test created (not those another test run owns)
    foreign = os.environ.get("REALTIME_VIRT_FOREIGN_DOMAINS", "")
    for name in sorted(set(domains()) - set(saved.get("domains", []))):
        if name != "error" and not (foreign and re.search(foreign, name)):
            _virsh("destroy", name)
            _virsh("undefine", "--nvram", name)
    for key in SYSCTLS:
        if key.startswith("vm/nr_hugepages"):
            continue  # the pools below hold the same numbers per node and size
        if saved["sysctl"].get(key) is not None and _read("/proc/sys/" + key) != saved["sysctl"][key]:
            _write("/proc/sys/" + key, saved["sysctl"][key])
    _restore_mounts(saved.get("mounts", []))
    # per-node pools first, then the global ones (the global file sums the nodes)
    for path, value in sorted(saved["pools"].items(), key=lambda item: "/node/" not in item[0]):
        if value is not None and _read(path) != value:
            _write(path, value)


def _restore_mounts(saved):
    """Unmount hugetlbfs mounts a test added, mount again those it removed."""
    wanted = [tuple(item) for item in saved]
    now = _hugetlbfs_mounts()
    for path, options in now:
        if (path, options) not in wanted:
            subprocess.run(["umount", path], check=False)
    for path, options in wanted:
        if (path, options) not in now:
            os.makedirs(path, exist_ok=True)
            subprocess.run(["mount", "-t", "hugetlbfs", "-o", options, "hugetlbfs", path], check=False)


def reset(irqbalance="/etc/default/irqbalance"):
    """A host the roles have never seen: no role files, throttling on, no pages, no irqbalance ban.

    irqbalance's settings file is the package's (or a test's), not rt_host's, so it stays; only an active
    IRQBALANCE_BANNED_CPULIST line goes, the line rt_host writes. Left there (by a run killed before its
    clean-up), rt_host's record would take it for its own and the undo would not give it back.
    """
    for pattern in ROLE_OWNED:
        for path in glob.glob(pattern):
            if os.path.isfile(path):
                os.unlink(path)
    text = _read(irqbalance, strip=False)
    if text is not None:
        kept = "".join(line for line in text.splitlines(True) if not line.startswith("IRQBALANCE_BANNED_CPULIST="))
        if kept != text:
            _write(irqbalance, kept)
    _write("/proc/sys/kernel/sched_rt_runtime_us", "950000")
    for path in glob.glob("/sys/devices/system/node/node*/hugepages/hugepages-2048kB/nr_hugepages"):
        _write(path, "0")


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    verb = argv[1]
    if verb == "snapshot":
        with open(argv[2], "w") as handle:
            json.dump(snapshot(), handle, indent=1, sort_keys=True)
        return 0
    if verb == "compare":
        with open(argv[2]) as one, open(argv[3]) as two:
            lines = compare(json.load(one), json.load(two))
        print("\n".join(lines) if lines else "identical")
        return 1 if lines else 0
    if verb == "save":
        save(argv[2])
        return 0
    if verb == "restore":
        restore(argv[2])
        return 0
    if verb == "reset":
        reset()
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
