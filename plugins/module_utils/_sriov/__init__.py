# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Generic SR-IOV: one physical function's VF count, VF driver and boot state.

``errors``     typed errors, each naming the object, the cause and the fix
``sysfs``      SysfsWriter, the one writer of /sys (same ``root`` as HostReader)
``state``      read a PF, plan the writes, apply them
``statefile``  the boot-time state file, written atomically
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
