# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fake QAT host finds its mounts in the kernel's table, a dead FUSE mount included."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import io

from integration_scripts import load

fake_kernel_host = load("fake_kernel_host")

MOUNTS = """sysfs /sys sysfs rw 0 0
realtime-virt-fake-sysfs /tmp/rtv-qat-fake/mnt fuse rw,nosuid 0 0
realtime-virt-fake-sysfs /tmp/rtv-qat-fake-check/mnt fuse rw,nosuid 0 0
tmpfs /tmp/rtv-qat-fake/mnt/inner tmpfs rw 0 0
tmpfs /tmp/with\\040space tmpfs rw 0 0
"""


def test_mounts_under_the_host_deepest_first_and_not_its_neighbour(monkeypatch):
    monkeypatch.setattr(fake_kernel_host, "open", lambda *a, **k: io.StringIO(MOUNTS), raising=False)
    assert fake_kernel_host._mounted_under("/tmp/rtv-qat-fake") == [
        "/tmp/rtv-qat-fake/mnt/inner", "/tmp/rtv-qat-fake/mnt"]


def test_an_escaped_mount_point_is_read_as_the_kernel_wrote_it(monkeypatch):
    monkeypatch.setattr(fake_kernel_host, "open", lambda *a, **k: io.StringIO(MOUNTS), raising=False)
    assert fake_kernel_host._mounted_under("/tmp/with space") == ["/tmp/with space"]
