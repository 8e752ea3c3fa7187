# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Verification of real-time domains: observe (libvirt, /proc), check, report."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
