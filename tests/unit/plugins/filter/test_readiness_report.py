# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.realtime.virt.plugins.filter.readiness import rt_readiness_report


CHECKS = [
    {"id": "kvm", "title": "KVM device", "ready": True, "blocker": True, "observed": "/dev/kvm present", "fix": "load kvm"},
    {"id": "sched_rt", "title": "Unthrottled real-time scheduling", "ready": False, "blocker": True,
     "observed": "kernel.sched_rt_runtime_us is 950000", "fix": "set kernel.sched_rt_runtime_us=-1 (role realtime.virt.rt_host)"},
    {"id": "preempt_rt", "title": "PREEMPT_RT kernel", "ready": False, "blocker": False,
     "observed": "preempt model dynamic", "fix": "install the real-time kernel"},
]


def test_not_ready_report_lists_blockers_first_with_fixes():
    lines = rt_readiness_report({"realtime_checks": CHECKS}, "node1")
    assert lines[0] == "Real-time readiness of node1: NOT READY (1 ready, 1 blocker, 1 warning)"
    assert lines[1].startswith("BLOCKER  Unthrottled real-time scheduling: kernel.sched_rt_runtime_us is 950000")
    assert lines[2].strip() == "fix: set kernel.sched_rt_runtime_us=-1 (role realtime.virt.rt_host)"
    assert lines[3].startswith("warning  PREEMPT_RT kernel")
    assert lines[4].strip() == "fix: install the real-time kernel"
    assert lines[5].startswith("ready    KVM device: /dev/kvm present")
    # a check that is ready shows no fix
    assert len(lines) == 6


def test_ready_when_only_warnings_fail():
    checks = [dict(c, ready=True) if c["blocker"] else c for c in CHECKS]
    lines = rt_readiness_report({"realtime_checks": checks})
    assert lines[0] == "Real-time readiness of this host: READY (2 ready, 0 blockers, 1 warning)"


@pytest.mark.parametrize("bad", [None, {}, {"realtime_checks": "x"}, []])
def test_rejects_input_that_is_not_rt_node(bad):
    with pytest.raises(AnsibleFilterError) as info:
        rt_readiness_report(bad)
    assert "realtime.virt.rt_node_facts" in str(info.value)
