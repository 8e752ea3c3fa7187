# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
"""Make the collection importable as ansible_collections.realtime.virt.

`make` creates .cache/collections/ansible_collections/realtime/virt as a
link to the repository; ansible-test units does the same on its own.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

_TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_COLLECTIONS = os.path.join(_TOP, ".cache", "collections")
if os.path.isdir(_COLLECTIONS) and _COLLECTIONS not in sys.path:
    sys.path.insert(0, _COLLECTIONS)
