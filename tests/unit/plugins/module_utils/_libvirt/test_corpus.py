# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""base_xml keeps what the module does not own, over libvirt's own test domains (no libvirt needed).

Each file of tests/corpus/libvirt_domains is merged with the real-time
option set of tests/unit/fixtures/libvirt_corpus.py; every element and
attribute of the base outside what that option set owns must be in the
merged domain, and the option set's own elements must be there.  The
same property against the real libvirtd is the integration target
libvirt_rt_domain_corpus.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re

import pytest
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

import libvirt_corpus as corpus
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.render import render
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.xmltree import parse_xml
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.spec import build_spec
from ansible_collections.realtime.virt.plugins.modules.libvirt_rt_domain import argument_spec

HOST = {"online": [0, 1], "hugepage_sizes_kib": [2048, 1048576], "numa_nodes": {0: [0, 1]},
        "devices": {"/dev/random", "/dev/urandom"}}


def merged(name):
    base = corpus.adapted(name)
    opts = corpus.options(base)
    params = ArgumentSpecValidator(argument_spec()).validate(opts).validated_parameters
    root = parse_xml(params["base_xml"])
    return base, opts, render(build_spec(params, HOST, root), root)


@pytest.mark.parametrize("name", corpus.names())
def test_nothing_of_the_base_is_lost(name):
    base, opts, domain = merged(name)
    assert corpus.lost(corpus.strip_owned(base, opts), corpus.explode_sched(domain)) == []


@pytest.mark.parametrize("name", corpus.names())
def test_the_options_are_applied(name):
    _base, opts, domain = merged(name)
    assert corpus.ours_missing(domain, opts) == []


def test_the_corpus_is_a_few_dozen_sourced_files():
    names = corpus.names()
    sources = corpus.sources()
    assert len(names) >= 30
    assert sorted(sources) == names
    for entry in sources.values():
        assert entry["source"].startswith(("tests/qemuxmlconfdata/", "tests/qemuxml2argvdata/"))
        assert re.match(r"^[0-9a-f]{40}$", entry["commit"])
    with open(os.path.join(corpus.CORPUS, "README.md")) as handle:
        readme = handle.read()
    for name in names:
        assert "| `%s` |" % name in readme


def test_every_file_is_a_x86_64_domain():
    for name in corpus.names():
        base = corpus.adapted(name)
        assert base.find("os/type").get("arch") in (None, "x86_64"), name


def test_the_check_catches_a_lost_child():
    """The property is not a tautology: a base child missing from the result is reported."""
    base, opts, domain = merged("cputune.xml")
    shares = domain.find("cputune/shares")
    shares.getparent().remove(shares)
    assert corpus.lost(corpus.strip_owned(base, opts), corpus.explode_sched(domain)) == [
        "domain/cputune/shares: element <shares>2048 lost"]
    domain.find("cputune/vcpupin[@vcpu='1']").set("cpuset", "0")  # the base's pin of vCPU 1, not ours
    found = corpus.lost(corpus.strip_owned(base, opts), corpus.explode_sched(domain))
    assert len(found) == 2 and found[1].startswith("domain/cputune/vcpupin: attribute "), found


def test_sources_json_is_sorted_and_parses():
    with open(os.path.join(corpus.CORPUS, "sources.json")) as handle:
        text = handle.read()
    assert list(json.loads(text)) == sorted(json.loads(text))
