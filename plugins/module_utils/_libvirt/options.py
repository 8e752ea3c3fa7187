# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The options of one domain: the argument spec both libvirt modules use (pure).

``argument_spec()`` is libvirt_rt_domain's own spec.  libvirt_rt_domains
validates each item of its ``domains`` list against the same spec, item by
item, with ``ItemValidator``: an item's errors stay with that item (named
``domains[<index>] (<name>)``) instead of failing the whole task, which is
what ``AnsibleModule`` would do with a spec nested under ``domains``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError
from ansible_collections.realtime.virt.plugins.module_utils._common.options import uri_argument_spec
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.cachetune import CACHE_TYPES
from ansible_collections.realtime.virt.plugins.module_utils._libvirt.hardening import TICK_POLICIES, TIMER_NAMES


def argument_spec():
    cell = dict(cpus=dict(type="str", required=True), memory_mib=dict(type="int", required=True))
    cpu = dict(
        mode=dict(type="str", choices=["host-passthrough", "host-model", "maximum", "custom"]),
        model=dict(type="str"),
        features=dict(type="list", elements="dict", default=[], options=dict(
            name=dict(type="str", required=True),
            policy=dict(type="str", default="require", choices=["force", "require", "optional", "disable", "forbid"]),
        )),
        topology=dict(type="dict", options=dict(
            sockets=dict(type="int", default=1), cores=dict(type="int", default=1), threads=dict(type="int", default=1))),
        pinning=dict(type="list", elements="dict", default=[], options=dict(
            vcpu=dict(type="int", required=True), cpuset=dict(type="str", required=True))),
        emulator_cpuset=dict(type="str"),
        emulator_policy=dict(type="str", default="housekeeping", choices=["housekeeping", "isolate", "share", "cpuset"]),
        numa=dict(type="dict", options=dict(
            passthrough=dict(type="bool", default=False),
            cells=dict(type="list", elements="dict", options=cell))),
    )
    return dict(
        uri_argument_spec(),
        name=dict(type="str", required=True),
        state=dict(type="str", default="present", choices=["present", "running", "stopped", "absent"]),
        domain_type=dict(type="str", default="kvm", choices=["kvm", "qemu"]),
        machine=dict(type="str"),
        memory_mib=dict(type="int"),
        memory_kib=dict(type="int"),
        vcpus=dict(type="int"),
        cpu=dict(type="dict", options=cpu),
        realtime=dict(type="dict", options=dict(
            enabled=dict(type="bool", default=True),
            mask=dict(type="str", default=""),
            scheduler=dict(type="str", default="fifo", choices=["fifo", "rr"]),
            priority=dict(type="int", default=1),
        )),
        memory=dict(type="dict", options=dict(
            hugepages=dict(type="dict", options=dict(page_size=dict(type="str", default="2M"), nodeset=dict(type="str"))),
            locked=dict(type="bool"),
            numatune=dict(type="dict", options=dict(
                mode=dict(type="str", default="strict", choices=["strict", "preferred", "interleave", "restrictive"]),
                nodeset=dict(type="str", required=True))),
        )),
        rng=dict(type="dict", options=dict(
            profile=dict(type="str", default="ovirt"),
            backend=dict(type="str"),
            rate=dict(type="dict", options=dict(period=dict(type="int"), bytes=dict(type="int", required=True))),
            model=dict(type="str", choices=["virtio", "virtio-transitional", "virtio-non-transitional"]),
        )),
        rng_profiles=dict(type="dict", default={}),
        hostdevs=dict(type="list", elements="str", default=[]),
        iothreads=dict(type="int"),
        cachetune=dict(type="list", elements="dict", options=dict(
            vcpus=dict(type="str", required=True),
            caches=dict(type="list", elements="dict", required=True, options=dict(
                id=dict(type="int", required=True),
                level=dict(type="int", default=3),
                type=dict(type="str", default="both", choices=list(CACHE_TYPES)),
                size=dict(type="int", required=True),
                unit=dict(type="str", default="KiB"),
            )),
        )),
        memorytune=dict(type="list", elements="dict", options=dict(
            vcpus=dict(type="str", required=True),
            nodes=dict(type="list", elements="dict", required=True, options=dict(
                id=dict(type="int", required=True),
                bandwidth=dict(type="int", required=True),
            )),
        )),
        hardening=dict(type="dict", options=dict(
            enabled=dict(type="bool"),
            hint_dedicated=dict(type="bool"),
            timers=dict(type="list", elements="dict", options=dict(
                name=dict(type="str", required=True, choices=list(TIMER_NAMES)),
                tickpolicy=dict(type="str", choices=list(TICK_POLICIES)),
                present=dict(type="bool"),
            )),
            guest_suspend=dict(type="bool", default=False),
            immediate_allocation=dict(type="bool", default=True),
            strip_devices=dict(type="bool", default=True),
        )),
        boot=dict(type="dict", options=dict(
            kernel=dict(type="path", required=True), initrd=dict(type="path"), cmdline=dict(type="str"))),
        disks=dict(type="list", elements="dict", default=[], options=dict(
            path=dict(type="path", required=True),
            bus=dict(type="str", default="virtio", choices=["virtio", "scsi", "sata", "usb", "ide"]),
            format=dict(type="str", default="raw"),
            target=dict(type="str"),
            device=dict(type="str", default="disk", choices=["disk", "cdrom"]),
            iothread=dict(type="int"),
        )),
        interfaces=dict(type="list", elements="dict", default=[], options=dict(
            network=dict(type="str"), bridge=dict(type="str"), model=dict(type="str", default="virtio"),
            mac=dict(type="str"))),
        serial_log=dict(type="path"),
        base_xml=dict(type="str"),
        restart=dict(type="bool", default=False),
        autostart=dict(type="bool"),
    )


# Options the batch decides once for every item (one libvirt connection).
BATCH_WIDE = ("uri",)


def item_label(index, item):
    """``domains[3] (vm1)``, or ``domains[3]`` when the item has no usable name.

    A name with a control character is shown quoted (``domains[3] ('rt\\nvm')``), so the
    label stays on one line.
    """
    name = item.get("name") if isinstance(item, dict) else None
    if isinstance(name, str) and name:
        return "domains[%d] (%s)" % (index, name if name.isprintable() else repr(name))
    return "domains[%d]" % index


def _messages(result):
    """The validator's errors, each naming the option as AnsibleModule does."""
    messages = []
    for error in result.errors.errors:
        if type(error).__name__ == "UnsupportedError":
            messages.append("Unsupported parameters: %s" % error.msg)
        else:
            messages.append(error.msg)
    return messages


class ItemValidator(object):
    """Validate libvirt_rt_domains' items, one at a time, against ``argument_spec()``.

    ``uri`` is the batch's connection: an item may repeat it but not name
    another.  ``defaults`` are values for options an item leaves out (top
    level only: an item's own mapping replaces a default mapping whole);
    they are checked once here, against the same spec, and raise
    :class:`OptionError` naming ``defaults``.  A default ``autostart`` is
    not given to ``state: absent`` items (the manager refuses autostart
    there; an item that sets it itself is refused).
    """

    def __init__(self, uri, defaults=None):
        self.uri = uri
        defaults = dict(defaults or {})
        spec = argument_spec()
        for key in ("name",) + BATCH_WIDE:
            if key in defaults:
                raise OptionError("defaults.%s" % key, defaults[key], "cannot be a default for every domain",
                                  "give each domain its own name; set uri at the top level of the task")
        unknown = sorted(set(defaults) - set(spec))
        if unknown:
            raise OptionError("defaults", ", ".join(unknown), "not an option of realtime.virt.libvirt_rt_domain",
                              "use only the options an item of domains takes")
        if defaults:
            only = dict((key, dict((k, v) for k, v in spec[key].items() if k not in ("required", "default")))
                        for key in defaults)
            checked = ArgumentSpecValidator(only).validate(copy.deepcopy(defaults))
            if checked.errors.errors:
                raise OptionError("defaults", defaults, "; ".join(_messages(checked)),
                                  "give the defaults the types and values libvirt_rt_domain accepts")
            for key in defaults:
                spec[key]["default"] = checked.validated_parameters[key]
        spec["uri"]["default"] = uri
        self._validator = ArgumentSpecValidator(spec)

    def validate(self, item):
        """``(params, errors)``: the item with every default filled in, and what is wrong with it."""
        if not isinstance(item, dict):
            return None, ["each item must be a mapping of libvirt_rt_domain options, not %s" % type(item).__name__]
        result = self._validator.validate(copy.deepcopy(item))
        errors = _messages(result)
        params = copy.deepcopy(result.validated_parameters)
        if params.get("state") == "absent" and "autostart" not in item:
            params["autostart"] = None  # defaults.autostart is for the domains that stay defined
        if not errors and params.get("uri") != self.uri:
            errors.append(str(OptionError(
                "uri", params.get("uri"), "every domain of the task goes through its one connection to %s" % self.uri,
                "leave uri out of the item, or run a task per URI")))
        return params, errors
