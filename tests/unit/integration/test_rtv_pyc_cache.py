# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lab VM's bytecode cache for zip imports: the same code as a compile, and never in the way."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess
import sys
import zipfile
import zipimport

from integration_scripts import LAB_FILES, load

cache = load("rtv_pyc_cache", LAB_FILES)

SOURCE = b"def answer():\n    return 42\n\nVALUE = answer()\n"


class Compiler:
    """compile() as zipimport calls it, counting the calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self, pathname, source):
        self.calls += 1
        return compile(source, pathname, "exec", dont_inherit=True)


def _run(code):
    scope = {}
    exec(code, scope)  # pylint: disable=exec-used
    return scope


def test_a_second_payload_with_the_same_source_loads_the_code_instead_of_compiling(tmp_path):
    compiler = Compiler()
    compile_source = cache._cached_compile(compiler, str(tmp_path))
    first = compile_source("/tmp/ansible_a/payload.zip/ansible/module_utils/x.py", SOURCE)
    second = compile_source("/tmp/ansible_b/payload.zip/ansible/module_utils/x.py", SOURCE)
    assert compiler.calls == 1
    assert _run(second)["VALUE"] == _run(first)["VALUE"] == 42
    # tracebacks name this payload's file, in the module and in its functions
    assert second.co_filename == "/tmp/ansible_b/payload.zip/ansible/module_utils/x.py"
    assert _run(second)["answer"].__code__.co_filename == second.co_filename


def test_a_changed_source_or_another_file_is_compiled_again(tmp_path):
    compiler = Compiler()
    compile_source = cache._cached_compile(compiler, str(tmp_path))
    compile_source("/tmp/a/p.zip/ansible/x.py", SOURCE)
    changed = compile_source("/tmp/b/p.zip/ansible/x.py", SOURCE.replace(b"42", b"43"))
    compile_source("/tmp/c/p.zip/ansible/y.py", SOURCE)
    assert compiler.calls == 3
    assert _run(changed)["VALUE"] == 43


def test_a_damaged_entry_is_compiled_again(tmp_path):
    compiler = Compiler()
    compile_source = cache._cached_compile(compiler, str(tmp_path))
    compile_source("/tmp/a/p.zip/ansible/x.py", SOURCE)
    for entry in os.listdir(str(tmp_path)):
        (tmp_path / entry).write_bytes(b"not marshal data")
    assert _run(compile_source("/tmp/b/p.zip/ansible/x.py", SOURCE))["VALUE"] == 42
    assert compiler.calls == 2


def test_without_a_writable_cache_it_still_compiles(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache directory would be")
    compiler = Compiler()
    compile_source = cache._cached_compile(compiler, str(blocker / "cache"))
    assert _run(compile_source("/tmp/a/p.zip/ansible/x.py", SOURCE))["VALUE"] == 42
    assert _run(compile_source("/tmp/b/p.zip/ansible/x.py", SOURCE))["VALUE"] == 42
    assert compiler.calls == 2


def test_install_wraps_zipimport_once(monkeypatch):
    compiler = Compiler()
    monkeypatch.setattr(zipimport, "_compile_source", compiler, raising=False)
    cache.install()
    wrapped = zipimport._compile_source
    cache.install()
    assert zipimport._compile_source is wrapped
    assert wrapped is not compiler and wrapped.rtv_pyc_cache


def test_install_keeps_the_code_in_the_directory_it_is_given(monkeypatch, tmp_path):
    compiler = Compiler()
    monkeypatch.setattr(zipimport, "_compile_source", compiler, raising=False)
    cache.install(str(tmp_path / "pyc"))
    for payload in ("a", "b"):
        code = zipimport._compile_source("/tmp/%s/p.zip/ansible/x.py" % payload, SOURCE)
        assert _run(code)["VALUE"] == 42
    assert compiler.calls == 1
    assert len(os.listdir(str(tmp_path / "pyc"))) == 1


def test_a_real_zip_import_goes_through_the_cache(tmp_path):
    """What Ansible's payloads do: a fresh Python imports a module from a zip, twice."""
    payload = tmp_path / "payload.zip"
    with zipfile.ZipFile(str(payload), "w") as archive:
        archive.writestr("rtv_probe.py", SOURCE)
    # -S: without site, so no .pth has installed a cache already
    script = ("import sys; sys.path[:0] = [sys.argv[1], sys.argv[3]]; import rtv_pyc_cache; "
              "rtv_pyc_cache.install(sys.argv[2]); import rtv_probe; print(rtv_probe.VALUE, rtv_probe.__file__)")
    for run in ("first", "second"):
        done = subprocess.run([sys.executable, "-S", "-c", script, LAB_FILES, str(tmp_path / "pyc"), str(payload)],
                              check=True, stdout=subprocess.PIPE, universal_newlines=True)
        assert done.stdout.split() == ["42", os.path.join(str(payload), "rtv_probe.py")], run
    assert len(os.listdir(str(tmp_path / "pyc"))) == 1
