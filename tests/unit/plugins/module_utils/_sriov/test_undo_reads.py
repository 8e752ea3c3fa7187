# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the sriov (and qat) undo reads before it removes anything: the PFs the
boot-time files still record, the running domains that hold a VF."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.sriov import FilterModule
from ansible_collections.realtime.virt.plugins.module_utils._sriov.inuse import vf_users
from ansible_collections.realtime.virt.plugins.module_utils._sriov.statefile import HEADER, recorded_pfs

FILTERS = FilterModule().filters()

STATE = (HEADER
         + "0000:3B:00.0 4 vfio-pci\n"
         + "   0000:5e:00.0 2 vfio-pci   \n"
         + "\n"
         + "   \n"
         + "  # 0000:99:00.0 1 vfio-pci\n"
         + "0000:3b:00.0 4 vfio-pci\n")
SERVICES = "0000:6b:00.0 sym;asym\n0000:70:00.0 dc\n"


@pytest.mark.parametrize("text, removed, expected", [
    (STATE, [], ["0000:3b:00.0", "0000:5e:00.0"]),
    (STATE, ["0000:3b:00.0"], ["0000:5e:00.0"]),
    (STATE, ["0000:3b:00.0", "0000:5e:00.0"], []),
    # removed addresses are compared as given, the file's lowercased
    (STATE, ["0000:3B:00.0"], ["0000:3b:00.0", "0000:5e:00.0"]),
    (SERVICES, ["0000:6b:00.0"], ["0000:70:00.0"]),
    (HEADER, [], []),
    ("", [], []),
    (None, None, []),
])
def test_recorded_pfs(text, removed, expected):
    assert recorded_pfs(text, removed) == expected
    assert FILTERS["sriov_recorded_pfs"](text, removed) == expected


DOMAINS = [
    {"name": "vm1", "running": True, "hostdevs": ["0000:3B:02.0", "0000:3b:02.1", "0000:af:00.0"]},
    {"name": "vm2", "running": False, "hostdevs": ["0000:3b:02.2"]},
    {"name": "vm3", "running": True, "hostdevs": ["0000:3b:02.3"]},
    {"name": "vm4", "running": True, "hostdevs": []},
    {"name": "vm5", "running": True},
    {"name": "vm6", "running": True, "hostdevs": None},
]


@pytest.mark.parametrize("going, removed, expected", [
    (["0000:3b:02.0", "0000:3b:02.1", "0000:3b:02.2", "0000:3b:02.3"], [],
     ["vm1 (0000:3b:02.0, 0000:3b:02.1)", "vm3 (0000:3b:02.3)"]),
    # the VFs to go compare lowercased
    (["0000:3B:02.1"], [], ["vm1 (0000:3b:02.1)"]),
    # a domain the undo removes first does not count
    (["0000:3b:02.0", "0000:3b:02.3"], ["vm1"], ["vm3 (0000:3b:02.3)"]),
    # a stopped domain does not count
    (["0000:3b:02.2"], [], []),
    ([], [], []),
])
def test_vf_users(going, removed, expected):
    assert vf_users(DOMAINS, going, removed) == expected
    assert FILTERS["sriov_vf_users"](DOMAINS, going, removed) == expected


def test_recorded_pfs_are_sorted_whatever_the_file_order():
    text = "".join("0000:%02x:00.0 1 vfio-pci\n" % bus for bus in range(0x40, 0x20, -1))
    assert recorded_pfs(text) == ["0000:%02x:00.0" % bus for bus in range(0x21, 0x41)]


def test_no_domains_hold_nothing():
    assert FILTERS["sriov_vf_users"]([], ["0000:3b:02.0"]) == []
    assert FILTERS["sriov_vf_users"](None, ["0000:3b:02.0"], None) == []


@pytest.mark.parametrize("call, words", [
    (lambda: FILTERS["sriov_recorded_pfs"](42), "sriov_recorded_pfs: the input is 42, not the text of a state file. Fix:"),
    (lambda: FILTERS["sriov_recorded_pfs"]("", "0000:3b:00.0"),
     "sriov_recorded_pfs: '0000:3b:00.0' is not a list of PCI addresses. Fix:"),
    (lambda: FILTERS["sriov_vf_users"]("vm1", []), "sriov_vf_users: the input is 'vm1', not a list of domains. Fix:"),
    (lambda: FILTERS["sriov_vf_users"](["vm1"], []), "sriov_vf_users: the input is ['vm1'], not a list of domains. Fix:"),
    (lambda: FILTERS["sriov_vf_users"]([], [1]), "sriov_vf_users: [1] is not a list of VF PCI addresses. Fix:"),
    (lambda: FILTERS["sriov_vf_users"]([], [], "vm1"), "sriov_vf_users: 'vm1' is not a list of domain names. Fix:"),
])
def test_bad_input_is_refused(call, words):
    with pytest.raises(AnsibleFilterError) as error:
        call()
    assert str(error.value).startswith(words)
