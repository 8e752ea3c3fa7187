# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""qat_services' manager against a fake sysfs whose qat/ files act like the qat_4xxx driver."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os

import pytest


import qat_trees
from pci_kernel import FakeKernel

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import ApplyError, HostError, OptionError
from ansible_collections.realtime.virt.plugins.module_utils._qat.services import QatServices

PF = "0000:6b:00.0"
STATE = "/sys/bus/pci/devices/%s/qat/state" % PF
SERVICES = "/sys/bus/pci/devices/%s/qat/cfg_services" % PF


@pytest.fixture
def host(tmp_path):
    tree = qat_trees.PciTree(str(tmp_path / "root"))
    qat_trees.add_qat_pf(tree, PF, "4xxx", services="sym;asym")
    qat_trees.add_qat_pf(tree, "0000:3d:00.0", "c62x")
    return tree, FakeKernel(tree)


def qat_file(tree, name, pf=PF):
    with open(os.path.join(tree.device_dir(pf), "qat", name)) as handle:
        return handle.read().strip()


def run(host, services, check_mode=False, pf=PF):
    tree, kernel = host
    return QatServices(pf, services, root=tree.root, check_mode=check_mode, writer=kernel).run()


# -- the fake refuses what the driver refuses -------------------------------------------------------
def test_fake_kernel_refuses_services_while_up(host):
    tree, kernel = host
    with pytest.raises(OSError) as info:
        kernel.write(SERVICES, "dc")
    assert info.value.errno == errno.EINVAL
    assert qat_file(tree, "cfg_services") == "sym;asym"
    with pytest.raises(OSError):
        kernel.write(STATE, "up")  # already up


# -- the runs -------------------------------------------------------------------------------------
@pytest.mark.parametrize("services", ["sym;asym", "asym;sym", " ASYM ; sym "])
def test_already_right_writes_nothing(host, services):
    tree, kernel = host
    result = run(host, services)
    assert result["changed"] is False
    assert kernel.log == [] and result["actions"] == []
    assert (result["services"], result["state"]) == ("sym;asym", "up")


def test_change_goes_down_writes_then_up(host):
    tree, kernel = host
    result = run(host, "dc")
    assert kernel.log == [(STATE, "down"), (SERVICES, "dc"), (STATE, "up")]
    assert result["changed"] is True
    assert (result["services_before"], result["services"], result["state"]) == ("sym;asym", "dc", "up")
    assert (qat_file(tree, "cfg_services"), qat_file(tree, "state")) == ("dc", "up")
    assert result["diff"]["before"] == "state: up\ncfg_services: sym;asym\n"
    assert result["diff"]["after"] == "state: up\ncfg_services: dc\n"
    again = run(host, "dc")
    assert again["changed"] is False and len(kernel.log) == 3


def test_device_already_down_is_not_taken_down_again(host):
    tree, kernel = host
    kernel.write(STATE, "down")
    del kernel.log[:]
    result = run(host, "sym;dc")
    assert kernel.log == [(SERVICES, "sym;dc"), (STATE, "up")]
    assert result["state_before"] == "down" and result["state"] == "up"


def test_check_mode_writes_nothing_and_predicts(host):
    tree, kernel = host
    result = run(host, "dc", check_mode=True)
    assert kernel.log == []
    assert result["changed"] is True and result["services"] == "dc" and result["state"] == "up"
    assert [action.split(": write")[0] for action in result["actions"]] == [
        "take %s down" % PF, "set the services of %s" % PF, "bring %s up" % PF]
    assert qat_file(tree, "cfg_services") == "sym;asym"
    assert run(host, "asym;sym", check_mode=True)["changed"] is False


def test_refused_write_fails_and_brings_the_device_back_up(host):
    tree, kernel = host
    kernel.fail[("qat/cfg_services", None)] = errno.EINVAL
    with pytest.raises(ApplyError) as info:
        run(host, "dc")
    message = str(info.value)
    assert "0000:6b:00.0 refused services 'dc'" in message
    assert "the device is up again" in message
    assert "take 0000:6b:00.0 down" in message
    assert kernel.log[-1] == (STATE, "up")
    assert (qat_file(tree, "cfg_services"), qat_file(tree, "state")) == ("sym;asym", "up")


def test_services_silently_ignored_fail_after_read_back(host):
    tree, kernel = host
    kernel.qat_ignore_services.add(PF)
    with pytest.raises(ApplyError, match=r"reads services 'sym;asym' after 'dc' was written.*up again"):
        run(host, "dc")
    assert qat_file(tree, "state") == "up"


def test_state_not_returning_up_fails_clearly(host):
    tree, kernel = host
    kernel.qat_stay_down.add(PF)
    with pytest.raises(ApplyError) as info:
        run(host, "dc")
    message = str(info.value)
    assert "did not come up with services 'dc'" in message and "firmware" in message
    assert "set the services of 0000:6b:00.0" in message
    assert qat_file(tree, "state") == "down"


def test_state_reads_down_after_up_fails_clearly(host):
    tree, kernel = host
    answer_up = kernel._qat_state

    def up_but_still_down(address, value, path):
        """A device that accepts 'up' and still reads down afterwards."""
        answer_up(address, value, path)
        if value == "up":
            with open(os.path.join(tree.device_dir(address), "qat", "state"), "w") as handle:
                handle.write("down\n")
    kernel._qat_state = up_but_still_down
    with pytest.raises(ApplyError, match=r"reads state 'down' after 'up' was written.*kernel log"):
        run(host, "dc")
    assert qat_file(tree, "cfg_services") == "dc"


def test_refusing_to_go_down_names_the_cause(host):
    tree, kernel = host
    kernel.fail[("qat/state", "down")] = errno.EBUSY
    with pytest.raises(ApplyError, match=r"refused to go down .*stay 'sym;asym'.*Done before the failure: nothing"):
        run(host, "dc")


@pytest.mark.parametrize("pf, services, words", [
    ("6b:00.0", "dc", ["pf='6b:00.0'", "lspci -D"]),
    (PF, "", ["services=''", "sym;asym"]),
    (PF, "crypto", ["services='crypto'", "unknown service 'crypto'"]),
    (PF, "sym;sym", ["services='sym;sym'", "twice"]),
    (PF, "sym;asym;dc", ["services='sym;asym;dc'", "at most 2"]),
    (PF, "dcc;sym", ["services='dcc;sym'", "stand alone"]),
    (PF, None, ["services=None"]),
])
def test_bad_input_fails_before_any_write(host, pf, services, words):
    tree, kernel = host
    with pytest.raises(OptionError) as info:
        run(host, services, pf=pf)
    for word in words:
        assert word in str(info.value)
    assert kernel.log == []


@pytest.mark.parametrize("pf, match", [
    ("0000:6c:00.0", r"0000:6c:00.0 does not exist"),
    ("0000:3d:00.0", r"0000:3d:00.0 has no readable qat/state.*4xxx"),
])
def test_device_without_qat_files_fails(host, pf, match):
    tree, kernel = host
    with pytest.raises(HostError, match=match):
        run(host, "dc", pf=pf)
    assert kernel.log == []
