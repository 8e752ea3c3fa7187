#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: rt_node_facts
short_description: Gather the real-time readiness facts of a KVM host
version_added: 0.1.0
description:
  - Reads C(/proc) and C(/sys) (plain file reads, no commands) and returns
    C(ansible_facts.rt_node) - kernel and preemption model, parsed kernel
    command line, real-time throttling, CPU topology and isolation, NUMA
    nodes, hugepages, transparent hugepages, KSM, IOMMU, KVM and random
    number sources.
  - Reports time synchronisation as C(time_sync) - each network interface's
    timestamping capabilities and PTP hardware clock as C(ethtool -T) shows them,
    the time daemons that run (C(ptp4l), C(phc2sys), C(ts2phc), C(timemaster),
    C(chronyd), C(ntpd), C(systemd-timesyncd)) and the clocksource. On the live
    host the capabilities come from the kernel through the C(SIOCETHTOOL) ioctl
    (C(ETHTOOL_GET_TS_INFO)), a read that changes nothing; in a captured tree
    only the PTP hardware clock can be read (from sysfs).
  - Evaluates a real-time readiness checklist from those facts and returns
    it as C(realtime_checks), with C(realtime_ready) and plain-language
    C(realtime_blockers) that each end with their fix.
  - Returns the node labels KubeVirt's node labeller would set
    (C(kubevirt.io/realtime) only when C(kernel.sched_rt_runtime_us) is C(-1)).
  - A file that is missing or cannot be read leaves the facts that depend
    on it as C(null) (or out of a list) and adds a warning; the module does
    not fail for it.
  - With O(root) the module reads a captured host tree (an unpacked
    sosreport, a chroot, a test fixture) instead of the live host.
author:
  - realtime.virt contributors (!UNKNOWN)
extends_documentation_fragment:
  - realtime.virt.attributes.info
  - realtime.virt.attributes.facts
  - realtime.virt.host_root
notes:
  - The preemption model comes from C(/sys/kernel/realtime), the words of
    C(/proc/sys/kernel/version), debugfs C(/sys/kernel/debug/sched/preempt)
    when debugfs is mounted, the C(preempt=) boot argument and
    C(/boot/config-<release>), in that order.
  - CPU flags are those of the first processor listed in C(/proc/cpuinfo).
  - The time daemons are found by the C(comm) of each process in C(/proc), which the kernel cuts
    to 15 characters (C(systemd-timesyn)); ntpd, NTPsec and OpenNTPD all run as C(ntpd).
seealso:
  - name: KubeVirt real-time support (node labeller rule)
    description: KubeVirt labels a node C(kubevirt.io/realtime) only when C(kernel.sched_rt_runtime_us) is C(-1).
    link: https://github.com/kubevirt/kubevirt/pull/6182
  - name: Kernel parameters (isolcpus, nohz_full, rcu_nocbs, irqaffinity)
    description: The kernel's documentation of the boot arguments the checklist looks for.
    link: https://docs.kernel.org/admin-guide/kernel-parameters.html
"""

EXAMPLES = r"""
- name: Gather the real-time facts of this host
  realtime.virt.rt_node_facts:

- name: Stop when the host cannot run real-time guests
  ansible.builtin.assert:
    that: ansible_facts.rt_node.realtime_ready
    fail_msg: "{{ ansible_facts.rt_node.realtime_blockers | join(' ') }}"

- name: Show the isolated and housekeeping CPUs
  ansible.builtin.debug:
    msg: >-
      isolated {{ ansible_facts.rt_node.cpus.isolated_cpuset }},
      housekeeping {{ ansible_facts.rt_node.cpus.housekeeping_cpuset }}

- name: Read a host tree captured in a sosreport
  realtime.virt.rt_node_facts:
    root: /srv/sosreports/host1
  delegate_to: localhost
"""

RETURN = r"""
ansible_facts:
  description: Facts added to the host.
  returned: always
  type: dict
  contains:
    rt_node:
      description:
        - Real-time facts of the host.
        - Values that could not be read are C(null); a warning names the file.
      returned: always
      type: dict
      contains:
        root:
          description: Absolute path of the tree that was read (V(/) for the live host).
          type: str
          returned: always
          sample: /
        kernel:
          description: Kernel identity, preemption model and boot arguments.
          type: dict
          returned: always
          contains:
            release:
              description: C(/proc/sys/kernel/osrelease).
              type: str
              returned: always
              sample: 6.1.0-28-rt-amd64
            version:
              description: C(/proc/sys/kernel/version).
              type: str
              returned: always
              sample: "#1 SMP PREEMPT_RT Debian 6.1.119-1 (2024-11-22)"
            preempt_model:
              description:
                - Preemption model. One of V(rt), V(full), V(lazy), V(voluntary), V(none),
                  V(dynamic-none), V(dynamic-voluntary), V(dynamic-full), V(dynamic-lazy)
                  (a C(PREEMPT_DYNAMIC) kernel whose current mode is known),
                  V(dynamic) (a C(PREEMPT_DYNAMIC) kernel whose mode cannot be read),
                  V(none-or-voluntary) (a non-preemptible build whose config cannot be read),
                  or C(null) when the version is unreadable.
              type: str
              returned: always
              sample: rt
            preempt_rt:
              description: Whether the kernel is a C(PREEMPT_RT) kernel (C(null) when unknown).
              type: bool
              returned: always
              sample: true
            cmdline:
              description: C(/proc/cmdline) as the kernel wrote it.
              type: str
              returned: always
              sample: BOOT_IMAGE=/boot/vmlinuz root=/dev/sda1 ro isolcpus=managed_irq,domain,2-15 nohz_full=2-15
            cmdline_args:
              description:
                - Kernel arguments (before a lone C(--)) by name. C(name=value) gives the
                  string value, a bare flag gives V(true), a name given more than once gives
                  the list of its values in order. Double quotes are removed.
              type: dict
              returned: always
              sample: {"BOOT_IMAGE": "/boot/vmlinuz", "ro": true, "isolcpus": "managed_irq,domain,2-15", "console": ["tty0", "ttyS0"]}
            cmdline_list:
              description: Kernel arguments as a list of words, in order (quotes removed).
              type: list
              elements: str
              returned: always
              sample: ["BOOT_IMAGE=/boot/vmlinuz", "ro", "isolcpus=managed_irq,domain,2-15"]
            init_args:
              description: Words after a lone C(--), which the kernel passes to init.
              type: list
              elements: str
              returned: always
              sample: []
        sched_rt_runtime_us:
          description: C(kernel.sched_rt_runtime_us); V(-1) means real-time throttling is off.
          type: int
          returned: always
          sample: -1
        sched_rt_period_us:
          description: C(kernel.sched_rt_period_us).
          type: int
          returned: always
          sample: 1000000
        memory:
          description: System memory from C(/proc/meminfo), in KiB.
          type: dict
          returned: always
          sample: {"total_kb": 24683568, "free_kb": 23929660, "available_kb": 24260044}
          contains:
            total_kb:
              description: C(MemTotal).
              type: int
              returned: always
            free_kb:
              description: C(MemFree).
              type: int
              returned: always
            available_kb:
              description: C(MemAvailable).
              type: int
              returned: always
        cpus:
          description: CPU sets, topology and flags. Every C(*_cpuset) value is the compact string of the list beside it.
          type: dict
          returned: always
          contains:
            count:
              description: Number of online CPUs.
              type: int
              returned: always
              sample: 32
            online:
              description: Online CPU ids (C(/sys/devices/system/cpu/online)).
              type: list
              elements: int
              returned: always
              sample: [0, 1, 2, 3]
            online_cpuset:
              description: RV(ansible_facts.rt_node.cpus.online) as a cpuset string.
              type: str
              returned: always
              sample: 0-31
            possible:
              description: Possible CPU ids (C(/sys/devices/system/cpu/possible)).
              type: list
              elements: int
              returned: always
              sample: [0, 1, 2, 3]
            possible_cpuset:
              description: Possible CPUs as a cpuset string.
              type: str
              returned: always
              sample: 0-31
            present:
              description: Present CPU ids (C(/sys/devices/system/cpu/present)).
              type: list
              elements: int
              returned: always
              sample: [0, 1, 2, 3]
            present_cpuset:
              description: Present CPUs as a cpuset string.
              type: str
              returned: always
              sample: 0-31
            isolated:
              description: CPUs the kernel isolated from scheduler domains (C(/sys/devices/system/cpu/isolated)).
              type: list
              elements: int
              returned: always
              sample: [2, 3]
            isolated_cpuset:
              description: Isolated CPUs as a cpuset string (empty when none).
              type: str
              returned: always
              sample: 2-15,18-31
            nohz_full:
              description:
                - Tickless CPUs (C(/sys/devices/system/cpu/nohz_full)).
                - Empty when the kernel has no such file (built without C(NO_HZ_FULL)).
              type: list
              elements: int
              returned: always
              sample: [2, 3]
            nohz_full_cpuset:
              description: Tickless CPUs as a cpuset string.
              type: str
              returned: always
              sample: 2-15,18-31
            rcu_nocbs:
              description: CPUs of the C(rcu_nocbs=) boot argument; C(null) when it is not given.
              type: list
              elements: int
              returned: always
              sample: [2, 3]
            rcu_nocbs_cpuset:
              description: C(rcu_nocbs=) CPUs as a cpuset string; C(null) when not given.
              type: str
              returned: always
              sample: 2-15,18-31
            isolcpus:
              description: The C(isolcpus=) boot argument split into flags and CPUs; C(null) when not given.
              type: dict
              returned: always
              sample: {"flags": ["managed_irq", "domain"], "cpus": [2, 3], "cpuset": "2-3"}
              contains:
                flags:
                  description: Leading flags (V(domain) when none is given, as the kernel assumes).
                  type: list
                  elements: str
                  returned: always
                cpus:
                  description: CPU ids.
                  type: list
                  elements: int
                  returned: always
                cpuset:
                  description: CPU ids as a cpuset string.
                  type: str
                  returned: always
            housekeeping:
              description: Online CPUs that are neither isolated nor tickless, left for the host.
              type: list
              elements: int
              returned: always
              sample: [0, 1, 16, 17]
            housekeeping_cpuset:
              description: Housekeeping CPUs as a cpuset string.
              type: str
              returned: always
              sample: 0-1,16-17
            irq_default_affinity:
              description: CPUs of C(/proc/irq/default_smp_affinity) (where new interrupts may go); C(null) when unreadable.
              type: list
              elements: int
              returned: always
              sample: [0, 1, 16, 17]
            irq_default_affinity_cpuset:
              description: Default IRQ affinity as a cpuset string.
              type: str
              returned: always
              sample: 0-1,16-17
            smt_active:
              description: C(/sys/devices/system/cpu/smt/active) as a boolean; C(null) when absent.
              type: bool
              returned: always
              sample: true
            workqueue_cpus:
              description: CPUs of C(/sys/devices/virtual/workqueue/cpumask) (where unbound kernel work may run); C(null) when absent.
              type: list
              elements: int
              returned: always
              sample: [0, 1, 16, 17]
            workqueue_cpuset:
              description: The workqueue cpumask as a cpuset string.
              type: str
              returned: always
              sample: 0-1,16-17
            socket_count:
              description: Number of CPU packages with online CPUs.
              type: int
              returned: always
              sample: 2
            sockets:
              description: One entry per CPU package.
              type: list
              elements: dict
              returned: always
              sample: [{"id": 0, "cpus": [0, 1, 2, 3], "cpuset": "0-3", "core_count": 2}]
              contains:
                id:
                  description: C(physical_package_id).
                  type: int
                  returned: always
                cpus:
                  description: Online CPUs of the package.
                  type: list
                  elements: int
                  returned: always
                cpuset:
                  description: Those CPUs as a cpuset string.
                  type: str
                  returned: always
                core_count:
                  description: Physical cores of the package.
                  type: int
                  returned: always
            cores:
              description: Number of physical cores (distinct package and C(core_id) pairs).
              type: int
              returned: always
              sample: 16
            threads_per_core:
              description: Largest number of hardware threads on one core.
              type: int
              returned: always
              sample: 2
            smt_siblings:
              description: Groups of CPUs that share a core (C(thread_siblings_list)), sorted by first CPU.
              type: list
              elements: list
              returned: always
              sample: [[0, 16], [1, 17]]
            flags:
              description: CPU flags that matter for real time and virtualization (first processor of C(/proc/cpuinfo)).
              type: dict
              returned: always
              sample: {"tsc_deadline": true, "constant_tsc": true, "nonstop_tsc": true, "pdpe1gb": true, "vmx": true, "svm": false}
              contains:
                tsc_deadline:
                  description: C(tsc_deadline_timer) flag.
                  type: bool
                  returned: always
                constant_tsc:
                  description: C(constant_tsc) flag.
                  type: bool
                  returned: always
                nonstop_tsc:
                  description: C(nonstop_tsc) flag.
                  type: bool
                  returned: always
                pdpe1gb:
                  description: C(pdpe1gb) flag (1G pages possible).
                  type: bool
                  returned: always
                vmx:
                  description: Intel VT-x.
                  type: bool
                  returned: always
                svm:
                  description: AMD-V.
                  type: bool
                  returned: always
            virtualization:
              description: V(vmx), V(svm) or V(none); C(null) when C(/proc/cpuinfo) is unreadable.
              type: str
              returned: always
              sample: vmx
        irqs:
          description:
            - Interrupts of C(/proc/irq/<N>) and those delivered to isolated CPUs (the C(isolated) and C(nohz_full) ones).
            - An interrupt is kernel-managed when debugfs says C(IRQD_AFFINITY_MANAGED) or its C(smp_affinity) is
              read-only; one that is no MSI/MSI-X vector never is; otherwise C(kernel_managed) is C(null) (unknown).
              M(realtime.virt.rt_isolation_info) documents the rule.
          type: dict
          returned: always
          sample: {"count": 19, "kernel_managed": 1, "on_isolated": [{"irq": 36, "devices": ["virtio1-req.0"],
                   "pci": "0000:00:02.0", "effective_cpuset": "1", "kernel_managed": true}]}
          contains:
            count:
              description: Number of interrupts.
              type: int
              returned: always
            kernel_managed:
              description: How many of them the kernel manages.
              type: int
              returned: always
            on_isolated:
              description: Each interrupt whose effective affinity holds isolated CPUs - C(irq), C(devices), C(pci), C(effective_cpuset), C(kernel_managed).
              type: list
              elements: dict
              returned: always
        numa:
          description: NUMA nodes from C(/sys/devices/system/node).
          type: dict
          returned: always
          contains:
            node_count:
              description: Number of nodes.
              type: int
              returned: always
              sample: 2
            nodes:
              description: One entry per node, by id.
              type: list
              elements: dict
              returned: always
              sample:
                - id: 0
                  cpus: [0, 1]
                  cpuset: "0-1"
                  memory_total_kb: 67108864
                  memory_free_kb: 65011712
                  hugepages: {"2048kB": {"size_kb": 2048, "total": 512, "free": 512, "surplus": 0}}
              contains:
                id:
                  description: Node id.
                  type: int
                  returned: always
                cpus:
                  description: CPUs of the node.
                  type: list
                  elements: int
                  returned: always
                cpuset:
                  description: CPUs of the node as a cpuset string.
                  type: str
                  returned: always
                memory_total_kb:
                  description: C(MemTotal) of the node.
                  type: int
                  returned: always
                memory_free_kb:
                  description: C(MemFree) of the node.
                  type: int
                  returned: always
                hugepages:
                  description:
                    - Per page size, keyed by the kernel's name without its prefix (V(2048kB), V(1048576kB)).
                    - Each value has C(size_kb), C(total) (C(nr_hugepages)), C(free) and C(surplus).
                  type: dict
                  returned: always
        hugepages:
          description: System-wide hugepages.
          type: dict
          returned: always
          contains:
            default_size_kb:
              description: C(Hugepagesize) of C(/proc/meminfo).
              type: int
              returned: always
              sample: 2048
            sizes:
              description:
                - Per page size from C(/sys/kernel/mm/hugepages), keyed like the node entries (V(2048kB)).
                - Each value has C(size_kb), C(total), C(free), C(reserved), C(surplus) and C(overcommit).
              type: dict
              returned: always
              sample: {"2048kB": {"size_kb": 2048, "total": 8, "free": 8, "reserved": 0, "surplus": 0, "overcommit": 0}}
            allocated_kb:
              description: Memory held in hugepages of all sizes, in KiB.
              type: int
              returned: always
              sample: 16384
            mounts:
              description: hugetlbfs mounts of C(/proc/mounts); C(null) when it is unreadable.
              type: list
              elements: dict
              returned: always
              sample: [{"path": "/dev/hugepages", "pagesize_kb": 2048}]
              contains:
                path:
                  description: Mount point.
                  type: str
                  returned: always
                pagesize_kb:
                  description: Page size it serves (its C(pagesize=) option, else the default size).
                  type: int
                  returned: always
        thp:
          description: Transparent hugepages (the selected word of each file); C(null) values when THP is not built in.
          type: dict
          returned: always
          sample: {"enabled": "never", "defrag": "madvise"}
          contains:
            enabled:
              description: Selected value of C(transparent_hugepage/enabled).
              type: str
              returned: always
            defrag:
              description: Selected value of C(transparent_hugepage/defrag).
              type: str
              returned: always
        ksm:
          description: Kernel same-page merging.
          type: dict
          returned: always
          sample: {"run": 0, "running": false}
          contains:
            run:
              description: C(/sys/kernel/mm/ksm/run) (V(0) stopped, V(1) running, V(2) unmerging); C(null) without KSM.
              type: int
              returned: always
            running:
              description: Whether KSM is merging pages.
              type: bool
              returned: always
        iommu:
          description: IOMMU state.
          type: dict
          returned: always
          sample: {"enabled": true, "group_count": 24, "units": ["dmar0", "dmar1"], "cmdline": {"intel_iommu": "on", "iommu": "pt"}}
          contains:
            enabled:
              description: Whether IOMMU groups exist (C(/sys/kernel/iommu_groups) is not empty).
              type: bool
              returned: always
            group_count:
              description: Number of IOMMU groups.
              type: int
              returned: always
            units:
              description: IOMMU hardware units (C(/sys/class/iommu) entries).
              type: list
              elements: str
              returned: always
            cmdline:
              description: IOMMU boot arguments given (C(intel_iommu), C(amd_iommu), C(iommu), C(iommu.passthrough), C(iommu.strict)).
              type: dict
              returned: always
        kvm:
          description: KVM availability.
          type: dict
          returned: always
          sample: {"device_present": true, "modules": {"kvm": true, "kvm_intel": true, "kvm_amd": false}, "nested": true,
                   "parameters": {"kvm.halt_poll_ns": "200000"}}
          contains:
            device_present:
              description: Whether C(/dev/kvm) exists.
              type: bool
              returned: always
            modules:
              description: Whether C(kvm), C(kvm_intel) and C(kvm_amd) are loaded (present in C(/sys/module)).
              type: dict
              returned: always
            nested:
              description: Nested virtualization of the vendor module; C(null) when unknown.
              type: bool
              returned: always
            parameters:
              description:
                - Latency-relevant module parameters as the kernel shows them, keyed C(module.parameter)
                  (C(kvm.halt_poll_ns), C(kvm.kvmclock_periodic_sync), C(kvm.nx_huge_pages),
                  C(kvm.lapic_timer_advance_ns), C(kvm_intel.ple_gap)) when present.
              type: dict
              returned: always
        rng:
          description: Random number sources.
          type: dict
          returned: always
          sample: {"available": ["virtio_rng.0"], "current": "virtio_rng.0", "devices": {"random": true, "urandom": true, "hwrng": true},
                   "default_backend": "/dev/random"}
          contains:
            available:
              description: Hardware RNGs of C(/sys/class/misc/hw_random/rng_available).
              type: list
              elements: str
              returned: always
            current:
              description: Hardware RNG in use (C(rng_current)); C(null) when none.
              type: str
              returned: always
            devices:
              description: Presence of C(/dev/random), C(/dev/urandom) and C(/dev/hwrng).
              type: dict
              returned: always
            default_backend:
              description: Backend a virtio-rng device would use, V(/dev/random) where present, else V(/dev/urandom).
              type: str
              returned: always
        resctrl:
          description:
            - Intel RDT as the kernel shows it, for cache and memory bandwidth allocation (the C(cachetune) and
              C(memorytune) options of M(realtime.virt.libvirt_rt_domain)). The readiness check
              C(cache_allocation) says whether domains can get cache ways and how to enable it.
          type: dict
          returned: always
          sample: {"cpu_flags": {"rdt_a": true, "cat_l3": true, "cat_l2": false, "cdp_l3": true, "mba": true},
                   "mounted": true, "path": "/sys/fs/resctrl",
                   "resources": {"L3": {"cbm_mask": 2047, "min_cbm_bits": 1, "num_closids": 16, "shareable_bits": 0,
                                        "ways": 11},
                                 "MB": {"min_bandwidth": 10, "bandwidth_gran": 10, "num_closids": 8}},
                   "caches": [{"level": 3, "type": "both", "id": 0, "size_kb": 22528, "cpus": [0, 1],
                               "cpuset": "0-1"}]}
          contains:
            cpu_flags:
              description: The CPU flags C(rdt_a), C(cat_l3), C(cat_l2), C(cdp_l3) and C(mba) of C(/proc/cpuinfo).
              type: dict
              returned: always
            mounted:
              description: Whether a resctrl filesystem is mounted (C(/proc/mounts)).
              type: bool
              returned: always
            path:
              description: Where it is mounted; C(null) when it is not.
              type: str
              returned: always
            resources:
              description:
                - Per resctrl resource of C(<path>/info) (C(L3), C(L2), with CDP C(L3CODE) and C(L3DATA), C(MB)),
                  its files as numbers (C(cbm_mask) and C(shareable_bits) read as hexadecimal) and, for a cache,
                  C(ways) (the bits of C(cbm_mask)). Empty when resctrl is not mounted.
              type: dict
              returned: always
            caches:
              description:
                - Each cache once, from C(/sys/devices/system/cpu/cpu*/cache/index*) - C(level), C(type)
                  (libvirt's V(both), V(code), V(data)), C(id), C(size_kb) and the CPUs sharing it.
              type: list
              elements: dict
              returned: always
        time_sync:
          description:
            - Time synchronisation of the host - what each network interface can timestamp, its PTP
              hardware clock (PHC), the time daemons that run and the clocksource. The readiness
              check C(time_sync) says whether PTP runs with a hardware clock and how to get there.
            - Files a tree lacks leave their part C(null) without a warning.
          type: dict
          returned: always
          sample:
            interfaces:
              - name: eth0
                hardware_transmit: true
                hardware_receive: true
                hardware_raw_clock: true
                software_transmit: true
                software_receive: true
                software_system_clock: true
                phc_index: 2
                phc_device: /dev/ptp2
                source: kernel
                error: null
            daemons: {"ptp4l": [812], "phc2sys": [813], "ts2phc": [], "timemaster": [], "chronyd": [],
                      "ntpd": [], "systemd-timesyncd": []}
            processes: [{"name": "ptp4l", "pid": 812, "cpus_allowed": [0, 1], "policy": "SCHED_FIFO", "priority": 10},
                        {"name": "phc2sys", "pid": 813, "cpus_allowed": [0, 1], "policy": "SCHED_FIFO", "priority": 10}]
            ptp_running: true
            synchronised_by: ["ptp4l", "phc2sys"]
            clocksource: {"current": "tsc", "available": ["tsc", "hpet", "acpi_pm"], "kvm_clock": false}
            hardware_clock: true
          contains:
            interfaces:
              description:
                - One entry per network interface of C(/sys/class/net) but C(lo), sorted by name.
                - On the live host every value comes from the kernel (C(SIOCETHTOOL) with
                  C(ETHTOOL_GET_TS_INFO), the C(SOF_TIMESTAMPING_*) bits C(ethtool -T) prints).
                  In a captured tree (O(root) is not V(/)) no kernel can be asked - the six
                  capabilities are C(null) and the PHC comes from C(/sys/class/net/<if>/device/ptp/ptpN).
                - When the kernel refuses the request C(error) names why; the capabilities are then
                  C(null) (unknown), except the three hardware ones, which are V(false) for
                  C(EOPNOTSUPP) (the driver tells nothing, so nothing can use its hardware timestamps).
              type: list
              elements: dict
              returned: always
              contains:
                name:
                  description: Interface name.
                  type: str
                  returned: always
                  sample: eth0
                hardware_transmit:
                  description: C(SOF_TIMESTAMPING_TX_HARDWARE) (ethtool's C(hardware-transmit)); C(null) when unknown.
                  type: bool
                  returned: always
                  sample: true
                hardware_receive:
                  description: C(SOF_TIMESTAMPING_RX_HARDWARE) (C(hardware-receive)); C(null) when unknown.
                  type: bool
                  returned: always
                  sample: true
                hardware_raw_clock:
                  description: C(SOF_TIMESTAMPING_RAW_HARDWARE) (C(hardware-raw-clock)); C(null) when unknown.
                  type: bool
                  returned: always
                  sample: true
                software_transmit:
                  description: C(SOF_TIMESTAMPING_TX_SOFTWARE) (C(software-transmit)); C(null) when unknown.
                  type: bool
                  returned: always
                  sample: true
                software_receive:
                  description: C(SOF_TIMESTAMPING_RX_SOFTWARE) (C(software-receive)); C(null) when unknown.
                  type: bool
                  returned: always
                  sample: true
                software_system_clock:
                  description: C(SOF_TIMESTAMPING_SOFTWARE) (C(software-system-clock)); C(null) when unknown.
                  type: bool
                  returned: always
                  sample: true
                phc_index:
                  description:
                    - N of the interface's PTP hardware clock C(/dev/ptpN); C(null) when it has none
                      (the kernel's V(-1), what ethtool prints as C(PTP Hardware Clock - none)) or it is unknown.
                  type: int
                  returned: always
                  sample: 2
                phc_device:
                  description: The PHC's device, C(/dev/ptp<phc_index>); C(null) without one.
                  type: str
                  returned: always
                  sample: /dev/ptp2
                source:
                  description: Where the values come from, V(kernel) (the ioctl, live host) or V(sysfs) (a captured tree).
                  type: str
                  returned: always
                  sample: kernel
                error:
                  description:
                    - "The error the kernel gave the request, its code and text, such as V(EOPNOTSUPP: Operation not supported)
                      or V(ENODEV: No such device); C(null) when it answered."
                  type: str
                  returned: always
                  sample: null
            daemons:
              description:
                - The PIDs of each time daemon found in C(/proc/<pid>/comm), keyed V(ptp4l), V(phc2sys),
                  V(ts2phc), V(timemaster), V(chronyd), V(ntpd) (also NTPsec and OpenNTPD),
                  V(systemd-timesyncd); an empty list for one that does not run.
                - C(null) when the tree lists no process under C(/proc) (a captured tree).
              type: dict
              returned: always
              sample: {"ptp4l": [812], "phc2sys": [813], "ts2phc": [], "timemaster": [], "chronyd": [], "ntpd": [],
                       "systemd-timesyncd": []}
            processes:
              description:
                - Each running PTP daemon (V(ptp4l), V(phc2sys), V(ts2phc), V(timemaster)) with the CPUs it may run
                  on (C(Cpus_allowed_list) of C(/proc/<pid>/status)) and its scheduling policy and real-time
                  priority (C(/proc/<pid>/stat)); rt_validate checks that none may run on an isolated CPU.
                - C(null) when the tree lists no process under C(/proc).
              type: list
              elements: dict
              returned: always
              sample: [{"name": "ptp4l", "pid": 812, "cpus_allowed": [0, 1], "policy": "SCHED_FIFO", "priority": 10}]
            ptp_running:
              description: Whether C(ptp4l) runs; C(null) when the processes are unknown.
              type: bool
              returned: always
              sample: true
            synchronised_by:
              description:
                - The running daemons that steer a clock of the host, in the order V(ptp4l), V(phc2sys),
                  V(chronyd), V(ntpd), V(systemd-timesyncd); empty when none runs, C(null) when the
                  processes are unknown.
              type: list
              elements: str
              returned: always
              sample: ["ptp4l", "phc2sys"]
            clocksource:
              description: The kernel's clocksource, C(/sys/devices/system/clocksource/clocksource0).
              type: dict
              returned: always
              sample: {"current": "tsc", "available": ["tsc", "kvm-clock"], "kvm_clock": true}
              contains:
                current:
                  description: C(current_clocksource); C(null) when unreadable.
                  type: str
                  returned: always
                  sample: tsc
                available:
                  description: The words of C(available_clocksource); C(null) when unreadable.
                  type: list
                  elements: str
                  returned: always
                  sample: ["tsc", "kvm-clock"]
                kvm_clock:
                  description: Whether V(kvm-clock) is available (the host is a guest on KVM); C(null) when unknown.
                  type: bool
                  returned: always
                  sample: true
            hardware_clock:
              description: Whether any interface has a PTP hardware clock (a C(phc_index) that is not C(null)).
              type: bool
              returned: always
              sample: true
        realtime_ready:
          description: Whether every blocking check passed.
          type: bool
          returned: always
          sample: false
        realtime_checks:
          description:
            - The readiness checklist, in a fixed order. Ids are stable; C(blocker) checks decide RV(ansible_facts.rt_node.realtime_ready).
            - "Blocking: V(sched_rt_runtime), V(isolated_cpus), V(housekeeping_cpus), V(hugepages_allocated), V(kvm_device),
              V(virtualization_flag)."
            - "Warnings: V(nohz_full_covers_isolated), V(rcu_nocbs_covers_isolated) (CPUs in nohz_full count as covered, as
              the kernel offloads them too), V(irq_affinity), V(irqs_avoid_isolated) (no interrupt but kernel-managed
              ones delivered to isolated CPUs), V(workqueue_avoids_isolated), V(hugetlbfs_mounted), V(iommu_enabled), V(preempt_rt),
              V(thp_not_always), V(tsc_deadline), V(constant_tsc), V(ksm_off), V(timer_kernel_args), V(cache_allocation),
              V(time_sync) (PTP, C(ptp4l), runs and an interface has a PTP hardware clock)."
            - A check whose input could not be read is not ready and says so in C(observed).
          type: list
          elements: dict
          returned: always
          sample:
            - id: sched_rt_runtime
              title: Real-time throttling disabled (kernel.sched_rt_runtime_us = -1)
              blocker: true
              ready: false
              observed: kernel.sched_rt_runtime_us = 950000
              problem: "Real-time throttling is on (kernel.sched_rt_runtime_us = 950000): ..."
              fix: "set kernel.sched_rt_runtime_us=-1 now with 'sysctl -w kernel.sched_rt_runtime_us=-1' and ..."
          contains:
            id:
              description: Stable snake_case id.
              type: str
              returned: always
            title:
              description: What the check wants.
              type: str
              returned: always
            blocker:
              description: Whether a failure makes the host not ready.
              type: bool
              returned: always
            ready:
              description: Whether the check passed.
              type: bool
              returned: always
            observed:
              description: What was found.
              type: str
              returned: always
            problem:
              description: Plain-language statement of the problem when not ready.
              type: str
              returned: always
            fix:
              description: How to fix it, naming the setting and the collection role that applies it.
              type: str
              returned: always
        realtime_blockers:
          description: One sentence per failed blocking check, its problem followed by C(Fix:) and the fix.
          type: list
          elements: str
          returned: always
          sample:
            - "Real-time throttling is on (kernel.sched_rt_runtime_us = 950000): ... Fix: set kernel.sched_rt_runtime_us=-1 now ..."
        kubevirt_labels:
          description:
            - Labels KubeVirt's node labeller would set. V(kubevirt.io/realtime) is V("true") exactly
              when C(kernel.sched_rt_runtime_us) is V(-1); otherwise the dict is empty.
          type: dict
          returned: always
          sample: {"kubevirt.io/realtime": "true"}
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.realtime.virt.plugins.module_utils._common.options import root_argument_spec
from ansible_collections.realtime.virt.plugins.module_utils._common.runner import exit_read
from ansible_collections.realtime.virt.plugins.module_utils._node.gather import gather_node_facts


def main():
    module = AnsibleModule(
        argument_spec=root_argument_spec(),
        supports_check_mode=True,
    )
    exit_read(module, "rt_node_facts", gather_node_facts, lambda facts: {"ansible_facts": {"rt_node": facts}})


if __name__ == "__main__":
    main()
