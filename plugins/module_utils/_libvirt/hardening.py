# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The guest hardening of a real-time domain, checked (pure): the dedicated-CPU hint, timers, suspend, devices.

spec.build_spec calls ``check_hardening`` once the CPUs and memory are planned.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError

# libvirt's <timer name=...> and tickpolicy values (formatdomain, "Time keeping")
TIMER_NAMES = ("platform", "pit", "rtc", "hpet", "tsc", "kvmclock", "hypervclock", "armvtimer")
TICK_POLICIES = ("delay", "catchup", "merge", "discard")
# The guest clock of a real-time domain: the RTC catches up lost ticks, the
# PIT delays them, and the HPET (an emulated, exit-heavy timer) is hidden.
DEFAULT_TIMERS = ({"name": "rtc", "tickpolicy": "catchup", "present": None},
                  {"name": "pit", "tickpolicy": "delay", "present": None},
                  {"name": "hpet", "tickpolicy": None, "present": False})


def check_hardening(hardening, plan, base_root=None):
    """The guest hardening to write, or None.

    On by default for real-time domains.  ``hint_dedicated`` unset means
    "where it holds": a KVM domain whose every vCPU has a host CPU of its
    own and the host CPU passed through (libvirt accepts the hint with
    ``host-passthrough`` only); set to true where that does not hold, it is
    refused.
    """
    hardening = hardening or {}
    enabled = hardening.get("enabled")
    if enabled is None:
        enabled = plan["realtime"] is not None
    if not enabled:
        return None
    dedicated = _dedicated(plan, base_root)
    hint = hardening.get("hint_dedicated")
    if hint and dedicated is not True:
        raise OptionError("hardening.hint_dedicated", True, dedicated,
                          "pin every vCPU to a host CPU of its own with domain_type kvm, or leave hint_dedicated unset")
    timers = hardening.get("timers")
    return {
        "hint_dedicated": dedicated is True if hint is None else hint,
        "timers": _timers(DEFAULT_TIMERS if timers is None else timers),
        "guest_suspend": bool(hardening.get("guest_suspend", False)),
        "immediate_allocation": hardening.get("immediate_allocation", True) is not False and bool(plan["hugepages"]),
        "strip_devices": hardening.get("strip_devices", True) is not False,
    }


def _dedicated(plan, base_root=None):
    """True when every vCPU has a host CPU of its own under KVM with the host CPU passed through, else why not."""
    if plan["domain_type"] != "kvm":
        return "KVM's dedicated-CPU hint needs domain_type kvm (QEMU's TCG has no such hint)"
    mode = plan["cpu"]["mode"]
    base_cpu = base_root.find("cpu") if base_root is not None else None
    if not plan["cpu"]["mode_given"] and base_cpu is not None:
        mode = base_cpu.get("mode") or "custom"
    if mode != "host-passthrough":
        return "libvirt takes KVM's dedicated-CPU hint only with cpu.mode host-passthrough (this domain's is %s)" % mode
    single = [plan["pinning"].get(vcpu) or [] for vcpu in range(plan["vcpus"])]
    if any(len(cpus) != 1 for cpus in single):
        return "not every vCPU is pinned to exactly one host CPU"
    if len(set(cpus[0] for cpus in single)) != plan["vcpus"]:
        return "two vCPUs share a host CPU"
    return True


def _timers(timers):
    result, seen = [], set()
    for index, timer in enumerate(timers):
        option = "hardening.timers[%d]" % index
        name = timer.get("name")
        if name not in TIMER_NAMES:
            raise OptionError(option + ".name", name, "not a timer libvirt knows",
                              "use one of %s" % ", ".join(TIMER_NAMES))
        if name in seen:
            raise OptionError(option + ".name", name, "the timer is listed twice", "give each timer once")
        seen.add(name)
        tickpolicy = timer.get("tickpolicy")
        if tickpolicy is not None and tickpolicy not in TICK_POLICIES:
            raise OptionError(option + ".tickpolicy", tickpolicy, "not a tick policy",
                              "use one of %s" % ", ".join(TICK_POLICIES))
        present = timer.get("present")
        if present is False and tickpolicy is not None:
            raise OptionError(option + ".tickpolicy", tickpolicy, "a timer that is not present has no tick policy",
                              "remove tickpolicy, or set present to true")
        if tickpolicy is None and present is None:
            raise OptionError(option, name, "says nothing about the timer", "give tickpolicy or present")
        result.append({"name": name, "tickpolicy": tickpolicy, "present": present})
    return result
