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
  across reboots; IOMMU group numbers may, so nothing here uses them;
* the PF's ``sriov_drivers_autoprobe`` (Linux 4.12 and later) decides
  whether new VFs are probed by their own driver as they appear.  It is
  turned off while VFs are created and back on once each new VF's
  ``driver_override`` is set, before any probe: a VF's own driver never
  binds it, so it cannot give the VF up later either.  The nvme driver of
  Linux 6.1 does that with a VF it cannot bring up: its failed reset queues
  a work item that releases whatever driver the VF is on when it runs,
  which can be after the VF was unbound from nvme and bound to vfio-pci.

facts (:func:`read_pf`) -> plan (:meth:`SriovVfs.plan`) -> apply (the
writes) -> verify (read back, every VF on the wanted driver).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import re

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import ApplyError, HostError, OptionError
from ansible_collections.realtime.virt.plugins.module_utils._kernel import pci
from ansible_collections.realtime.virt.plugins.module_utils._kernel.reader import HostReader
from ansible_collections.realtime.virt.plugins.module_utils._kernel.writer import SysfsWriter
from ansible_collections.realtime.virt.plugins.module_utils._sriov import statefile

DRIVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
AUTOPROBE = "sriov_drivers_autoprobe"
_VANISHED = (errno.ENOENT, errno.ENODEV, errno.ENXIO)


def validate(pf, count, driver):
    """Return ``(pf, count or 'max', driver)`` or raise OptionError."""
    address = (pf or "").strip().lower()
    if not pci.ADDRESS.match(address):
        raise OptionError("pf", pf, "not a PCI address",
                          "give domain:bus:device.function as 'lspci -D' prints it, e.g. 0000:6b:00.0")
    if isinstance(count, bool):
        count = None
    text = str(count).strip().lower() if count is not None else ""
    if text == "max":
        wanted = "max"
    else:
        try:
            wanted = int(text)
        except ValueError:
            raise OptionError("count", count, "not a number", "give a VF count (0 removes the VFs) or 'max'")
        if wanted < 0:
            raise OptionError("count", wanted, "negative", "give 0 (no VFs), a positive count or 'max'")
    if not isinstance(driver, str) or not DRIVER_NAME.match(driver):
        raise OptionError("driver", driver, "not a driver name",
                          "give the name the kernel shows under /sys/bus/pci/drivers, e.g. vfio-pci")
    return address, wanted, driver


def read_pf(reader, pf):
    """Current SR-IOV state of ``pf``: counts, its driver, and its VFs by index."""
    if not pci.exists(reader, pf):
        raise HostError("PCI device %s does not exist on this host (no %s)" % (pf, pci.device_path(pf)),
                        "check the address with 'lspci -D'")
    total = reader.read_int(pci.device_path(pf, "sriov_totalvfs"), optional=True)
    if total is None:
        raise HostError("PCI device %s has no SR-IOV capability (no sriov_totalvfs)" % pf,
                        "give the address of a physical function that supports SR-IOV, not a VF or an ordinary device")
    return {
        "pf": pf,
        "pf_driver": pci.driver(reader, pf),
        "sriov_totalvfs": total,
        "sriov_numvfs": reader.read_int(pci.device_path(pf, "sriov_numvfs"), optional=True) or 0,
        "vfs": [read_vf(reader, address, index) for index, address in pci.virtfns(reader, pf)],
    }


def read_vf(reader, address, index):
    vf = pci.function(reader, address)
    del vf["numa_node"]
    vf["index"] = index
    return vf


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
                 root="/", check_mode=False, reader=None, writer=None, vfs_removed=False):
        self.pf, self.count_spec, self.driver = validate(pf, count, driver)
        # An earlier task of the run removes the VFs (a QAT services change);
        # check mode, where it wrote nothing, plans from none.
        self.vfs_removed = bool(vfs_removed)
        self.persist = persist
        self.state_file = state_file
        self.check_mode = check_mode
        self.reader = reader or HostReader(root)
        self.writer = writer or SysfsWriter(root)
        self.actions = []
        self.attempt = None
        self.warnings = []
        self.autoprobe_held = False

    # -- writes ------------------------------------------------------------
    def _write(self, path, value, what):
        """Write (unless in check mode), then record the action."""
        action = "%s: write %r to %s" % (what, str(value), path)
        self.attempt = action
        if not self.check_mode:
            self.writer.write(path, value)
        self.actions.append(action)

    def _done(self):
        return "Done before the failure: %s." % ("; ".join(self.actions) if self.actions else "nothing")

    def _set_numvfs(self, value):
        path = pci.device_path(self.pf, "sriov_numvfs")
        try:
            self._write(path, value, "set the VF count of %s to %d" % (self.pf, value))
        except (IOError, OSError) as error:
            if error.errno == errno.EBUSY and value == 0:
                raise ApplyError("the kernel refused to remove the VFs of %s (EBUSY): a VF is still in use, e.g. "
                                 "assigned to a running VM or held by a user-space driver" % self.pf,
                                 "stop what uses them and run again")
            if error.errno == errno.EBUSY:
                raise ApplyError("the kernel refused %d VFs on %s (EBUSY): VFs already exist" % (value, self.pf),
                                 "write 0 first")
            if error.errno == errno.ENOENT:
                raise HostError("%s cannot change its VF count (ENOENT): its driver is not loaded or does not "
                                "support SR-IOV" % self.pf, "load the physical function's driver and run again")
            raise ApplyError("writing %d to %s failed (%s). %s" % (value, path, error.strerror or error, self._done()),
                             "check the kernel log")

    def _vanished(self, vf, when):
        return ApplyError("VF %s (virtfn%d of %s) vanished %s it could be bound to %s: something changed the VF count "
                          "meanwhile. %s" % (vf["pci_address"], vf["index"], self.pf, when, self.driver, self._done()),
                          "run again")

    def _bind(self, vf, probe=True):
        """Bind ``vf`` to the driver; with ``probe`` False only set its driver_override."""
        address = vf["pci_address"]
        if not pci.exists(self.reader, address):
            raise self._vanished(vf, "before")
        try:
            if vf["driver_override"] != self.driver:
                self._write(pci.device_path(address, "driver_override"), self.driver,
                            "make %s prefer %s" % (address, self.driver))
                vf["driver_override"] = self.driver
            if not probe:
                return
            if vf["driver"] != self.driver:
                current = vf["driver"]
                if not self.check_mode:
                    # A new VF's own driver probes it asynchronously: by now it
                    # may have bound, or (an NVMe VF without resources) given
                    # the VF up again. Act on what the VF has now.
                    current = pci.driver(self.reader, address)
                if current and current != self.driver:
                    self._unbind(address, current)
                if current != self.driver:
                    self._write(pci.DRIVERS_PROBE, address, "probe %s" % address)
        except (IOError, OSError) as error:
            if error.errno in _VANISHED and not pci.exists(self.reader, address):
                raise self._vanished(vf, "while")
            raise ApplyError("binding VF %s to %s failed at '%s' (%s). %s" % (
                address, self.driver, self.attempt, error.strerror or error, self._done()))
        if self.check_mode:
            return
        now = pci.driver(self.reader, address)
        if now != self.driver:
            raise ApplyError(
                "VF %s is on %s, not %s, after the probe: the driver refused it (see the kernel log). %s"
                % (address, now or "no driver", self.driver, self._done()),
                "vfio-pci refuses devices on its denylist unless vfio-pci.disable_denylist=1 is set, and needs the "
                "IOMMU on (intel_iommu=on)")

    def _unbind(self, address, current):
        """Unbind ``address`` from ``current``; a driver that let it go meanwhile is fine."""
        try:
            self._write(pci.device_path(address, "driver/unbind"), address, "unbind %s from %s" % (address, current))
        except (IOError, OSError) as error:
            if error.errno not in _VANISHED or pci.driver(self.reader, address) is not None:
                raise
            self.actions.append("%s had already left %s" % (address, current))

    # -- the run -----------------------------------------------------------
    def _refuse(self, error):
        """A real run stops on ``error``; check mode only warns (the role may load the driver first)."""
        if not self.check_mode:
            raise error
        self.warnings.append("a real run would fail: %s" % error)

    def _wanted_count(self, before):
        total = before["sriov_totalvfs"]
        count = total if self.count_spec == "max" else self.count_spec
        if count > total:
            raise OptionError("count", count, "more than %s supports (sriov_totalvfs=%d)" % (self.pf, total),
                              "give at most %d or 'max'" % total)
        if count > 0 and not pci.driver_loaded(self.reader, self.driver):
            self._refuse(OptionError("driver", self.driver, "not loaded (no %s/%s)" % (pci.PCI_DRIVERS, self.driver),
                                     "load its module (e.g. 'modprobe %s') first" % self.driver))
        if count != before["sriov_numvfs"] and before["pf_driver"] is None:
            self._refuse(HostError("%s has no driver bound, so its VF count cannot change" % self.pf,
                                   "load the physical function's driver first"))
        return count

    def _state_files(self, count):
        """``(old text, new text, entries before, entries after)`` of the boot-time state file."""
        if not self.persist:
            return None, None, {}, {}
        old_text = statefile.read(self.state_file)
        entries = statefile.parse(old_text or "", self.state_file)
        wanted = dict(entries)
        if count > 0:
            wanted[self.pf] = (count, self.driver)
        else:
            wanted.pop(self.pf, None)
        new_text = old_text
        if wanted != entries or (old_text is None and wanted):
            new_text = statefile.render(wanted)
        return old_text, new_text, entries, wanted

    def _hold_autoprobe(self):
        """Turn the PF's VF autoprobe off for the VFs about to be created, when it is on."""
        path = pci.device_path(self.pf, AUTOPROBE)
        if self.reader.read_int(path, optional=True) != 1:
            return  # off already, or a kernel without it (before 4.12)
        try:
            self._write(path, 0, "turn VF autoprobe of %s off" % self.pf)
        except (IOError, OSError) as error:
            raise ApplyError("writing 0 to %s failed (%s). %s" % (path, error.strerror or error, self._done()),
                             "check the kernel log")
        self.autoprobe_held = True

    def _release_autoprobe(self, failing=False):
        """Turn the PF's VF autoprobe back on; while failing, a second failure is only recorded."""
        if not self.autoprobe_held:
            return
        self.autoprobe_held = False
        path = pci.device_path(self.pf, AUTOPROBE)
        try:
            self._write(path, 1, "turn VF autoprobe of %s back on" % self.pf)
        except (IOError, OSError) as error:
            what = "writing 1 to %s failed (%s)" % (path, error.strerror or error)
            if failing:
                self.actions.append("%s: new VFs of %s are not probed until it is 1" % (what, self.pf))
                return
            raise ApplyError("%s. %s" % (what, self._done()), "write 1 to it, then check the kernel log")

    def _apply_count(self, before, count):
        if count != before["sriov_numvfs"]:
            if before["sriov_numvfs"] != 0:
                self._set_numvfs(0)
            if count != 0:
                self._hold_autoprobe()
                self._set_numvfs(count)
        if self.check_mode:
            if count == before["sriov_numvfs"]:
                # the VFs stay: the bind step then predicts from what each
                # has now (a VF that lost its driver is probed again)
                return dict(before, vfs=[dict(vf) for vf in before["vfs"]])
            return self._predict(before, count)
        after = read_pf(self.reader, self.pf)
        if count and len(after["vfs"]) > count and len(after["vfs"]) == before["sriov_totalvfs"]:
            raise ApplyError(
                "%s enabled all its %d VFs (%s) when %d was written: its driver enables every VF on any non-zero "
                "count (as the in-tree QAT drivers do), so this PF takes only 0 or %d. %s"
                % (self.pf, len(after["vfs"]), ", ".join(vf["pci_address"] for vf in after["vfs"]), count,
                   before["sriov_totalvfs"], self._done()),
                "ask for 0 or %d VFs (or 'max') on this PF" % before["sriov_totalvfs"])
        if len(after["vfs"]) != count or after["sriov_numvfs"] != count:
            raise ApplyError(
                "%s shows %d VFs (sriov_numvfs=%d) after %d was written: the kernel created only part of them. %s"
                % (self.pf, len(after["vfs"]), after["sriov_numvfs"], count, self._done()),
                "check the kernel log, then run again")
        return after

    def run(self):
        before = read_pf(self.reader, self.pf)
        if self.check_mode and self.vfs_removed:
            before = dict(before, sriov_numvfs=0, vfs=[])
        count = self._wanted_count(before)
        old_text, new_text, entries, wanted = self._state_files(count)
        try:
            after = self._apply_count(before, count)
            if self.autoprobe_held and not self.check_mode:
                # the new VFs are on no driver: name theirs before autoprobe is back
                for vf in after["vfs"]:
                    self._bind(vf, probe=False)
        except Exception:
            self._release_autoprobe(failing=True)
            raise
        self._release_autoprobe()
        for vf in after["vfs"]:
            if vf["driver"] != self.driver or vf["driver_override"] != self.driver:
                self._bind(vf)
        state_changed = new_text != old_text
        if state_changed:
            self.actions.append("write %s" % self.state_file)
            if not self.check_mode:
                statefile.write(self.state_file, new_text)
        after = self._predict(before, count) if self.check_mode else read_pf(self.reader, self.pf)
        return {
            "changed": bool(self.actions),
            "pf": self.pf,
            "pf_driver": after["pf_driver"],
            "driver": self.driver,
            "count": count,
            "sriov_totalvfs": before["sriov_totalvfs"],
            "sriov_numvfs_before": before["sriov_numvfs"],
            "vfs": after["vfs"],
            "vf_addresses": [vf["pci_address"] for vf in after["vfs"] if vf["pci_address"]],
            "vf_addresses_before": [vf["pci_address"] for vf in before["vfs"] if vf["pci_address"]],
            "state_file": self.state_file if self.persist else None,
            "state_file_changed": state_changed,
            "actions": list(self.actions),
            "warnings": list(self.warnings) + list(self.reader.warnings),
            "diff": {
                "before_header": "%s (SR-IOV)" % self.pf,
                "after_header": "%s (SR-IOV)" % self.pf,
                "before": describe(before, self._line(entries)),
                "after": describe(after, self._line(wanted if self.persist else entries)),
            },
        }

    def _line(self, entries):
        if self.pf not in entries:
            return None
        return "%s %d %s" % (self.pf, entries[self.pf][0], entries[self.pf][1])

    def _predict(self, before, count):
        """What a real run would leave, for check mode."""
        if count == before["sriov_numvfs"]:
            vfs = [dict(vf, driver=self.driver, driver_override=self.driver) for vf in before["vfs"]]
        else:
            vfs = [{"index": i, "pci_address": None, "driver": self.driver, "driver_override": self.driver,
                    "iommu_group": None} for i in range(count)]
        return dict(before, sriov_numvfs=count, vfs=vfs)


__all__ = ["SriovVfs", "validate", "read_pf"]
