# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read one physical function, plan its VF count and bindings, apply them.

The kernel's generic SR-IOV interface, as the PCI core documents it:

* ``sriov_totalvfs``/``sriov_numvfs`` of the PF; a different non-zero count
  can be set only after writing 0 (the kernel answers EBUSY otherwise);
* ``virtfnN`` links of the PF name its VFs;
* a VF goes to a chosen driver by writing the driver's name to its
  ``driver_override``, unbinding it from its current driver and writing its
  address to ``/sys/bus/pci/drivers_probe``.  Addresses do not change
  across reboots; IOMMU group numbers may, so nothing here uses them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import re

from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._sriov import statefile
from ansible_collections.realtime.virt.plugins.module_utils._sriov.errors import (
    SriovBindError,
    SriovBusyError,
    SriovDeviceError,
    SriovError,
    SriovInputError,
    SriovVfVanishedError,
    SriovWriteError,
)
from ansible_collections.realtime.virt.plugins.module_utils._kernel.writer import SysfsWriter

PCI_DEVICES = "/sys/bus/pci/devices"
PCI_DRIVERS = "/sys/bus/pci/drivers"
DRIVERS_PROBE = "/sys/bus/pci/drivers_probe"
PCI_ADDRESS = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
DRIVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_VIRTFN = re.compile(r"^virtfn(\d+)$")
_VANISHED = (errno.ENOENT, errno.ENODEV, errno.ENXIO)


def dev(address, name=""):
    return "%s/%s/%s" % (PCI_DEVICES, address, name) if name else "%s/%s" % (PCI_DEVICES, address)


def validate(pf, count, driver, option_prefix=""):
    """Return ``(pf, count or 'max', driver)`` or raise SriovInputError."""
    address = (pf or "").strip().lower()
    if not PCI_ADDRESS.match(address):
        raise SriovInputError(
            "%spf=%r is not a PCI address: give domain:bus:device.function as 'lspci -D' prints it, e.g. 0000:6b:00.0"
            % (option_prefix, pf))
    if isinstance(count, bool):
        count = None
    text = str(count).strip().lower() if count is not None else ""
    if text == "max":
        wanted = "max"
    else:
        try:
            wanted = int(text)
        except ValueError:
            raise SriovInputError("%scount=%r is not a number: give a VF count (0 removes the VFs) or 'max'"
                                  % (option_prefix, count))
        if wanted < 0:
            raise SriovInputError("%scount=%d is negative: give 0 (no VFs), a positive count or 'max'"
                                  % (option_prefix, wanted))
    if not isinstance(driver, str) or not DRIVER_NAME.match(driver):
        raise SriovInputError(
            "%sdriver=%r is not a driver name: give the name the kernel shows under /sys/bus/pci/drivers, e.g. vfio-pci"
            % (option_prefix, driver))
    return address, wanted, driver


def read_pf(reader, pf):
    """Current SR-IOV state of ``pf``: counts, its driver, and its VFs by index."""
    if not reader.exists(dev(pf)):
        raise SriovDeviceError(
            "PCI device %s does not exist on this host (no %s): check the address with 'lspci -D'" % (pf, dev(pf)))
    total = reader.read_int(dev(pf, "sriov_totalvfs"), optional=True)
    if total is None:
        raise SriovDeviceError(
            "PCI device %s has no SR-IOV capability (no sriov_totalvfs): give the address of a physical function "
            "that supports SR-IOV, not a VF or an ordinary device" % pf)
    vfs = []
    for name in reader.listdir(dev(pf), optional=True):
        match = _VIRTFN.match(name)
        if match:
            address = reader.link_name(dev(pf, name))
            if address:
                vfs.append(read_vf(reader, address, int(match.group(1))))
    vfs.sort(key=lambda vf: vf["index"])
    return {
        "pf": pf,
        "pf_driver": reader.link_name(dev(pf, "driver")),
        "sriov_totalvfs": total,
        "sriov_numvfs": reader.read_int(dev(pf, "sriov_numvfs"), optional=True) or 0,
        "vfs": vfs,
    }


def read_vf(reader, address, index):
    override = reader.read(dev(address, "driver_override"), optional=True)
    group = reader.link_name(dev(address, "iommu_group"))
    return {
        "index": index,
        "pci_address": address,
        "driver": reader.link_name(dev(address, "driver")),
        "driver_override": None if override in (None, "", "(null)") else override,
        "iommu_group": int(group) if group and group.isdigit() else None,
    }


def describe(state, driver_line):
    """Text of a state for the diff."""
    lines = ["sriov_numvfs: %d" % state["sriov_numvfs"]]
    for vf in state["vfs"]:
        lines.append("virtfn%d %s driver=%s driver_override=%s" % (
            vf["index"], vf["pci_address"] or "(new)", vf["driver"] or "none", vf["driver_override"] or "none"))
    lines.append("state file: %s" % (driver_line or "(no line)"))
    return "\n".join(lines) + "\n"


class SriovVfs(object):
    """Bring one PF to ``count`` VFs on ``driver``; the module's manager class."""

    def __init__(self, pf, count, driver="vfio-pci", persist=True, state_file="/etc/realtime-virt/sriov-vfs.conf",
                 root="/", check_mode=False, reader=None, writer=None):
        self.pf, self.count_spec, self.driver = validate(pf, count, driver)
        self.persist = persist
        self.state_file = state_file
        self.check_mode = check_mode
        self.reader = reader or HostReader(root)
        self.writer = writer or SysfsWriter(root)
        self.actions = []
        self.attempt = None
        self.warnings = []

    # -- writes ------------------------------------------------------------
    def _write(self, path, value, what):
        """Write (unless in check mode), then record the action."""
        action = "%s: write %r to %s" % (what, str(value), path)
        self.attempt = action
        if not self.check_mode:
            self.writer.write(path, value)
        self.actions.append(action)

    def _set_numvfs(self, value):
        try:
            self._write(dev(self.pf, "sriov_numvfs"), value, "set the VF count of %s to %d" % (self.pf, value))
        except (IOError, OSError) as error:
            if error.errno == errno.EBUSY:
                if value == 0:
                    raise SriovBusyError(
                        "the kernel refused to remove the VFs of %s (EBUSY): a VF is still in use, e.g. assigned to a "
                        "running VM or held by a user-space driver; stop what uses them and run again" % self.pf)
                raise SriovBusyError(
                    "the kernel refused %d VFs on %s (EBUSY): VFs already exist; write 0 first" % (value, self.pf))
            if error.errno == errno.ENOENT:
                raise SriovDeviceError(
                    "%s cannot change its VF count (ENOENT): its driver is not loaded or does not support SR-IOV; "
                    "load the physical function's driver and run again" % self.pf)
            raise SriovWriteError("writing %d to %s failed (%s); check the kernel log. %s" % (
                value, dev(self.pf, "sriov_numvfs"), error.strerror or error, self._done()))

    def _bind(self, vf):
        address = vf["pci_address"]
        if not self.reader.exists(dev(address)):
            raise SriovVfVanishedError(
                "VF %s (virtfn%d of %s) vanished before it could be bound to %s: something changed the VF count "
                "meanwhile; run again. %s" % (address, vf["index"], self.pf, self.driver, self._done()))
        try:
            if vf["driver_override"] != self.driver:
                self._write(dev(address, "driver_override"), self.driver, "make %s prefer %s" % (address, self.driver))
            if vf["driver"] != self.driver:
                current = vf["driver"]
                if not self.check_mode:
                    # A new VF's own driver probes it asynchronously: by now it
                    # may have bound, or (an NVMe VF without resources) given
                    # the VF up again. Act on what the VF has now.
                    current = self.reader.link_name(dev(address, "driver"))
                if current and current != self.driver:
                    self._unbind(address, current)
                if current != self.driver:
                    self._write(DRIVERS_PROBE, address, "probe %s" % address)
        except (IOError, OSError) as error:
            if error.errno in _VANISHED and not self.reader.exists(dev(address)):
                raise SriovVfVanishedError(
                    "VF %s (virtfn%d of %s) vanished while it was being bound to %s: something changed the VF count "
                    "meanwhile; run again. %s" % (address, vf["index"], self.pf, self.driver, self._done()))
            raise SriovWriteError(
                "binding VF %s to %s failed at '%s' (%s). %s" % (
                    address, self.driver, self.attempt, error.strerror or error, self._done()))
        if self.check_mode:
            return
        now = self.reader.link_name(dev(address, "driver"))
        if now != self.driver:
            raise SriovBindError(
                "VF %s is on %s, not %s, after the probe: the driver refused it (see the kernel log); vfio-pci refuses "
                "devices on its denylist unless vfio-pci.disable_denylist=1 is set, and needs the IOMMU on "
                "(intel_iommu=on). %s" % (address, now or "no driver", self.driver, self._done()))

    def _unbind(self, address, current):
        """Unbind ``address`` from ``current``; a driver that let it go meanwhile is fine."""
        try:
            self._write(dev(address, "driver/unbind"), address, "unbind %s from %s" % (address, current))
        except (IOError, OSError) as error:
            if error.errno not in _VANISHED or self.reader.link_name(dev(address, "driver")) is not None:
                raise
            self.actions.append("%s had already left %s" % (address, current))

    def _done(self):
        return "Done before the failure: %s." % ("; ".join(self.actions) if self.actions else "nothing")

    # -- the run -----------------------------------------------------------
    def run(self):
        before = read_pf(self.reader, self.pf)
        total = before["sriov_totalvfs"]
        count = total if self.count_spec == "max" else self.count_spec
        if count > total:
            raise SriovInputError(
                "count=%d is more than %s supports (sriov_totalvfs=%d): give at most %d or 'max'"
                % (count, self.pf, total, total))
        if count > 0 and not self.reader.exists("%s/%s" % (PCI_DRIVERS, self.driver)):
            message = ("driver=%r is not loaded (no %s/%s): load its module (e.g. 'modprobe %s') first"
                       % (self.driver, PCI_DRIVERS, self.driver, self.driver))
            if not self.check_mode:
                raise SriovInputError(message)
            self.warnings.append("a real run would fail: " + message)
        if count != before["sriov_numvfs"] and before["pf_driver"] is None:
            message = ("%s has no driver bound, so its VF count cannot change: load the physical function's driver first"
                       % self.pf)
            if not self.check_mode:
                raise SriovDeviceError(message)
            self.warnings.append("a real run would fail: " + message)

        old_text, entries = self._read_state_file()
        wanted_entries = dict(entries)
        if self.persist:
            if count > 0:
                wanted_entries[self.pf] = (count, self.driver)
            else:
                wanted_entries.pop(self.pf, None)
        new_text = old_text
        if self.persist and (wanted_entries != entries or (old_text is None and wanted_entries)):
            new_text = statefile.render(wanted_entries)

        if count != before["sriov_numvfs"]:
            if before["sriov_numvfs"] != 0:
                self._set_numvfs(0)
            if count != 0:
                self._set_numvfs(count)
        if self.check_mode:
            after = self._predict(before, count)
        else:
            after = read_pf(self.reader, self.pf)
            if len(after["vfs"]) != count or after["sriov_numvfs"] != count:
                raise SriovWriteError(
                    "%s shows %d VFs (sriov_numvfs=%d) after %d was written: the kernel created only part of them; "
                    "check the kernel log, then run again. %s"
                    % (self.pf, len(after["vfs"]), after["sriov_numvfs"], count, self._done()))
        for vf in after["vfs"]:
            if vf["driver"] != self.driver or vf["driver_override"] != self.driver:
                self._bind(vf)
        state_changed = new_text != old_text
        if state_changed:
            self.actions.append("write %s" % self.state_file)
            if not self.check_mode:
                statefile.write_atomic(self.state_file, new_text)
        if self.check_mode:
            after = self._predict(before, count)
        else:
            after = read_pf(self.reader, self.pf)
        line_before = self._line(entries)
        line_after = self._line(wanted_entries if self.persist else entries)
        return {
            "changed": bool(self.actions),
            "pf": self.pf,
            "pf_driver": after["pf_driver"],
            "driver": self.driver,
            "count": count,
            "sriov_totalvfs": total,
            "sriov_numvfs_before": before["sriov_numvfs"],
            "vfs": after["vfs"],
            "vf_addresses": [vf["pci_address"] for vf in after["vfs"] if vf["pci_address"]],
            "state_file": self.state_file if self.persist else None,
            "state_file_changed": state_changed,
            "actions": list(self.actions),
            "warnings": list(self.warnings) + list(self.reader.warnings),
            "diff": {
                "before_header": "%s (SR-IOV)" % self.pf,
                "after_header": "%s (SR-IOV)" % self.pf,
                "before": describe(before, line_before),
                "after": describe(after, line_after),
            },
        }

    def _line(self, entries):
        if self.pf not in entries:
            return None
        return "%s %d %s" % (self.pf, entries[self.pf][0], entries[self.pf][1])

    def _read_state_file(self):
        if not self.persist:
            return None, {}
        text = statefile.read(self.state_file)
        return text, statefile.parse(text or "", self.state_file)

    def _predict(self, before, count):
        """What a real run would leave, for check mode."""
        if count == before["sriov_numvfs"]:
            vfs = [dict(vf, driver=self.driver, driver_override=self.driver) for vf in before["vfs"]]
        else:
            vfs = [{"index": i, "pci_address": None, "driver": self.driver, "driver_override": self.driver,
                    "iommu_group": None} for i in range(count)]
        return dict(before, sriov_numvfs=count, vfs=vfs)


__all__ = ["SriovVfs", "SriovError", "validate", "read_pf"]
