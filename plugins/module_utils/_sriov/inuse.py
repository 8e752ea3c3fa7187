# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which running domains hold VFs that an undo is about to remove (pure)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def vf_users(domains, going, removed_domains=()):
    """``"name (VF, VF)"`` for each running domain, not in ``removed_domains``,
    whose PCI host devices include one of ``going``.

    ``domains`` are the entries of libvirt_rt_domain_info's ``domains``
    (``name``, ``running``, ``hostdevs``); addresses compare lowercased and
    are named lowercased, in the domain's order.
    """
    going = set(address.lower() for address in going or ())
    removed_domains = set(removed_domains or ())
    users = []
    for domain in domains or ():
        held = [address.lower() for address in domain.get("hostdevs") or () if address.lower() in going]
        if domain.get("running") and domain.get("name") not in removed_domains and held:
            users.append("%s (%s)" % (domain.get("name"), ", ".join(held)))
    return users
