# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""virtio-rng profiles: what oVirt and OpenStack Nova configure by default.

Sources (see docs/libvirt_rt_domain.md for the full citations):

* oVirt engine: the VM's random generator device uses the ``urandom``
  source from cluster level 4.1 on (``random`` before, ``hwrng`` when the
  cluster allows it) and writes ``<rate>`` only when the user gave "bytes
  per period"; out of the box there is no rate limit.
* OpenStack Nova (libvirt driver): the backend path is the
  ``[libvirt] rng_dev_path`` option, default ``/dev/urandom``; a ``<rate>``
  is written only when the flavor sets both ``hw_rng:rate_bytes`` and
  ``hw_rng:rate_period`` to non-zero values, so the default has no limit.
* libvirt: ``bytes`` is mandatory in ``<rate>``; ``period`` defaults to
  1000 ms.

A profile gives the knobs a project would use; explicit ``backend`` and
``rate`` options override it.  ``backend`` left unset in both profile and
options means ``/dev/random`` where the host has it, else ``/dev/urandom``
(the rule of the KubeVirt virtio-rng proposal).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import OptionError

# name -> {"backend": path or None, "rate": {"period": ms, "bytes": n} or None,
#          "model": device model or None}
BUILTIN_PROFILES = {
    "ovirt": {"backend": None, "rate": None, "model": "virtio"},
    "openstack": {"backend": None, "rate": None, "model": "virtio"},
}

BACKENDS = ("/dev/random", "/dev/urandom", "/dev/hwrng")
MODELS = ("virtio", "virtio-transitional", "virtio-non-transitional")
DEFAULT_PERIOD_MS = 1000


def _check_rate(option, rate):
    if rate is None:
        return None
    if not isinstance(rate, dict):
        raise OptionError(option, rate, "a rate is a mapping with 'bytes' and optionally 'period' (ms)")
    nbytes = rate.get("bytes")
    period = rate.get("period")
    if nbytes in (None, 0) and period in (None, 0):
        return None
    if nbytes is None:
        raise OptionError(option, rate, "libvirt needs 'bytes' whenever a rate is given")
    try:
        nbytes = int(nbytes)
        period = DEFAULT_PERIOD_MS if period in (None, "") else int(period)
    except (TypeError, ValueError):
        raise OptionError(option, rate, "'bytes' and 'period' must be whole numbers")
    if nbytes <= 0 or period <= 0:
        raise OptionError(option, rate, "'bytes' and 'period' must be greater than 0")
    return {"period": period, "bytes": nbytes}


def resolve_rng(options, custom_profiles=None, available=None):
    """Return ``{"model", "backend", "rate"}`` for the rng options, or None.

    ``options`` is the module's ``rng`` dict (None: no device).
    ``custom_profiles`` maps names to ``{backend, rate, model}`` and wins
    over the built-in table.  ``available`` is the set of device paths
    present on the host (None: do not check).
    """
    if options is None:
        return None
    profiles = dict(BUILTIN_PROFILES)
    for name, values in (custom_profiles or {}).items():
        if not isinstance(values, dict):
            raise OptionError("rng_profiles.%s" % name, values, "a profile is a mapping of backend, rate and model")
        unknown = set(values) - set(("backend", "rate", "model"))
        if unknown:
            raise OptionError("rng_profiles.%s" % name, values, "unknown keys %s; a profile has backend, rate and model" % ", ".join(sorted(unknown)))
        profiles[name] = values
    name = options.get("profile") or "ovirt"
    if name not in profiles:
        raise OptionError("rng.profile", name, "no such profile; known profiles are %s" % ", ".join(sorted(profiles)),
                          "define it under rng_profiles")
    profile = profiles[name]

    model = options.get("model") or profile.get("model") or "virtio"
    if model not in MODELS:
        raise OptionError("rng.model", model, "must be one of %s" % ", ".join(MODELS))

    backend = options.get("backend") or profile.get("backend")
    if backend is None:
        if available is None or "/dev/random" in available:
            backend = "/dev/random"
        else:
            backend = "/dev/urandom"
    if not backend.startswith("/dev/"):
        raise OptionError("rng.backend", backend, "must be a character device path such as /dev/urandom or /dev/hwrng")
    if available is not None and backend not in available:
        raise OptionError("rng.backend", backend, "the host has no such device", "pick a backend the host has (/dev/urandom always exists)")

    if options.get("rate") is not None:
        rate = _check_rate("rng.rate", options.get("rate"))
    else:
        rate = _check_rate("rng_profiles.%s.rate" % name, profile.get("rate"))
    return {"model": model, "backend": backend, "rate": rate, "profile": name}
