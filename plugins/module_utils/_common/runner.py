# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""How a module's ``main()`` hands its work over and ends: the same way in every module.

A module builds its AnsibleModule, then calls one of these with its name
and the function that does the work; errors of the collection become one
``fail_json`` whose message starts with the module's name.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.module_utils.basic import missing_required_lib

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import RealtimeVirtError


def run_manager(module, name, build):
    """Run the manager ``build()`` returns and exit with its result.

    The manager's ``run()`` returns the result with ``warnings`` and a
    ``diff`` (kept only with ``--diff`` and a change); a failure reports
    the actions the manager had done by then.
    """
    manager = None
    try:
        manager = build()
        result = manager.run()
    except RealtimeVirtError as error:
        module.fail_json(msg="%s: %s" % (name, error), actions=list(getattr(manager, "actions", [])))
    for warning in result.pop("warnings", []):
        module.warn(warning)
    diff = result.pop("diff", None)
    if module._diff and result["changed"] and diff is not None:
        result["diff"] = diff
    module.exit_json(**result)


def exit_read(module, name, read, shape=None):
    """Read the host tree of ``module.params['root']`` and exit unchanged.

    ``read(root)`` returns ``(data, warnings)``; ``shape(data)`` gives the
    result's keys (``data`` itself by default).
    """
    try:
        data, warnings = read(module.params["root"])
    except RealtimeVirtError as error:
        module.fail_json(msg="%s: %s" % (name, error))
    for warning in warnings:
        module.warn(warning)
    result = dict(shape(data) if shape else data)
    module.exit_json(changed=False, **result)


def require_libraries(module, libraries, import_error):
    """Fail the way ansible-core's modules do when a Python library is missing.

    ``import_error`` is the traceback of the module's guarded import, or None.
    """
    if import_error is not None:
        module.fail_json(msg=missing_required_lib(libraries), exception=import_error)


def run_result(module, prefix, build, details=None):
    """Run the manager ``build()`` returns and exit with the result of its ``run()``.

    The libvirt modules end here. An error of the collection fails the task
    with ``"<prefix>: <error>"`` and the keys ``details(error)`` returns
    (the error's ``option`` by default). The result's ``warnings`` become
    Ansible warnings, its ``deprecations`` (``(message, version)`` pairs)
    Ansible deprecation warnings; a result with a true ``failed`` fails the task with
    ``"<prefix>: <msg>"`` and the rest of the result.
    """
    if details is None:
        def details(error):
            return dict(option=getattr(error, "option", None))
    try:
        result = build().run()
    except RealtimeVirtError as error:
        module.fail_json(msg="%s: %s" % (prefix, error), **details(error))
    for warning in result.pop("warnings", None) or []:
        module.warn(warning)
    for message, version in result.pop("deprecations", None) or []:
        module.deprecate(message, version=version, collection_name="realtime.virt")
    if result.pop("failed", False):
        msg = result.pop("msg", "failed")
        module.fail_json(msg="%s: %s" % (prefix, msg), **result)
    module.exit_json(**result)
