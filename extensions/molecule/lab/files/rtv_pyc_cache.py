# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A bytecode cache for Python modules imported from zip files, for the tests.

Ansible runs every module task as a zip payload (AnsiballZ) that Python
imports with zipimport, which never writes bytecode: each task compiles
ansible.module_utils and the module from source again. That is most of a
task's time in the lab VM under TCG, and about a quarter of a short task's
time on this host. install() wraps zipimport's compile step: the code object
of a source it compiled once is kept in a directory, keyed by the
interpreter's magic number and optimisation level, the path inside the zip
and the source's SHA-256, and loaded from there the next time. What runs is
the same code; only the compile is skipped. Any error falls back to
compiling, and the cache can be removed at any time.

A .pth file that imports it turns it on: the lab's prepare installs one in
the VM (cache in CACHE_DIR), and `make venv` one in the project's .venv, the
Python of every task the tests run on this host (cache in .cache/pyc).
"""

import marshal
import os
import sys
import zipimport

# Python's own importer, loaded before site runs: importing importlib.util or
# hashlib here would cost every Python start in the VM a fifth of a second.
import _frozen_importlib_external

CACHE_DIR = "/var/cache/rtv-pyc"


def _inner_path(pathname):
    """The path inside the zip (the payload's temporary directory differs per task)."""
    marker = ".zip" + os.sep
    index = pathname.rfind(marker)
    return pathname[index + len(marker):] if index >= 0 else pathname


def _with_filename(code, filename):
    """``code`` and every code object in it, named after ``filename`` (for tracebacks)."""
    consts = tuple(_with_filename(item, filename) if isinstance(item, type(code)) else item for item in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _cached_compile(compile_source, cache_dir=CACHE_DIR):
    def compile_with_cache(pathname, source):
        try:
            import hashlib  # pylint: disable=import-outside-toplevel  # the payload imports it anyway

            key = b"%s %d %s\0" % (_frozen_importlib_external.MAGIC_NUMBER, sys.flags.optimize, _inner_path(pathname).encode())
            entry = os.path.join(cache_dir, hashlib.sha256(key + source).hexdigest())
            try:
                with open(entry, "rb") as handle:
                    return _with_filename(marshal.loads(handle.read()), pathname)
            except OSError:
                pass
        except Exception:  # pylint: disable=broad-except
            return compile_source(pathname, source)
        code = compile_source(pathname, source)
        try:
            os.makedirs(cache_dir, exist_ok=True)
            partial = "%s.%d" % (entry, os.getpid())
            with open(partial, "wb") as handle:
                handle.write(marshal.dumps(code))
            os.replace(partial, entry)
        except Exception:  # pylint: disable=broad-except
            pass
        return code
    compile_with_cache.rtv_pyc_cache = True
    return compile_with_cache


def install(cache_dir=CACHE_DIR):
    """Wrap zipimport's compile step once, keeping code in ``cache_dir``.

    A .pth file calls this at every Python start: in the lab VM with the
    default directory, in the project's virtualenv with one under .cache/.
    """
    compile_source = getattr(zipimport, "_compile_source", None)
    if compile_source is not None and not getattr(compile_source, "rtv_pyc_cache", False):
        zipimport._compile_source = _cached_compile(compile_source, cache_dir)
