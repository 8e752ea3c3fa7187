# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ``qat/cfg_services`` string of 4xxx/420xx physical functions.

The kernel accepts the services ``sym``, ``asym``, ``dc`` and ``dcc``
joined by ``;``; a Gen4 device runs at most two of them at once, and
``dcc`` (compression chaining) stands alone.  The file can be written only
while ``qat/state`` reads ``down`` (the driver answers EINVAL otherwise).

:class:`QatServices` is the manager behind the ``qat_services`` module:
read ``qat/state`` and ``qat/cfg_services``, and only when the services
differ write ``down``, the services and ``up``, then read both back.
All writes go through the collection's SysfsWriter, so tests point it at
a fake tree.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import ApplyError, HostError, OptionError
from ansible_collections.realtime.virt.plugins.module_utils._kernel import pci
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._kernel.writer import SysfsWriter

KNOWN_SERVICES = ("sym", "asym", "dc", "dcc")
MAX_SERVICES = 2


def parse_services(value, option="qat_services"):
    """Return the list of services of ``value`` or raise OptionError."""
    known = ", ".join(KNOWN_SERVICES)
    if not isinstance(value, str) or not value.strip():
        raise OptionError(option, value, "not a services string",
                          "give one or two of %s joined by ';', e.g. 'sym;asym' or 'dc'" % known)
    names = [name.strip().lower() for name in value.strip().split(";")]
    for name in names:
        if name not in KNOWN_SERVICES:
            raise OptionError(option, value, "names the unknown service %r" % name,
                              "use %s joined by ';', e.g. 'sym;asym'" % known)
    if len(set(names)) != len(names):
        raise OptionError(option, value, "names a service twice", "give each service once, e.g. 'sym;asym'")
    if len(names) > MAX_SERVICES:
        raise OptionError(option, value, "asks for %d services but a Gen4 QAT device runs at most %d"
                          % (len(names), MAX_SERVICES), "pick two, e.g. 'sym;asym' or 'sym;dc'")
    if "dcc" in names and len(names) > 1:
        raise OptionError(option, value, "combines 'dcc' with another service", "'dcc' must stand alone")
    return names


def same_services(current, wanted):
    """Whether the device's current string configures the wanted services.

    Order does not matter to the driver's service set, so ``asym;sym`` and
    ``sym;asym`` are equal.
    """
    if current is None:
        return False
    have = sorted(name.strip().lower() for name in current.split(";") if name.strip())
    return have == sorted(parse_services(wanted))


def _path(pf, name):
    return pci.device_path(pf, "qat/" + name)


def describe(state, services):
    """Text of the device's settings for the diff."""
    return "state: %s\ncfg_services: %s\n" % (state or "(unreadable)", services or "(unreadable)")


class QatServices(object):
    """Bring one Gen4 PF to the wanted services; the module's manager class."""

    def __init__(self, pf, services, root="/", check_mode=False, reader=None, writer=None):
        address = pf.strip().lower() if isinstance(pf, str) else pf
        if not isinstance(address, str) or not pci.ADDRESS.match(address):
            raise OptionError("pf", pf, "not a PCI address",
                              "give domain:bus:device.function as 'lspci -D' prints it, e.g. 0000:6b:00.0")
        self.pf = address
        self.wanted = ";".join(parse_services(services, option="services"))
        self.check_mode = check_mode
        self.reader = reader or HostReader(root)
        self.writer = writer or SysfsWriter(root)
        self.actions = []

    # -- reads and writes --------------------------------------------------
    def _read(self, name):
        return self.reader.read(_path(self.pf, name), optional=True)

    def _write(self, name, value, why):
        """Write (unless in check mode); only a write that succeeded is recorded."""
        if not self.check_mode:
            self.writer.write(_path(self.pf, name), value)
        self.actions.append("%s: write %r to %s" % (why, value, _path(self.pf, name)))

    def _done(self):
        return "Done before the failure: %s." % ("; ".join(self.actions) if self.actions else "nothing")

    def _restore_up(self):
        """Best effort after a failure: leave the device up, as it was meant to be."""
        if self._read("state") == "up":
            return "the device is up again"
        try:
            self._write("state", "up", "restore %s" % self.pf)
        except (IOError, OSError) as error:
            return "bringing it back up failed too (%s), so it stays down" % (error.strerror or error)
        now = self._read("state")
        return "the device is up again" if now == "up" else "it reads %r after 'up' was written" % now

    def _load(self):
        if not pci.exists(self.reader, self.pf):
            raise HostError("PCI device %s does not exist on this host (no %s)" % (self.pf, pci.device_path(self.pf)),
                            "check the address with 'lspci -D'")
        state, services = self._read("state"), self._read("cfg_services")
        if state is None or services is None:
            raise HostError(
                "%s has no readable qat/state and qat/cfg_services: only 4xxx, 401xx, 402xx and 420xx PFs with the "
                "qat_4xxx or qat_420xx driver bound have them" % self.pf, "give such a PF, or load its driver first")
        return state, services

    # -- the run -------------------------------------------------------------
    def run(self):
        state, services = self._load()
        warnings = []
        vfs_removed = 0
        if same_services(services, self.wanted):
            after_state, after_services = state, services
            if state != "up":
                warnings.append(
                    "%s already has services %r but its state is %r: the module changes nothing then; bring it up "
                    "with 'echo up > %s' once it is configured" % (self.pf, services, state, self.reader.path(
                        _path(self.pf, "state"))))
        else:
            # The driver disables SR-IOV when the device goes down: every VF goes away.
            vfs_removed = self.reader.read_int(pci.device_path(self.pf, "sriov_numvfs"), optional=True) or 0
            if vfs_removed and state != "down":
                warnings.append(
                    "taking %s down to change its services %s its %d VFs (the driver disables SR-IOV); "
                    "create them again afterwards (the qat role does, with realtime.virt.sriov_vfs)"
                    % (self.pf, "would remove" if self.check_mode else "removed", vfs_removed))
            else:
                vfs_removed = 0
            self._apply(state)
            if self.check_mode:
                after_state, after_services = "up", self.wanted
            else:
                after_state, after_services = self._verify()
        return {
            "changed": bool(self.actions),
            "pf": self.pf,
            "services": after_services,
            "services_before": services,
            "state": after_state,
            "state_before": state,
            "actions": list(self.actions),
            "vfs_removed": vfs_removed,
            "warnings": warnings + list(self.reader.warnings),
            "diff": {
                "before_header": "%s (qat)" % self.pf,
                "after_header": "%s (qat)" % self.pf,
                "before": describe(state, services),
                "after": describe(after_state, after_services),
            },
        }

    def _apply(self, state):
        try:
            if state != "down":
                self._write("state", "down", "take %s down" % self.pf)
        except (IOError, OSError) as error:
            raise ApplyError(
                "%s refused to go down (%s), so its services stay %r. %s"
                % (self.pf, error.strerror or error, self._read("cfg_services"), self._done()),
                "stop what uses the device (VFs given to running VMs, user-space QAT libraries) and run again")
        try:
            self._write("cfg_services", self.wanted, "set the services of %s" % self.pf)
        except (IOError, OSError) as error:
            raise ApplyError(
                "%s refused services %r (%s): its driver may not support them; %s. %s"
                % (self.pf, self.wanted, error.strerror or error, self._restore_up(), self._done()),
                "check the kernel log for what the driver supports")
        try:
            self._write("state", "up", "bring %s up" % self.pf)
        except (IOError, OSError) as error:
            raise ApplyError(
                "%s did not come up with services %r (%s): the device stays down. %s"
                % (self.pf, self.wanted, error.strerror or error, self._done()),
                "check the kernel log for missing firmware, then run again")

    def _verify(self):
        state, services = self._read("state"), self._read("cfg_services")
        if not same_services(services, self.wanted):
            raise ApplyError(
                "%s reads services %r after %r was written: the device did not take them; %s. %s"
                % (self.pf, services, self.wanted, self._restore_up(), self._done()), "check the kernel log")
        if state != "up":
            raise ApplyError(
                "%s reads state %r after 'up' was written: it did not restart with services %r. %s"
                % (self.pf, state, self.wanted, self._done()),
                "check the kernel log for missing firmware, then run again")
        return state, services


__all__ = ["QatServices", "parse_services", "same_services"]
