# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Drift: every value rt_host, hugepages and sriov applied, and what the host shows now (pure).

What a value should be comes from the roles' variables (and the plans the
roles compute from them), handed in by rt_validate; what it is comes from
rt_isolation_info (sysctls, VFs, the reboot marker) and rt_node_facts
(/proc/cmdline, hugepage pools, hugetlbfs mounts).  A value that changed
fails, naming what changed from what to what.

In ``--check`` the roles before rt_validate applied nothing, so a value
that differs cannot be told apart from one the real run is about to set:
such a row is a warning there, saying so, not a failure.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._common.units import page_size_kib, size_label
from ansible_collections.realtime.virt.plugins.module_utils._cpu.kernel_args import arg_name, compare_kernel_args
from ansible_collections.realtime.virt.plugins.module_utils._hugepages.plan import hugepage_plan
from ansible_collections.realtime.virt.plugins.module_utils._sriov.manager import validate as validate_pf
from ansible_collections.realtime.virt.plugins.module_utils._validate.checks import check

SUBJECT = "applied settings"
OPTIONS = {
    "sysctls": "rt_validate_drift_sysctls",
    "kernel_args": "rt_validate_drift_kernel_args",
    "hugepages": "rt_validate_drift_hugepages",
    "default_size": "rt_validate_drift_hugepages_default_size",
    "runtime_sizes": "rt_validate_drift_hugepages_runtime_sizes",
    "sriov_pfs": "rt_validate_drift_sriov_pfs",
}


def _same(wanted, seen):
    """Sysctl values compared as the kernel prints them: numbers as numbers, words by whitespace-split."""
    if seen is None:
        return False
    try:
        return int(str(wanted).strip()) == int(str(seen).strip())
    except ValueError:
        return str(wanted).split() == str(seen).split()


def _sysctls(wanted, seen):
    if not isinstance(wanted, dict):
        raise OptionError(OPTIONS["sysctls"], wanted, "not a mapping of sysctl names to values",
                          "give e.g. {kernel.sched_rt_runtime_us: -1}")
    out = []
    for name in sorted(wanted):
        value = (seen or {}).get(name)
        name_check = "sysctl %s" % name
        if _same(wanted[name], value):
            out.append(check(SUBJECT, name_check, str(wanted[name]), value, "pass"))
            continue
        now = "absent from this kernel" if value is None else value
        out.append(check(SUBJECT, name_check, str(wanted[name]), now, "fail",
                         "drift: %s changed from %s to %s; fix: sysctl -w %s=%s (re-run realtime.virt.rt_host, "
                         "which also keeps it in /etc/sysctl.d)" % (name, wanted[name], now, name, wanted[name])))
    return out


def _kernel_args(wanted, cmdline_list, reboot_pending):
    name = "kernel arguments"
    if not wanted:
        return [check(SUBJECT, name, "rt_host's arguments in /proc/cmdline", "none to compare", "skip",
                      "drift: no kernel arguments to compare (realtime.virt.rt_host did not run in this play, "
                      "so rt_host_kernel_args is unset, and %s is empty)" % OPTIONS["kernel_args"])]
    try:
        compared = compare_kernel_args(wanted, cmdline_list)
    except OptionError as error:
        raise OptionError(OPTIONS["kernel_args"], error.value, error.why, error.fix)
    expected = " ".join(wanted)
    if compared["applied"]:
        return [check(SUBJECT, name, expected, "all %d in /proc/cmdline" % len(wanted), "pass")]
    changes = []
    for word in compared["missing"]:
        now = [item for item in cmdline_list or [] if arg_name(item) == arg_name(word)]
        changes.append("%s -> %s" % (word, now[-1] if now else "absent"))
    observed = "; ".join(changes)
    if reboot_pending:
        return [check(SUBJECT, name, expected, observed, "skip",
                      "drift: a reboot is pending (rt_host_reboot_required or its marker), so the running kernel "
                      "has not booted the arguments yet: %s" % observed)]
    return [check(SUBJECT, name, expected, observed, "fail",
                  "drift: the running kernel's command line differs from what rt_host wrote: %s; fix: check the "
                  "bootloader entry, re-run realtime.virt.rt_host and reboot" % observed)]


def _pool_total(rt_node, target):
    key = "%dkB" % target["size_kb"]
    if target["node"] is None:
        entry = (((rt_node or {}).get("hugepages") or {}).get("sizes") or {}).get(key)
    else:
        nodes = dict((node.get("id"), node) for node in ((rt_node or {}).get("numa") or {}).get("nodes") or [])
        entry = ((nodes.get(target["node"]) or {}).get("hugepages") or {}).get(key)
    return (entry or {}).get("total")


def _hugepages(rt_node, pages, default_size, mounts, runtime_sizes, reboot_pending):
    if not pages:
        return []
    plan = hugepage_plan(rt_node, pages, default_size=default_size or None, option=OPTIONS["hugepages"],
                         default_option=OPTIONS["default_size"])
    runtime = set()
    for size in runtime_sizes if runtime_sizes is not None else ("2M", "1G"):
        kb = page_size_kib(size)
        if kb is None:
            raise OptionError(OPTIONS["runtime_sizes"], runtime_sizes, "%r is not a hugepage size" % (size,),
                              "list sizes such as 2M and 1G")
        runtime.add(kb)
    out = []
    for target in plan["targets"]:
        where = "any node" if target["node"] is None else "node %d" % target["node"]
        name = "hugepages %s %s" % (target["size"], where)
        total = _pool_total(rt_node, target)
        expected = "%d pages" % target["count"]
        if total == target["count"]:
            out.append(check(SUBJECT, name, expected, "%d pages" % total, "pass"))
            continue
        observed = "%s pages" % ("no such pool" if total is None else total)
        if target["size_kb"] not in runtime and reboot_pending:
            out.append(check(SUBJECT, name, expected, observed, "skip",
                             "drift: %s pages are reserved at boot only and a reboot is pending" % target["size"]))
            continue
        out.append(check(SUBJECT, name, expected, observed, "fail",
                         "drift: the %s pool on %s changed from %d to %s pages; fix: re-run realtime.virt.hugepages "
                         "(and look for what freed or took them: %s)" % (
                             target["size"], where, target["count"], "none" if total is None else total, target["path"])))
    if mounts:
        seen = dict((mount.get("path"), mount.get("pagesize_kb"))
                    for mount in ((rt_node or {}).get("hugepages") or {}).get("mounts") or [])
        for mount in plan["mounts"]:
            name = "hugetlbfs %s" % mount["path"]
            expected = "mounted, %s pages" % mount["size"]
            if mount["path"] not in seen:
                out.append(check(SUBJECT, name, expected, "not mounted", "fail",
                                 "drift: hugetlbfs at %s changed from mounted (%s pages) to not mounted; fix: mount it "
                                 "again (mount %s, from /etc/fstab) or re-run realtime.virt.hugepages"
                                 % (mount["path"], mount["size"], mount["path"])))
            elif seen[mount["path"]] != mount["size_kb"]:
                now = size_label(seen[mount["path"]]) if seen[mount["path"]] else "unknown"
                out.append(check(SUBJECT, name, expected, "mounted, %s pages" % now, "fail",
                                 "drift: hugetlbfs at %s changed from %s to %s pages; fix: remount it with "
                                 "pagesize=%s or re-run realtime.virt.hugepages" % (mount["path"], mount["size"], now,
                                                                                    mount["size"])))
            else:
                out.append(check(SUBJECT, name, expected, "mounted, %s pages" % mount["size"], "pass"))
    return out


def _vfs(entries, vf_driver, seen):
    if not isinstance(entries, list):
        raise OptionError(OPTIONS["sriov_pfs"], entries, "not a list", "give a list such as [{pf: '0000:3b:00.0', count: 4}]")
    by_pf = dict((item["pf"], item) for item in seen or [])
    out = []
    for index, entry in enumerate(entries):
        where = "%s[%d]" % (OPTIONS["sriov_pfs"], index)
        if not isinstance(entry, dict):
            raise OptionError(where, entry, "not a mapping", "write {pf: '0000:3b:00.0', count: 4}")
        try:
            pf, count, driver = validate_pf(entry.get("pf"), entry.get("count"), entry.get("driver") or vf_driver)
        except OptionError as error:
            raise OptionError("%s.%s" % (where, error.option), error.value, error.why, error.fix)
        now = by_pf.get(pf) or {"present": False}
        name = "VFs of %s" % pf
        if not now.get("present"):
            out.append(check(SUBJECT, name, "%s VFs on %s" % (count, driver), "PF not found", "fail",
                             "drift: PCI device %s is gone (no /sys/bus/pci/devices/%s); fix: check the hardware and "
                             "re-run the sriov (or qat) role" % (pf, pf)))
            continue
        wanted = now.get("sriov_totalvfs") if count == "max" else count
        expected = "%s VFs on %s" % (wanted, driver)
        drivers = [vf.get("driver") or "no driver" for vf in now.get("vfs") or []]
        observed = "%s VFs%s" % (now.get("sriov_numvfs"), ", drivers " + ", ".join(sorted(set(drivers))) if drivers else "")
        wrong = ["%s on %s" % (vf["pci_address"], vf.get("driver") or "no driver")
                 for vf in now.get("vfs") or [] if vf.get("driver") != driver]
        if now.get("sriov_numvfs") != wanted or wrong:
            what = []
            if now.get("sriov_numvfs") != wanted:
                what.append("VF count from %s to %s" % (wanted, now.get("sriov_numvfs")))
            if wrong:
                what.append("driver from %s to: %s" % (driver, ", ".join(wrong)))
            out.append(check(SUBJECT, name, expected, observed, "fail",
                             "drift: %s changed: %s; fix: re-run realtime.virt.sriov (its boot-time unit recreates "
                             "them at boot)" % (pf, "; ".join(what))))
        else:
            out.append(check(SUBJECT, name, expected, observed, "pass"))
    return out


def drift_checks(applied, rt_node, sysctls=None, kernel_args=None, reboot_pending=False, hugepages=None,
                 hugepages_default_size=None, hugetlbfs=True, runtime_sizes=None, sriov_pfs=None,
                 sriov_vf_driver="vfio-pci", check_mode=False):
    """Every drift check: sysctls, kernel arguments, hugepage pools and mounts, VFs."""
    applied = applied or {}
    pending = bool(reboot_pending) or bool((applied.get("reboot_marker") or {}).get("present"))
    cmdline = ((rt_node or {}).get("kernel") or {}).get("cmdline_list") or []
    out = _sysctls(sysctls or {}, applied.get("sysctls"))
    out.extend(_kernel_args(list(kernel_args or []), cmdline, pending))
    out.extend(_hugepages(rt_node, hugepages or [], hugepages_default_size, hugetlbfs, runtime_sizes, pending))
    out.extend(_vfs(sriov_pfs or [], sriov_vf_driver or "vfio-pci", applied.get("pfs")))
    if check_mode:
        out = [_in_check_mode(item) for item in out]
    return out


def _in_check_mode(item):
    """A drift found in --check: a warning, since the real run may be the one to set the value."""
    if item["status"] != "fail":
        return item
    return dict(item, status="warn",
                message="--check applies nothing, so this may be what the real run sets: %s" % item["message"])
