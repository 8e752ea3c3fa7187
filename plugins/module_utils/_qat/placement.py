# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Give QAT VFs to domains: NUMA-local, free, never one VF twice.

Pure function, no I/O.  Every request is planned before any answer is
returned, so a request that cannot be met fails the whole plan (and the
play before anything changes) with the free count per NUMA node.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._kernel import pci

VFS_FIX = "pass qat_vf_info's assignable_vfs"


def _node(value):
    """VF NUMA node as an int, None when the kernel does not know (-1)."""
    if value is None:
        return None
    try:
        node = int(value)
    except (TypeError, ValueError):
        return None
    return node if node >= 0 else None


def _check_vfs(vfs):
    if not isinstance(vfs, list):
        raise OptionError("vfs", vfs, "the VF list must be a list, not %s" % type(vfs).__name__, VFS_FIX)
    seen = {}
    for vf in vfs:
        if not isinstance(vf, dict) or not isinstance(vf.get("pci_address"), str):
            raise OptionError("vfs[]", vf, "the VF has no pci_address", VFS_FIX)
        address = vf["pci_address"].lower()
        if not pci.ADDRESS.match(address):
            raise OptionError("vfs[].pci_address", vf["pci_address"], "not a PCI address like 0000:6b:00.1", VFS_FIX)
        if vf.get("assignable") is False:
            continue
        seen[address] = _node(vf.get("numa_node"))
    return seen


def _check_requests(requests):
    if not isinstance(requests, list):
        raise OptionError("requests", requests, "must be a list of {domain, count, numa_node}, not %s"
                          % type(requests).__name__, "give one request per domain")
    names = set()
    checked = []
    for request in requests:
        if not isinstance(request, dict):
            raise OptionError("requests[]", request, "not a dict with domain, count and numa_node",
                              "write {domain: vm1, count: 1, numa_node: 0}")
        domain = request.get("domain")
        if not isinstance(domain, str) or not domain:
            raise OptionError("requests[].domain", domain, "the request %r has no domain name" % (request,),
                              "set 'domain' to the libvirt domain name")
        if domain in names:
            raise OptionError("requests[].domain", domain, "the domain is requested twice",
                              "give one request per domain with the total count")
        names.add(domain)
        where = "requests[%s]" % domain
        count = request.get("count", 0)
        if isinstance(count, bool) or not isinstance(count, int) and not (isinstance(count, str) and count.isdigit()):
            raise OptionError(where + ".count", count, "not a whole number", "give 0 or more VFs")
        count = int(count)
        if count < 0:
            raise OptionError(where + ".count", count, "negative", "give 0 or more VFs")
        node = request.get("numa_node")
        if node is not None:
            if isinstance(node, bool) or not str(node).lstrip("-").isdigit() or int(node) < 0:
                raise OptionError(where + ".numa_node", node, "not a NUMA node id",
                                  "give the node of the domain's pinned CPUs (0, 1, ...) or leave it out")
            node = int(node)
        checked.append((domain, count, node))
    return checked


def _owners(used):
    """``{address: owning domain or None}`` from a list or a domain map."""
    owners = {}
    if used is None:
        return owners
    if isinstance(used, dict):
        for domain, addresses in used.items():
            for address in addresses or []:
                owners[str(address).lower()] = domain
    elif isinstance(used, list):
        for address in used:
            owners[str(address).lower()] = None
    else:
        raise OptionError("used", used, "must be a list of PCI addresses or a map {domain: [addresses]}",
                          "pass the hostdevs of the defined domains")
    return owners


def _free_text(free):
    if not free:
        return "no assignable VF is free on any node"
    parts = []
    for node in sorted(free, key=lambda n: (n is None, n)):
        label = "node %d" % node if node is not None else "no NUMA node"
        parts.append("%s: %d" % (label, len(free[node])))
    return ", ".join(parts)


def select_vfs(vfs, requests, used=None):
    """Return ``{domain: [pci addresses]}``.

    ``vfs``: assignable VFs (dicts with ``pci_address`` and ``numa_node``).
    ``requests``: ``[{domain, count, numa_node}]``; without ``numa_node``
    any node will do.  ``used``: addresses held by defined domains, either
    a plain list or ``{domain: [addresses]}``; a domain keeps the VFs it
    already holds (so a second run gives the same answer), nobody else gets
    them.  VFs whose NUMA node the kernel does not know (-1) match any node.
    """
    nodes = _check_vfs(vfs)
    wanted = _check_requests(requests)
    owners = _owners(used)

    result, taken, short = {}, set(), []
    # First keep what every domain already holds, so later domains cannot take it.
    for domain, count, node in wanted:
        keep = [a for a in sorted(nodes) if owners.get(a) == domain and (node is None or nodes[a] in (None, node))]
        result[domain] = keep[:count]
        taken.update(result[domain])
    for domain, count, node in wanted:
        need = count - len(result[domain])
        if need <= 0:
            continue
        candidates = [a for a in sorted(nodes)
                      if a not in taken and a not in owners and (node is None or nodes[a] in (None, node))]
        if len(candidates) < need:
            short.append((domain, count, node, len(result[domain]) + len(candidates)))
            continue
        result[domain].extend(candidates[:need])
        taken.update(candidates[:need])
    if short:
        free = {}
        for address in sorted(nodes):
            if address not in owners:
                free.setdefault(nodes[address], []).append(address)
        reasons = []
        for domain, count, node, available in short:
            where = "on NUMA node %d" % node if node is not None else "on any node"
            reasons.append("domain %r asks for %d QAT VF(s) %s but only %d can be given" % (domain, count, where, available))
        raise OptionError(
            "requests[%s].count" % short[0][0], short[0][1],
            "%s. Free assignable VFs per node (not held by any defined domain): %s"
            % ("; ".join(reasons), _free_text(free)),
            "create more VFs (qat_numvfs), lower the counts or move the domain's CPUs to a node with free VFs")
    return dict((domain, sorted(addresses)) for domain, addresses in result.items())
