# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan of a whole host for site.yml, drawn from every subsystem's own plan.

``plan``  what the stages hand each other (boot arguments, IOMMU), from the facts and the inventory
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
