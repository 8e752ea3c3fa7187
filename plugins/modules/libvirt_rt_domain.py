#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: libvirt_rt_domain
short_description: Declarative, idempotent real-time libvirt domains
version_added: 0.1.0
description:
  - Defines, starts, stops and removes a libvirt domain tuned for real-time
    work (pinned vCPUs, an isolated emulator thread, FIFO/RR vCPU
    scheduling, hugepage backing, locked memory, no PMU, NUMA placement,
    virtio-rng, PCI passthrough).
  - The domain XML is rendered from the options, or the elements the options
    own are merged into O(base_xml) child by child, keeping every other
    element and attribute of the base. It is compared with libvirt's current
    B(inactive) definition element by element; values libvirt fills in by
    default are not differences. The domain is defined only on a real
    difference, with libvirt's validation flag, keeping its UUID and MAC
    addresses.
  - Check mode changes nothing and predicts C(changed) exactly; diff mode
    shows libvirt's inactive XML before and the same XML with the change
    applied after, so only the lines that change differ.
  - Options are checked against the host (online CPUs, hugepage sizes, NUMA
    nodes, RNG devices) before anything is touched when O(uri) is local.
author:
  - realtime.virt contributors (!UNKNOWN)
requirements:
  - lxml
extends_documentation_fragment:
  - realtime.virt.attributes
  - realtime.virt.attributes.actiongroup_libvirt
  - realtime.virt.libvirt_connection
notes:
  - Real-time domains lock their memory by default (O(memory.locked)). libvirt
    then raises the memory lock limit of the qemu process, which needs
    C(CAP_SYS_RESOURCE) or a high C(LimitMEMLOCK) for the libvirt daemon; on
    hosts without it, start fails and the module says so. Set
    O(memory.locked=false) there.
  - O(state=stopped), O(state=absent) and O(restart=true) power the domain
    off at once (libvirt's destroy), they do not wait for a guest shutdown.
  - See the collection's C(docs/libvirt_rt_domain.md) for the KubeVirt mapping
    and the sources of the RNG profiles.
options:
  name:
    description: Name of the domain.
    type: str
    required: true
  state:
    description:
      - V(present) defines the domain (a running domain keeps running).
      - V(running) defines and starts it.
      - V(stopped) defines it and powers it off if it runs.
      - V(absent) powers it off if it runs and undefines it.
    type: str
    choices: [present, running, stopped, absent]
    default: present
  domain_type:
    description: Hypervisor type. Use V(qemu) (TCG) on hosts without usable KVM.
    type: str
    choices: [kvm, qemu]
    default: kvm
  machine:
    description:
      - Machine type, for example V(q35) or V(pc). Unset lets libvirt choose.
      - V(q35) and V(pc) match the versioned names libvirt stores (C(pc-q35-7.2)).
    type: str
  memory_mib:
    description: Guest memory in MiB. Required unless O(memory_kib) is given or O(base_xml) has a C(<memory>).
    type: int
  memory_kib:
    description:
      - Guest memory in KiB, libvirt's own unit, for a size that is not a whole number of MiB (a KubeVirt
        C(memory.guest) of V(1024M) is 1,000,000 KiB; P(realtime.virt.kubevirt_vm_to_rt_domain#filter) writes it then).
      - Give O(memory_mib) or O(memory_kib), not both. At least 1024.
    type: int
    version_added: 1.1.0
  vcpus:
    description: Number of vCPUs. Required unless O(base_xml) has a C(<vcpu>).
    type: int
  cpu:
    description: CPU model, placement and guest NUMA.
    type: dict
    suboptions:
      mode:
        description:
          - CPU mode. V(custom) needs O(cpu.model).
          - Defaults to V(host-passthrough) with O(domain_type=kvm) and to V(maximum)
            with O(domain_type=qemu), since TCG cannot pass the host CPU through
            (V(host-passthrough) with V(qemu) is refused).
        type: str
        choices: [host-passthrough, host-model, maximum, custom]
      model:
        description: CPU model name for O(cpu.mode=custom).
        type: str
      features:
        description: CPU features, for example C(tsc-deadline) with policy C(require).
        type: list
        elements: dict
        default: []
        suboptions:
          name:
            description: Feature name as libvirt knows it.
            type: str
            required: true
          policy:
            description: libvirt feature policy.
            type: str
            choices: [force, require, optional, disable, forbid]
            default: require
      topology:
        description: Guest CPU topology; sockets x cores x threads must equal O(vcpus).
        type: dict
        suboptions:
          sockets:
            description: Sockets.
            type: int
            default: 1
          cores:
            description: Cores per socket.
            type: int
            default: 1
          threads:
            description: Threads per core.
            type: int
            default: 1
      pinning:
        description:
          - Host CPUs each vCPU may run on (C(<vcpupin>)). A dedicated CPU per
            vCPU is what real-time needs (KubeVirt's C(dedicatedCpuPlacement)).
          - Every host CPU must be online.
        type: list
        elements: dict
        default: []
        suboptions:
          vcpu:
            description: vCPU id, from 0 to O(vcpus) - 1.
            type: int
            required: true
          cpuset:
            description: Host CPU set, for example C(2) or C(2-3,6).
            type: str
            required: true
      emulator_cpuset:
        description:
          - Host CPUs for the emulator threads (C(<emulatorpin>)); with O(cpu.emulator_policy=isolate), KubeVirt's
            C(isolateEmulatorThread).
          - The IO threads of O(iothreads) run there too.
        type: str
      emulator_policy:
        description:
          - Where the emulator threads (and the IO threads of O(iothreads)) run, in the words of the
            realtime.virt.rt_domain role's C(emulator) (which picks the CPUs and passes the same word).
          - V(housekeeping) pins them to O(cpu.emulator_cpuset) when it is given, else leaves them where the host's
            CPU isolation puts unpinned threads (its housekeeping CPUs).
          - V(isolate) pins them to CPUs of their own, O(cpu.emulator_cpuset), which must be given and may hold no
            CPU a vCPU is pinned to (KubeVirt's C(isolateEmulatorThread), Nova's
            C(hw:emulator_threads_policy=isolate)).
          - V(share) pins them to the host CPUs of the vCPUs outside O(realtime.mask), Nova's
            C(hw:emulator_threads_policy=share); those vCPUs must be pinned, and O(cpu.emulator_cpuset) is not given.
          - V(cpuset), this option's word for V(housekeeping) before 1.1.0, is deprecated and will be removed in
            2.0.0; it still works as V(housekeeping), with a deprecation warning.
        type: str
        choices: [housekeeping, isolate, share, cpuset]
        default: housekeeping
      numa:
        description: Guest NUMA topology.
        type: dict
        suboptions:
          passthrough:
            description:
              - One guest NUMA cell per host NUMA node the pinned vCPUs run on,
                with the cell's memory bound strictly to that node
                (KubeVirt's C(guestMappingPassthrough)). Needs every vCPU pinned.
            type: bool
            default: false
          cells:
            description: Explicit guest NUMA cells; their memory must add up to O(memory_mib).
            type: list
            elements: dict
            suboptions:
              cpus:
                description: vCPUs of the cell, for example C(0-1).
                type: str
                required: true
              memory_mib:
                description: Memory of the cell in MiB.
                type: int
                required: true
  realtime:
    description:
      - Real-time tuning. Giving O(realtime) (even as C({})) enables it unless
        O(realtime.enabled=false).
      - Enabled means C(<vcpusched>) over the vCPUs of O(realtime.mask),
        C(<pmu state="off"/>), C(<nosharepages/>) when hugepages back the memory,
        C(<locked/>) memory unless O(memory.locked=false) and no memory balloon.
      - Every vCPU in the mask must be pinned in O(cpu.pinning).
    type: dict
    suboptions:
      enabled:
        description: Whether the real-time tuning is applied.
        type: bool
        default: true
      mask:
        description:
          - vCPUs that get the real-time scheduler, in libvirt/KubeVirt syntax
            (C(0-3,^1)). Tokens are C(N), C(N-M) and C(^N); C(^N) removes N.
            Empty means all vCPUs; a mask of only exclusions removes them from all vCPUs.
        type: str
        default: ""
      scheduler:
        description: Real-time policy of the vCPU threads.
        type: str
        choices: [fifo, rr]
        default: fifo
      priority:
        description: Real-time priority, 1 to 99.
        type: int
        default: 1
  iothreads:
    description:
      - Number of IO threads (C(<iothreads>)). They are pinned with the emulator
        threads (C(<iothreadpin>)) when those are pinned. Give a disk one with
        O(disks[].iothread).
      - V(0) removes the IO threads. Unset leaves those of O(base_xml) as they are.
    type: int
  cachetune:
    description:
      - Intel RDT cache allocation (C(<cputune><cachetune>)) - each entry gives a set of vCPUs cache ways of
        their own, so other tenants of a shared cache cannot evict their working set.
      - On a local URI the request is checked against the host before libvirt is called; resctrl must be
        mounted, the size a whole number of ways (cache size / bits of C(cbm_mask)) between C(min_cbm_bits)
        ways and the cache less the C(min_cbm_bits) ways the default group keeps, and the groups fewer than
        C(num_closids). C(realtime.virt.rt_node_facts) reports the host's resctrl and how to enable it.
    type: list
    elements: dict
    suboptions:
      vcpus:
        description: vCPUs of the group, for example C(0-1). A vCPU is in one group at most.
        type: str
        required: true
      caches:
        description: The caches the group gets ways of.
        type: list
        elements: dict
        required: true
        suboptions:
          id:
            description: Cache id (C(/sys/devices/system/cpu/cpu*/cache/index*/id), the socket for an L3).
            type: int
            required: true
          level:
            description: Cache level.
            type: int
            default: 3
          type:
            description: V(both), or V(code) and V(data) where the host runs CDP (C(rdt=cdp_l3)).
            type: str
            choices: [both, code, data]
            default: both
          size:
            description: Size in O(cachetune[].caches[].unit).
            type: int
            required: true
          unit:
            description: Unit of the size (V(KiB), V(MiB)...).
            type: str
            default: KiB
  memorytune:
    description:
      - Intel RDT memory bandwidth allocation (C(<cputune><memorytune>)), per set of vCPUs; checked against
        the host's C(MB) resource (C(min_bandwidth), C(bandwidth_gran)) on a local URI.
    type: list
    elements: dict
    suboptions:
      vcpus:
        description: vCPUs of the group, for example C(0-1).
        type: str
        required: true
      nodes:
        description: Bandwidth per memory bandwidth domain (the L3 cache id).
        type: list
        elements: dict
        required: true
        suboptions:
          id:
            description: The L3 cache id of the domain.
            type: int
            required: true
          bandwidth:
            description: Percent of the domain's bandwidth, 1 to 100.
            type: int
            required: true
  hardening:
    description:
      - Guest settings that keep a real-time guest from being interrupted. On by
        default for real-time domains (O(realtime) given), off for the others;
        each part can be switched off. A second run with the same options changes nothing.
      - Defined domains that lack them are redefined on the next run; a running
        domain takes them at its next start (or with O(restart=true)).
    type: dict
    suboptions:
      enabled:
        description: Apply the hardening. Default is true for real-time domains and false for the others.
        type: bool
      hint_dedicated:
        description:
          - C(<features><kvm><hint-dedicated state="on"/></kvm></features>), which tells a Linux guest
            its vCPUs never share a host CPU, so it may poll instead of halting.
          - Unset means wherever it holds (O(domain_type=kvm), O(cpu.mode=host-passthrough), which libvirt
            requires for the hint, and every vCPU pinned to a host CPU of its own); V(true) where it does not hold
            is refused.
        type: bool
      timers:
        description:
          - The guest clock's timers (C(<clock><timer>)). Default is C(rtc) with tick policy C(catchup),
            C(pit) with C(delay) and C(hpet) not present, Nova's real-time timers.
          - V([]) writes no timer.
        type: list
        elements: dict
        suboptions:
          name:
            description: Timer name.
            type: str
            required: true
            choices: [platform, pit, rtc, hpet, tsc, kvmclock, hypervclock, armvtimer]
          tickpolicy:
            description: What the timer does with ticks the guest missed.
            type: str
            choices: [delay, catchup, merge, discard]
          present:
            description: Whether the guest sees the timer at all.
            type: bool
      guest_suspend:
        description: Let the guest suspend to RAM or disk. V(false) writes C(<pm>) with both off.
        type: bool
        default: false
      immediate_allocation:
        description:
          - Allocate all hugepage-backed memory when the domain starts
            (C(<memoryBacking><allocation mode="immediate"/>)), not at the guest's first touch.
          - Only with O(memory.hugepages).
        type: bool
        default: true
      strip_devices:
        description:
          - No USB controller (C(<controller type="usb" model="none"/>), unless a disk or a device of
            O(base_xml) is on USB), and no graphics or sound device unless O(base_xml) has one.
          - libvirt's PS/2 mouse and keyboard stay; x86 machines always have them.
          - Switching it off later does not bring back a USB controller; add one in O(base_xml).
        type: bool
        default: true
  memory:
    description: Memory backing and placement.
    type: dict
    suboptions:
      hugepages:
        description: Back guest memory with hugepages.
        type: dict
        suboptions:
          page_size:
            description: Page size, V(2M) or V(1G) (C(Mi), C(Gi) and C(k) suffixes are read too). The host must offer it.
            type: str
            default: 2M
          nodeset:
            description: Guest NUMA cells the page size applies to (all when unset).
            type: str
      locked:
        description:
          - Lock guest memory in host RAM (C(<locked/>)). Default is true when
            real-time is enabled, false otherwise.
          - Needs the memory lock limit raised for qemu; see the notes.
        type: bool
      numatune:
        description: Host NUMA policy for all guest memory.
        type: dict
        suboptions:
          mode:
            description: NUMA policy.
            type: str
            choices: [strict, preferred, interleave, restrictive]
            default: strict
          nodeset:
            description: Host NUMA nodes, for example C(0).
            type: str
            required: true
  rng:
    description:
      - A virtio-rng device. Unset means no device.
      - Explicit O(rng.backend), O(rng.rate) and O(rng.model) override the profile.
    type: dict
    suboptions:
      profile:
        description:
          - V(ovirt) or V(openstack) (the values those projects ship, see the
            collection docs) or a name from O(rng_profiles).
        type: str
        default: ovirt
      backend:
        description:
          - Host entropy source. Default C(/dev/random) where the host has it,
            else C(/dev/urandom). C(/dev/hwrng) uses a hardware RNG.
        type: str
      rate:
        description: Rate limit, O(rng.rate.bytes) per O(rng.rate.period) milliseconds.
        type: dict
        suboptions:
          period:
            description: Period in milliseconds (libvirt's default is 1000).
            type: int
          bytes:
            description: Bytes the guest may read per period.
            type: int
            required: true
      model:
        description: Device model.
        type: str
        choices: [virtio, virtio-transitional, virtio-non-transitional]
  rng_profiles:
    description:
      - Extra RNG profiles, name to a mapping of C(backend), C(rate)
        (C({period, bytes})) and C(model). They win over the built-in ones.
    type: dict
    default: {}
  hostdevs:
    description:
      - PCI devices passed through by address (C(0000:6b:00.1)), as
        C(<hostdev mode="subsystem" type="pci" managed="yes">). Addresses,
        unlike IOMMU group numbers, stay the same across reboots.
    type: list
    elements: str
    default: []
  boot:
    description: Direct kernel boot.
    type: dict
    suboptions:
      kernel:
        description: Path of the kernel image on the host.
        type: path
        required: true
      initrd:
        description: Path of the initramfs on the host.
        type: path
      cmdline:
        description: Kernel command line.
        type: str
  disks:
    description: File-backed disks, in order.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Image path on the host.
        type: path
        required: true
      bus:
        description: Disk bus.
        type: str
        choices: [virtio, scsi, sata, usb, ide]
        default: virtio
      format:
        description: Image format (C(raw), C(qcow2)).
        type: str
        default: raw
      target:
        description: Target device name; default C(vda), C(vdb)... by bus.
        type: str
      device:
        description: Disk or CD-ROM.
        type: str
        choices: [disk, cdrom]
        default: disk
      iothread:
        description: IO thread (1 to O(iothreads)) that serves this disk. Only for O(disks[].bus=virtio).
        type: int
  interfaces:
    description: Network interfaces, in order. An interface without O(interfaces[].mac) keeps the MAC libvirt gave it.
    type: list
    elements: dict
    default: []
    suboptions:
      network:
        description: libvirt network name (exclusive with O(interfaces[].bridge)).
        type: str
      bridge:
        description: Host bridge name.
        type: str
      model:
        description: NIC model.
        type: str
        default: virtio
      mac:
        description: MAC address.
        type: str
  serial_log:
    description: Write the guest's first serial port to this host file.
    type: path
  base_xml:
    description:
      - Existing domain XML to merge into. Inside each parent it shares with the
        module (C(cputune), C(memoryBacking), C(numatune), C(os), C(features),
        C(cpu), C(devices)), an option replaces only its own children, for example
        the C(vcpupin) of each vCPU in O(cpu.pinning), the C(vcpusched) of each
        real-time vCPU, C(pmu) and C(memballoon) with O(realtime), every C(rng)
        with O(rng), the C(hostdev) of each address in O(hostdevs).
      - Every other element and attribute of the base is kept as written (C(shares),
        C(period), C(quota), C(iothreadpin), C(iothreadsched), CPU models and other
        features, NUMA cells, devices the options do not name...). Where an option
        and a child of the base conflict, the option wins and the diff header names
        the child. The collection's C(docs/libvirt_rt_domain.md) lists every element
        each option owns.
    type: str
  restart:
    description:
      - When a running domain's definition changes, V(false) only redefines it
        and returns RV(pending_restart=true); V(true) restarts it (power off, start).
    type: bool
    default: false
  autostart:
    description:
      - Whether libvirt starts the domain when the libvirt daemon starts (libvirt's
        autostart flag, C(virsh autostart)), set with libvirt's C(setAutostart) call.
      - V(true) or V(false) sets the flag, without redefining the domain, and it is
        idempotent; unset (null) leaves it as it is, so a domain keeps what it has.
      - "The flag is kept beside the domain XML, not in it: RV(autostart) returns it, a
        change is listed in RV(differences), and in diff mode both sides of the diff
        start with a line C(<!-- autostart: on -->) or C(<!-- autostart: off -->) (the
        before side only when the domain exists)."
      - Works with O(state=present), O(state=running) and O(state=stopped). Refused with
        O(state=absent), since libvirt drops the flag with the definition.
    type: bool
"""

EXAMPLES = r"""
- name: The KubeVirt real-time example VM (2 vCPUs, realtime {}, 1Gi hugepages, dedicated CPUs, isolated emulator)
  realtime.virt.libvirt_rt_domain:
    name: vm-realtime
    state: running
    memory_mib: 3072
    vcpus: 2
    cpu:
      mode: host-passthrough
      topology: {sockets: 1, cores: 2, threads: 1}
      features:
        - name: tsc-deadline
          policy: require
      pinning:
        - {vcpu: 0, cpuset: "2"}
        - {vcpu: 1, cpuset: "3"}
      emulator_cpuset: "1"
      numa:
        passthrough: true
    realtime: {}
    memory:
      hugepages:
        page_size: 1G
    disks:
      - path: /var/lib/libvirt/images/centos8-realtime.qcow2
        format: qcow2

- name: Real-time only on vCPU 0 (mask 0-1,^1), RR priority 10, on a host without KVM or CAP_SYS_RESOURCE
  realtime.virt.libvirt_rt_domain:
    name: rt-tcg
    state: running
    domain_type: qemu
    memory_mib: 256
    vcpus: 2
    cpu:
      mode: maximum
      pinning:
        - {vcpu: 0, cpuset: "1"}
        - {vcpu: 1, cpuset: "0"}
      emulator_cpuset: "0"
    realtime:
      mask: "0-1,^1"
      scheduler: rr
      priority: 10
    memory:
      locked: false
      hugepages: {page_size: 2M}
    boot:
      kernel: /var/cache/guest/vmlinuz
      initrd: /var/cache/guest/initrd.img
      cmdline: console=ttyS0
    serial_log: /var/log/libvirt/qemu/rt-tcg-serial.log

- name: A virtio-rng from the OpenStack profile with an explicit rate
  realtime.virt.libvirt_rt_domain:
    name: vm1
    memory_mib: 1024
    vcpus: 1
    rng:
      profile: openstack
      rate: {period: 2000, bytes: 1234}

- name: A custom RNG profile on the hardware RNG
  realtime.virt.libvirt_rt_domain:
    name: vm1
    memory_mib: 1024
    vcpus: 1
    rng_profiles:
      lab: {backend: /dev/hwrng, rate: {period: 1000, bytes: 4096}}
    rng:
      profile: lab

- name: Pass a QAT VF through and merge the tuning into an existing definition
  realtime.virt.libvirt_rt_domain:
    name: crypto-vm
    base_xml: "{{ lookup('ansible.builtin.file', 'crypto-vm.xml') }}"
    hostdevs:
      - "0000:6b:00.1"
    cpu:
      pinning:
        - {vcpu: 0, cpuset: "4"}
        - {vcpu: 1, cpuset: "5"}
    realtime: {}
    memory:
      numatune: {mode: strict, nodeset: "0"}

- name: Apply a new definition to a running domain and restart it now
  realtime.virt.libvirt_rt_domain:
    name: vm-realtime
    state: running
    memory_mib: 3072
    vcpus: 2
    restart: true

- name: Start the domain now and whenever the libvirt daemon starts
  realtime.virt.libvirt_rt_domain:
    name: vm-realtime
    state: running
    autostart: true
    memory_mib: 3072
    vcpus: 2

- name: Remove a domain (powered off first when it runs)
  realtime.virt.libvirt_rt_domain:
    name: vm-realtime
    state: absent
"""

RETURN = r"""
changed:
  description: Whether the definition, the autostart flag or the run state changed (or would, in check mode).
  returned: always
  type: bool
xml:
  description:
    - The domain's inactive XML as libvirt now stores it; in check mode, when
      a definition would change, the XML that would be defined. Empty after removal.
  returned: always
  type: str
uuid:
  description: The domain's UUID (kept across redefinitions). Null when the domain does not exist.
  returned: always
  type: str
  sample: 5e3f0e3c-63b0-4e43-a4a1-3d7b3c1e9a11
pending_restart:
  description: The domain runs with an older definition than the one now defined; restart it (or use O(restart=true)).
  returned: always
  type: bool
state:
  description: Run state of the domain after the task, C(running) or C(shut off).
  returned: when O(state) is not V(absent)
  type: str
  sample: running
differences:
  description:
    - Why the definition changed (or would), one line per managed element or attribute
      that differed from libvirt's inactive XML. When nothing had to be
      defined but the running domain lags behind, the live differences.
    - "A change of the autostart flag adds a line C(autostart: off, wanted on ...)."
  returned: always
  type: list
  elements: str
  sample: ["domain/cputune/vcpusched: attribute priority is '1', wanted '2'"]
diff:
  description:
    - Inactive XML before and after, in one form, so that an element the task
      does not change is the same line in both. The same in check mode and in
      the real run.
    - "With O(autostart) given, each side starts with a line C(<!-- autostart: on -->)
      or C(<!-- autostart: off -->): libvirt's flag, which is not part of the XML."
  returned: when diff mode is on
  type: dict
  contains:
    before:
      description: libvirt's inactive XML before the task (empty when the domain did not exist).
      type: str
    after:
      description:
        - The same XML with the task's change applied, in libvirt's form (empty
          when removed; the rendered domain when it did not exist).
      type: str
    after_header:
      description: The children and attributes of O(base_xml) that the options replaced.
      returned: when O(base_xml) has some
      type: str
      sample: "options replace in base_xml: cputune <vcpusched scheduler='idle' vcpus='0-3'>"
autostart:
  description:
    - libvirt's autostart flag of the domain after the task (predicted in check mode),
      whether or not O(autostart) was given.
  returned: when O(state) is not V(absent)
  type: bool
  sample: true
vcpu_threads:
  description:
    - For a running domain on a local URI, the vCPU threads of its qemu
      process as the kernel reports them in /proc, so the caller can see the
      tuning took effect.
  returned: when the domain runs and the URI is local
  type: list
  elements: dict
  contains:
    vcpu:
      description: vCPU id.
      type: int
    tid:
      description: Thread id.
      type: int
    policy:
      description: Scheduling policy (C(SCHED_FIFO), C(SCHED_RR), C(SCHED_OTHER)...).
      type: str
    priority:
      description: Real-time priority (0 for SCHED_OTHER).
      type: int
    affinity:
      description: CPUs the thread may run on (C(Cpus_allowed_list)).
      type: str
  sample: [{vcpu: 0, tid: 4242, policy: SCHED_FIFO, priority: 1, affinity: "1"}]
"""

import traceback

from ansible.module_utils.basic import AnsibleModule

LIB_IMPORT_ERROR = None
try:
    import libvirt  # noqa: F401  pylint: disable=unused-import
    from lxml import etree  # noqa: F401  pylint: disable=unused-import
except ImportError:
    LIB_IMPORT_ERROR = traceback.format_exc()

from ansible_collections.realtime.virt.plugins.module_utils._common.runner import require_libraries, run_result
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.options import argument_spec


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    require_libraries(module, "libvirt-python and lxml", LIB_IMPORT_ERROR)

    from ansible_collections.realtime.virt.plugins.module_utils._libvirt.manager import DomainManager

    name = module.params["name"]
    run_result(module, "domain %s" % name,
               lambda: DomainManager(module.params, check_mode=module.check_mode, diff=module._diff),
               details=lambda error: dict(name=name, element=getattr(error, "element", None),
                                          option=getattr(error, "option", None)))


if __name__ == "__main__":
    main()
