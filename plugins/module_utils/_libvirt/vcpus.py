# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""CPU set options, which vCPUs are real-time and where a shared emulator runs (pure, no lxml).

spec.py checks a domain's options with these; _placement plans domains
with them, without carrying the domain writer.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import CpusetError, format_cpuset, parse_cpuset
from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError


def cpuset_option(option, value, maximum=None, allow_exclusion=False, empty=None):
    """A CPU set option parsed, or OptionError naming ``option``."""
    try:
        return parse_cpuset(value, allow_exclusion=allow_exclusion, empty=empty, maximum=maximum)
    except CpusetError as error:
        raise OptionError(option, value, str(error))


def realtime_vcpus(mask, vcpus, option="realtime.mask", fix=None):
    """The vCPU ids ``realtime.mask`` selects among ``vcpus`` vCPUs: a CPU set of vCPU ids, empty for all of them.

    ``^N`` alone takes vCPU N out of all of them. A mask that selects none,
    or names a vCPU the domain does not have, raises ``OptionError`` naming
    ``option``.
    """
    # an integer from YAML (mask: 0) names vCPU 0, as the string "0" does;
    # only a missing mask means all of them
    mask = "" if mask is None else str(mask)
    try:
        rt_vcpus = parse_cpuset(mask, allow_exclusion=True, empty=list(range(vcpus)), maximum=vcpus - 1)
    except CpusetError as error:
        raise OptionError(option, mask, str(error), fix)
    if not rt_vcpus:
        raise OptionError(option, mask, "selects no vCPU", fix)
    return rt_vcpus


# Where the emulator and IO threads run, in the words of the rt_domain role's
# ``emulator``: the host's housekeeping CPUs, CPUs of their own, or beside the
# guest's housekeeping vCPUs. ``cpuset``, the module's word before 1.1.0,
# means housekeeping and is deprecated.
EMULATOR_POLICIES = ("housekeeping", "isolate", "share")
DEPRECATED_POLICY = "cpuset"
# the release that removes it
DEPRECATED_IN = "2.0.0"
DEPRECATED_POLICY_MESSAGE = ("cpu.emulator_policy=cpuset is deprecated and will be removed in %s: it is "
                             "housekeeping, the default, in the rt_domain role's words. Write "
                             "emulator_policy: housekeeping, or isolate when cpu.emulator_cpuset is a CPU no vCPU uses"
                             % DEPRECATED_IN)


def emulator_placement(cpu, pinning, realtime, vcpus, emulator):
    """``(emulator CPUs or None, deprecation message or None)`` for ``cpu.emulator_policy``.

    ``housekeeping`` pins to ``cpu.emulator_cpuset`` when given (else the
    threads stay where the host's isolation leaves them); ``isolate`` needs
    ``cpu.emulator_cpuset`` and no vCPU pinned to its CPUs (KubeVirt's
    ``isolateEmulatorThread``); ``share`` computes the CPUs itself.
    """
    policy = cpu.get("emulator_policy") or "housekeeping"
    deprecation = None
    if policy == DEPRECATED_POLICY:
        policy, deprecation = "housekeeping", DEPRECATED_POLICY_MESSAGE
    option = "cpu.emulator_policy"
    if policy == "share":
        if emulator is not None:
            raise OptionError(option, "share", "share takes the emulator CPUs from the vCPUs outside realtime.mask, "
                              "so cpu.emulator_cpuset (%s) cannot be given too" % cpu.get("emulator_cpuset"),
                              "remove cpu.emulator_cpuset, or set emulator_policy to housekeeping or isolate")
        return shared_emulator_cpus(pinning, realtime, vcpus), deprecation
    if policy == "isolate":
        if emulator is None:
            raise OptionError(option, "isolate", "isolate gives the emulator and IO threads CPUs of their own, named "
                              "by cpu.emulator_cpuset, which is not given",
                              "give cpu.emulator_cpuset (a CPU no vCPU uses; the rt_domain role's emulator: isolate "
                              "picks one), or use housekeeping")
        taken = sorted(set(emulator) & set(cpu_id for cpus in pinning.values() for cpu_id in cpus))
        if taken:
            vcpus_there = sorted(vcpu for vcpu, cpus in pinning.items() if set(cpus) & set(taken))
            raise OptionError("cpu.emulator_cpuset", cpu.get("emulator_cpuset"),
                              "isolate gives the emulator CPUs of its own, but CPU %s also runs vCPU %s"
                              % (format_cpuset(taken), format_cpuset(vcpus_there)),
                              "choose a CPU no vCPU is pinned to, or use emulator_policy: housekeeping")
    return emulator, deprecation


def shared_emulator_cpus(pinning, realtime, vcpus):
    """Host CPUs of the vCPUs outside the real-time mask: where ``emulator_policy: share`` puts the emulator.

    Nova's ``hw:emulator_threads_policy=share`` with a real-time mask: the
    emulator and IO threads run beside the guest's housekeeping vCPUs, not
    on the host's housekeeping CPUs and never on a real-time vCPU's CPU.
    """
    option = "cpu.emulator_policy"
    if realtime is None:
        raise OptionError(option, "share", "share needs a real-time domain whose realtime.mask leaves vCPUs out",
                          "give realtime.mask, for example '^0' to keep vCPU 0 for the guest's housekeeping")
    others = [vcpu for vcpu in range(vcpus) if vcpu not in realtime["vcpus"]]
    if not others:
        raise OptionError(option, "share", "realtime.mask makes every vCPU real-time, so there is no vCPU to share "
                          "the emulator with", "leave a vCPU out of realtime.mask (for example '^0')")
    unpinned = [vcpu for vcpu in others if vcpu not in pinning]
    if unpinned:
        raise OptionError(option, "share", "vCPUs %s outside realtime.mask are not pinned, so the CPUs to share "
                          "are unknown" % format_cpuset(unpinned), "pin every vCPU in cpu.pinning")
    return sorted(set(host_cpu for vcpu in others for host_cpu in pinning[vcpu]))
