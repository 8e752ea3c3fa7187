# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Gather the ``rt_node`` facts of one host tree.

Every file is read through :class:`HostReader`, so the same code serves the
live host (``root='/'``) and a captured tree.  A file that cannot be read
leaves its fact as None (or an empty list where "nothing" and "unknown"
mean the same to a caller) and the reader keeps a warning.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import (
    CpusetError,
    format_cpuset,
    parse_cpumask,
)
from ansible_collections.realtime.virt.plugins.module_utils._kernel import paths
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader, checked_root
from ansible_collections.realtime.virt.plugins.module_utils._node import isolation, parsing, resctrl, timesync
from ansible_collections.realtime.virt.plugins.module_utils._node.readiness import evaluate

NODE = "/sys/devices/system/node"
HUGEPAGES = "/sys/kernel/mm/hugepages"
KVM_PARAMETERS = (
    ("kvm", "halt_poll_ns"),
    ("kvm", "kvmclock_periodic_sync"),
    ("kvm", "nx_huge_pages"),
    ("kvm", "lapic_timer_advance_ns"),
    ("kvm_intel", "ple_gap"),
)
FLAGS = {
    "tsc_deadline": "tsc_deadline_timer",
    "constant_tsc": "constant_tsc",
    "nonstop_tsc": "nonstop_tsc",
    "pdpe1gb": "pdpe1gb",
    "vmx": "vmx",
    "svm": "svm",
}


def _cpuset_or_none(cpus):
    return None if cpus is None else format_cpuset(cpus)


class NodeFacts(object):
    """Read one host tree and build the ``rt_node`` dictionary."""

    def __init__(self, root="/", reader=None):
        if reader is None:
            reader = HostReader(checked_root(root))
        self.reader = reader
        self.root = self.reader.root

    @property
    def warnings(self):
        return self.reader.warnings

    def _cpulist(self, path, optional=False):
        text = self.reader.read(path, optional=optional)
        if text is None:
            return None
        try:
            return parsing.parse_sysfs_cpulist(text)
        except CpusetError as error:
            self.reader.warnings.append("%s holds %r, not a CPU list (%s); the fact is left out" % (path, text, error))
            return None

    def _cmdline_cpus(self, args, name, possible, parser=parsing.parse_cmdline_cpulist):
        value = parsing.cmdline_value(args, name)
        if value is None or value is True:
            return None
        try:
            return parser(value, possible)
        except CpusetError as error:
            self.reader.warnings.append(
                "the kernel argument %s=%s is not a CPU list the facts understand (%s); it is left out" % (name, value, error)
            )
            return None

    # -- groups -------------------------------------------------------

    def kernel(self):
        read = self.reader.read
        release = read("/proc/sys/kernel/osrelease")
        version = read("/proc/sys/kernel/version")
        cmdline = read(paths.CMDLINE)
        words, init_words = parsing.split_cmdline(cmdline)
        args = parsing.parse_cmdline_args(words)
        realtime = read("/sys/kernel/realtime", optional=True)
        realtime = None if realtime is None else realtime.strip() == "1"
        debug_preempt = read("/sys/kernel/debug/sched/preempt", optional=True)
        config = None
        words_of_version = (version or "").split()
        if release and not realtime and not set(words_of_version) & {"PREEMPT_RT", "PREEMPT", "PREEMPT_LAZY"} \
                and debug_preempt is None:
            config = parsing.parse_kernel_config(
                read("/boot/config-%s" % release, optional=True),
                ("CONFIG_PREEMPT_RT", "CONFIG_PREEMPT_DYNAMIC", "CONFIG_PREEMPT", "CONFIG_PREEMPT_LAZY",
                 "CONFIG_PREEMPT_VOLUNTARY", "CONFIG_PREEMPT_NONE"),
            )
        preempt = parsing.cmdline_value(args, "preempt")
        model = parsing.preempt_model(version, realtime, debug_preempt, preempt, config)
        return {
            "release": release,
            "version": version,
            "preempt_model": model,
            "preempt_rt": None if model is None else model == "rt",
            "cmdline": cmdline,
            "cmdline_args": args,
            "cmdline_list": words,
            "init_args": init_words,
        }

    def sched_rt(self):
        return {
            "sched_rt_runtime_us": self.reader.read_int("/proc/sys/kernel/sched_rt_runtime_us"),
            "sched_rt_period_us": self.reader.read_int("/proc/sys/kernel/sched_rt_period_us"),
        }

    def memory(self):
        info = parsing.parse_meminfo(self.reader.read("/proc/meminfo"))
        return info, {
            "total_kb": info.get("MemTotal"),
            "free_kb": info.get("MemFree"),
            "available_kb": info.get("MemAvailable"),
        }

    def cpus(self, args):
        online = self._cpulist(paths.CPU + "/online")
        possible = self._cpulist(paths.CPU + "/possible")
        present = self._cpulist(paths.CPU + "/present", optional=True)
        isolated = self._cpulist(paths.CPU + "/isolated")
        nohz_full = self._cpulist(paths.CPU + "/nohz_full", optional=True)
        if nohz_full is None and self.reader.exists(paths.CPU + "/online"):
            # Kernels without CONFIG_NO_HZ_FULL have no such file: nothing is tickless.
            nohz_full = []
        rcu_nocbs = self._cmdline_cpus(args, "rcu_nocbs", possible)
        isolcpus = None
        if parsing.cmdline_value(args, "isolcpus") not in (None, True):
            try:
                flags, cpus = parsing.parse_isolcpus(parsing.cmdline_value(args, "isolcpus"), possible)
                isolcpus = {"flags": flags, "cpus": cpus, "cpuset": format_cpuset(cpus)}
            except CpusetError as error:
                self.reader.warnings.append("the kernel argument isolcpus is not understood (%s); it is left out" % error)
        housekeeping = None
        if online is not None:
            housekeeping = sorted(set(online) - set(isolated or []) - set(nohz_full or []))
        irq_mask = self.reader.read(paths.DEFAULT_IRQ_AFFINITY, optional=True)
        irq_default = None
        if irq_mask is not None:
            try:
                irq_default = parse_cpumask(irq_mask)
            except CpusetError:
                self.reader.warnings.append("%s holds %r, not a CPU mask" % (paths.DEFAULT_IRQ_AFFINITY, irq_mask))
        smt_active = self.reader.read(paths.CPU + "/smt/active", optional=True)
        workqueue = self._cpumask(isolation.MASKS[0][1])

        result = {
            "count": None if online is None else len(online),
            "online": online,
            "online_cpuset": _cpuset_or_none(online),
            "possible": possible,
            "possible_cpuset": _cpuset_or_none(possible),
            "present": present,
            "present_cpuset": _cpuset_or_none(present),
            "isolated": isolated,
            "isolated_cpuset": _cpuset_or_none(isolated),
            "nohz_full": nohz_full,
            "nohz_full_cpuset": _cpuset_or_none(nohz_full),
            "rcu_nocbs": rcu_nocbs,
            "rcu_nocbs_cpuset": _cpuset_or_none(rcu_nocbs),
            "isolcpus": isolcpus,
            "housekeeping": housekeeping,
            "housekeeping_cpuset": _cpuset_or_none(housekeeping),
            "irq_default_affinity": irq_default,
            "irq_default_affinity_cpuset": _cpuset_or_none(irq_default),
            "smt_active": None if smt_active is None else smt_active.strip() == "1",
            "workqueue_cpus": workqueue,
            "workqueue_cpuset": _cpuset_or_none(workqueue),
        }
        result.update(self.topology(online or []))
        result.update(self.cpu_flags())
        return result

    def _cpumask(self, path):
        text = self.reader.read(path, optional=True)
        if text is None:
            return None
        try:
            return parse_cpumask(text)
        except CpusetError:
            self.reader.warnings.append("%s holds %r, not a CPU mask; the fact is left out" % (path, text))
            return None

    def irqs(self, cpus):
        """Interrupts: how many, how many the kernel manages, those delivered to isolated CPUs."""
        isolated = set(cpus.get("isolated") or []) | set(cpus.get("nohz_full") or [])
        return isolation.irq_summary(isolation.read_irqs(self.reader), sorted(isolated))

    def topology(self, online):
        packages = {}
        cores = set()
        groups = set()
        read = self.reader.read
        for cpu in online:
            base = "%s/cpu%d/topology/" % (paths.CPU, cpu)
            package = read(base + "physical_package_id", optional=True)
            if package is None:
                continue
            core = read(base + "core_id", optional=True)
            siblings = read(base + "thread_siblings_list", optional=True)
            package = int(package)
            packages.setdefault(package, []).append(cpu)
            cores.add((package, core))
            if siblings is not None:
                try:
                    groups.add(tuple(parsing.parse_sysfs_cpulist(siblings)))
                except CpusetError:
                    groups.add((cpu,))
        if online and not packages:
            self.reader.warnings.append(
                "no CPU topology under %s/cpuN/topology; sockets, cores and SMT siblings are left out" % paths.CPU
            )
            return {"socket_count": None, "sockets": None, "cores": None, "threads_per_core": None, "smt_siblings": None}
        sockets = []
        for package in sorted(packages):
            cpus = packages[package]
            sockets.append({
                "id": package,
                "cpus": cpus,
                "cpuset": format_cpuset(cpus),
                "core_count": len([1 for key in cores if key[0] == package]),
            })
        siblings = sorted(list(group) for group in groups)
        return {
            "socket_count": len(sockets),
            "sockets": sockets,
            "cores": len(cores),
            "threads_per_core": max(len(group) for group in siblings) if siblings else None,
            "smt_siblings": siblings,
        }

    def cpu_flags(self):
        cpuinfo = self.reader.read(paths.CPUINFO)
        if cpuinfo is None:
            return {"flags": None, "virtualization": None}
        present = parsing.parse_cpu_flags(cpuinfo)
        flags = dict((name, kernel_name in present) for name, kernel_name in FLAGS.items())
        if flags["vmx"]:
            virtualization = "vmx"
        elif flags["svm"]:
            virtualization = "svm"
        else:
            virtualization = "none"
        return {"flags": flags, "virtualization": virtualization}

    def _hugepage_sizes(self, base, fields):
        sizes = {}
        for name in self.reader.listdir(base, optional=True):
            size_kb = parsing.hugepage_dir_size_kb(name)
            if size_kb is None:
                continue
            entry = {"size_kb": size_kb}
            for key, filename in fields:
                entry[key] = self.reader.read_int("%s/%s/%s" % (base, name, filename))
            sizes[name[len("hugepages-"):]] = entry
        return sizes

    def _node_ids(self):
        names = self.reader.listdir(NODE, optional=True)
        return sorted(int(name[4:]) for name in names if name.startswith("node") and name[4:].isdigit())

    def numa(self):
        nodes = []
        for node_id in self._node_ids():
            name = "node%d" % node_id
            path = "%s/%s" % (NODE, name)
            cpus = self._cpulist(path + "/cpulist")
            info = parsing.parse_meminfo(self.reader.read(path + "/meminfo"))
            nodes.append({
                "id": int(name[4:]),
                "cpus": cpus,
                "cpuset": _cpuset_or_none(cpus),
                "memory_total_kb": info.get("MemTotal"),
                "memory_free_kb": info.get("MemFree"),
                "hugepages": self._hugepage_sizes(
                    path + "/hugepages",
                    (("total", "nr_hugepages"), ("free", "free_hugepages"), ("surplus", "surplus_hugepages")),
                ),
            })
        return {"node_count": len(nodes), "nodes": nodes}

    def hugepages(self, meminfo):
        default_kb = meminfo.get("Hugepagesize")
        sizes = self._hugepage_sizes(
            HUGEPAGES,
            (("total", "nr_hugepages"), ("free", "free_hugepages"), ("reserved", "resv_hugepages"),
             ("surplus", "surplus_hugepages"), ("overcommit", "nr_overcommit_hugepages")),
        )
        mounts_text = self.reader.read(paths.MOUNTS)
        mounts = None if mounts_text is None else parsing.hugetlbfs_mounts(parsing.parse_mounts(mounts_text), default_kb)
        allocated = 0
        for entry in sizes.values():
            allocated += (entry["total"] or 0) * entry["size_kb"]
        return {
            "default_size_kb": default_kb,
            "sizes": sizes,
            "allocated_kb": allocated,
            "mounts": mounts,
        }

    def thp(self):
        base = "/sys/kernel/mm/transparent_hugepage/"
        return {
            "enabled": parsing.selected_choice(self.reader.read(base + "enabled", optional=True)),
            "defrag": parsing.selected_choice(self.reader.read(base + "defrag", optional=True)),
        }

    def ksm(self):
        run = self.reader.read_int("/sys/kernel/mm/ksm/run", optional=True)
        return {"run": run, "running": None if run is None else run == 1}

    def iommu(self, args):
        groups = self.reader.listdir("/sys/kernel/iommu_groups", optional=True)
        units = self.reader.listdir("/sys/class/iommu", optional=True)
        cmdline = {}
        for name in ("intel_iommu", "amd_iommu", "iommu", "iommu.passthrough", "iommu.strict"):
            value = parsing.cmdline_value(args, name)
            if value is not None:
                cmdline[name] = value
        return {
            "enabled": len(groups) > 0,
            "group_count": len(groups),
            "units": units,
            "cmdline": cmdline,
        }

    def kvm(self):
        exists = self.reader.exists
        modules = dict((name, exists("/sys/module/" + name)) for name in ("kvm", "kvm_intel", "kvm_amd"))
        parameters = {}
        for module, name in KVM_PARAMETERS:
            if not modules[module]:
                continue
            value = self.reader.read("/sys/module/%s/parameters/%s" % (module, name), optional=True)
            if value is not None:
                parameters["%s.%s" % (module, name)] = value
        nested = None
        for module in ("kvm_intel", "kvm_amd"):
            if modules[module]:
                value = parsing.parse_bool_param(self.reader.read("/sys/module/%s/parameters/nested" % module, optional=True))
                if value is not None:
                    nested = value
        return {"device_present": exists("/dev/kvm"), "modules": modules, "nested": nested, "parameters": parameters}

    def rng(self):
        base = "/sys/class/misc/hw_random/"
        available = self.reader.read(base + "rng_available", optional=True)
        current = self.reader.read(base + "rng_current", optional=True)
        if current is not None and current.strip() in ("", "none"):
            current = None
        devices = dict((name, self.reader.exists("/dev/" + name)) for name in ("random", "urandom", "hwrng"))
        if devices["random"]:
            backend = "/dev/random"
        elif devices["urandom"]:
            backend = "/dev/urandom"
        else:
            backend = None
        return {
            "available": [] if available is None else [name for name in available.split() if name != "none"],
            "current": current,
            "devices": devices,
            "default_backend": backend,
        }

    def domain_host(self, rdt=False):
        """The facts libvirt_rt_domain checks its options against.

        ``online`` (CPU ids), ``hugepage_sizes_kib``, ``numa_nodes`` (node id ->
        CPU ids, None when the tree shows no node), ``devices`` (the RNG
        device paths present) and, with ``rdt`` (a domain asks cache or
        memory bandwidth allocation), ``resctrl`` (Intel RDT, resctrl.py),
        which reads every CPU's cache directories.
        """
        sizes = [parsing.hugepage_dir_size_kb(name) for name in self.reader.listdir(HUGEPAGES, optional=True)]
        nodes = dict((node_id, self._cpulist("%s/node%d/cpulist" % (NODE, node_id), optional=True) or [])
                     for node_id in self._node_ids())
        return {
            "online": self._cpulist(paths.CPU + "/online"),
            "hugepage_sizes_kib": sorted(size for size in sizes if size is not None),
            "numa_nodes": nodes or None,
            "devices": set("/dev/" + name for name, present in self.rng()["devices"].items() if present),
            "resctrl": resctrl.read_resctrl(self.reader) if rdt else None,
        }

    # -- everything ---------------------------------------------------

    def gather(self):
        kernel = self.kernel()
        meminfo, memory = self.memory()
        facts = {"root": self.root, "kernel": kernel}
        facts.update(self.sched_rt())
        facts["memory"] = memory
        facts["cpus"] = self.cpus(kernel["cmdline_args"])
        facts["irqs"] = self.irqs(facts["cpus"])
        facts["numa"] = self.numa()
        facts["hugepages"] = self.hugepages(meminfo)
        facts["thp"] = self.thp()
        facts["ksm"] = self.ksm()
        facts["iommu"] = self.iommu(kernel["cmdline_args"])
        facts["kvm"] = self.kvm()
        facts["rng"] = self.rng()
        facts["resctrl"] = resctrl.read_resctrl(self.reader)
        facts["time_sync"] = timesync.read_time_sync(self.reader)
        facts.update(evaluate(facts))
        return facts


def gather_node_facts(root="/"):
    """Return ``(facts, warnings)`` for the host tree at ``root``."""
    gatherer = NodeFacts(root)
    facts = gatherer.gather()
    return facts, list(gatherer.warnings)
