# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ptp role's plan: ptp4l's configuration per profile, the command lines, every refusal.

The profiles are checked against the configuration files linuxptp itself
ships (scripts/host-packages.sh installs linuxptp), not against a copy of
the values.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.realtime.virt.plugins.module_utils._ptp.plan import PtpPlanError, plan

CONFIGS = "/usr/share/doc/linuxptp/configs"
HARDWARE = {"name": "ens1f0", "hardware_transmit": True, "hardware_receive": True, "hardware_raw_clock": True,
            "software_transmit": True, "software_receive": True, "phc_index": 2}
HARDWARE_2 = dict(HARDWARE, name="ens2f0", phc_index=5)
VETH = {"name": "veth0", "hardware_transmit": False, "hardware_receive": False, "hardware_raw_clock": False,
        "software_transmit": True, "software_receive": True, "phc_index": None}
RX_ONLY = dict(VETH, name="ifb0", software_transmit=False)
KNOWN = [HARDWARE, HARDWARE_2, VETH, RX_ONLY]


def _global(text):
    """The [global] keys of a linuxptp configuration file, as {key: value}."""
    keys, section = {}, None
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("["):
            section = line
        elif line and section == "[global]":
            fields = line.split(None, 1)
            keys[fields[0]] = fields[1].strip() if len(fields) > 1 else ""
    return keys


def _shipped(name):
    with open(os.path.join(CONFIGS, name)) as handle:
        return _global(handle.read())


@pytest.mark.parametrize("profile, shipped", [("g8275.1", "G.8275.1.cfg"), ("g8275.2", "G.8275.2.cfg"),
                                              ("gptp", "gPTP.cfg")])
def test_a_client_has_every_key_of_linuxptps_own_profile_file(profile, shipped):
    masters = ["192.0.2.1"] if profile == "g8275.2" else None
    written = _global(plan(KNOWN, ["ens1f0"], profile=profile, housekeeping="0-1", unicast_masters=masters)["config"])
    expected = _shipped(shipped)
    assert expected, shipped
    assert dict((key, written.get(key)) for key in expected) == expected


def test_e2e_is_linuxptps_default_delay_mechanism_and_transport():
    written = _global(plan(KNOWN, ["ens1f0"], housekeeping="0-1")["config"])
    default = _shipped("default.cfg")
    for key in ("delay_mechanism", "network_transport", "domainNumber", "free_running"):
        assert written[key] == default[key], key


@pytest.mark.parametrize("profile, domain", [("e2e", 0), ("g8275.1", 24), ("g8275.2", 44), ("gptp", 0)])
def test_auto_domain_is_the_profiles(profile, domain):
    result = plan(KNOWN, ["ens1f0"], profile=profile, housekeeping="0", unicast_masters=["192.0.2.1"])
    assert result["domain"] == domain
    assert "domainNumber %d" % domain in result["config"].splitlines()


@pytest.mark.parametrize("profile, good, bad", [("e2e", [0, 127], [128, -1]), ("g8275.1", [24, 43], [23, 44]),
                                                ("g8275.2", [44, 63], [43, 64]), ("gptp", [0], [1])])
def test_domain_range_per_profile(profile, good, bad):
    for number in good:
        assert plan(KNOWN, ["ens1f0"], profile=profile, domain=number, housekeeping="0",
                    unicast_masters=["192.0.2.1"])["domain"] == number
    for number in bad:
        with pytest.raises(PtpPlanError, match="ptp_domain=%d is outside" % number):
            plan(KNOWN, ["ens1f0"], profile=profile, domain=number, housekeeping="0", unicast_masters=["192.0.2.1"])


def test_hardware_client_runs_phc2sys_on_ptp4ls_port_in_its_domain():
    result = plan(KNOWN, ["ens1f0"], profile="g8275.1", housekeeping="0-1", isolated="2-15")
    assert result["time_stamping"] == "hardware"
    assert result["phc2sys"] is True
    assert result["phc2sys_argv"] == ["/usr/sbin/phc2sys", "-a", "-r", "-n", "24", "-m", "-q"]
    assert result["ptp4l_argv"] == ["/usr/sbin/ptp4l", "-f", "/etc/linuxptp/realtime-virt-ptp4l.conf"]
    assert result["steers_system_clock"] is True
    assert result["cpus"] == "0-1"
    lines = result["config"].splitlines()
    assert "time_stamping hardware" in lines and "slaveOnly 1" in lines and "masterOnly 0" in lines
    assert lines[-1] == "[ens1f0]"


def test_grandmaster_copies_the_system_clock_and_leaves_it_to_its_keeper():
    result = plan(KNOWN, ["ens1f0"], clock="grandmaster", housekeeping="0")
    assert result["phc2sys_argv"][:4] == ["/usr/sbin/phc2sys", "-a", "-r", "-r"]
    assert result["steers_system_clock"] is False
    assert "masterOnly 1" in result["config"].splitlines()
    assert "slaveOnly 0" in result["config"].splitlines()


def test_software_timestamps_need_the_users_leave_and_run_no_phc2sys():
    with pytest.raises(PtpPlanError, match="'veth0' has no hardware timestamping"):
        plan(KNOWN, ["veth0"], housekeeping="0")
    result = plan(KNOWN, ["veth0"], software_timestamping=True, housekeeping="0")
    assert result["time_stamping"] == "software"
    assert result["phc2sys"] is False and result["phc2sys_argv"] == []
    assert result["warnings"] and "veth0" in result["warnings"][0]
    with pytest.raises(PtpPlanError, match="ptp_phc2sys=true needs hardware"):
        plan(KNOWN, ["veth0"], software_timestamping=True, housekeeping="0", phc2sys=True)


def test_an_interface_without_software_transmit_is_refused_even_with_software_allowed():
    with pytest.raises(PtpPlanError, match="'ifb0' has neither hardware nor software timestamping"):
        plan(KNOWN, ["ifb0"], software_timestamping=True, housekeeping="0")


def test_free_running_measures_only():
    result = plan(KNOWN, ["ens1f0"], free_running=True, housekeeping="0")
    assert "free_running 1" in result["config"].splitlines()
    assert result["phc2sys"] is False
    assert result["steers_system_clock"] is False


def test_boundary_needs_two_ports_and_ports_on_two_clocks_are_jbod():
    with pytest.raises(PtpPlanError, match="ptp_clock=boundary needs two or more"):
        plan(KNOWN, ["ens1f0"], clock="boundary", housekeeping="0")
    lines = plan(KNOWN, ["ens1f0", "ens2f0"], clock="boundary", housekeeping="0")["config"].splitlines()
    assert "boundary_clock_jbod 1" in lines
    assert "[ens1f0]" in lines and "[ens2f0]" in lines
    one_clock = plan([HARDWARE, dict(HARDWARE_2, phc_index=2)], ["ens1f0", "ens2f0"], clock="boundary",
                     housekeeping="0")
    assert "boundary_clock_jbod 1" not in one_clock["config"].splitlines()


def test_g8275_2_client_gets_its_unicast_master_table():
    with pytest.raises(PtpPlanError, match="ptp_unicast_masters"):
        plan(KNOWN, ["ens1f0"], profile="g8275.2", housekeeping="0")
    lines = plan(KNOWN, ["ens1f0"], profile="g8275.2", housekeeping="0",
                 unicast_masters=["192.0.2.1", "2001:db8::1"])["config"].splitlines()
    table = lines[lines.index("[unicast_master_table]"):]
    assert table[:5] == ["[unicast_master_table]", "table_id 1", "logQueryInterval 2", "UDPv4 192.0.2.1",
                         "UDPv6 2001:db8::1"]
    assert lines[lines.index("[ens1f0]") + 1] == "unicast_master_table 1"


def test_the_daemons_stay_off_isolated_cpus():
    assert plan(KNOWN, ["ens1f0"], housekeeping="0-1,16-17", isolated="2-15")["cpus"] == "0-1,16-17"
    assert plan(KNOWN, ["ens1f0"], cpus="1", housekeeping="0-1", isolated="2-15")["cpus"] == "1"
    with pytest.raises(PtpPlanError, match="ptp_cpus='0-2' includes the isolated CPUs 2"):
        plan(KNOWN, ["ens1f0"], cpus="0-2", housekeeping="0-1", isolated="2-15")
    with pytest.raises(PtpPlanError, match="ptp_cpus='x'"):
        plan(KNOWN, ["ens1f0"], cpus="x", housekeeping="0-1")


@pytest.mark.parametrize("priority", [0, 99, "10", True])
def test_priority_out_of_range(priority):
    with pytest.raises(PtpPlanError, match="ptp_priority="):
        plan(KNOWN, ["ens1f0"], priority=priority, housekeeping="0")


def test_options_add_keys_and_refuse_the_roles_own():
    lines = plan(KNOWN, ["ens1f0"], housekeeping="0", options={"logSyncInterval": -4})["config"].splitlines()
    assert "logSyncInterval -4" in lines
    for key, option in (("domainNumber", "ptp_domain"), ("time_stamping", "ptp_software_timestamping"),
                        ("slaveOnly", "ptp_clock")):
        with pytest.raises(PtpPlanError, match="ptp_options: %s is set by the role's %s" % (key, option)):
            plan(KNOWN, ["ens1f0"], housekeeping="0", options={key: 1})
    with pytest.raises(PtpPlanError, match="not a one-line value"):
        plan(KNOWN, ["ens1f0"], housekeeping="0", options={"logSyncInterval": "-4\n[eth9]"})


def test_every_problem_at_once():
    with pytest.raises(PtpPlanError) as error:
        plan(KNOWN, ["eth9", "veth0"], profile="bogus", clock="slave", domain="x", transport="ip", housekeeping="0")
    text = str(error.value)
    for part in ("ptp_profile='bogus'", "ptp_clock='slave'", "'eth9' is not a network interface",
                 "'veth0' has no hardware timestamping", "ptp_domain='x'", "ptp_transport='ip'"):
        assert part in text
    assert len(error.value.problems) == 6


def test_no_interface_named():
    with pytest.raises(PtpPlanError, match=r"ptp_interfaces=\[\] must list one or more"):
        plan(KNOWN, [], housekeeping="0")
