# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""docs/architecture.md names every file under plugins/, and only files that exist.

The rule for "named" (``__init__.py`` excluded when it is empty, as
ansible-test's ``empty-init`` wants; ``__pycache__`` and ``*.pyc`` ignored):

* ``plugins/module_utils/<package>/<file>.py``: by its basename in its
  package: as `` `<file>.py` `` in the package's row of the table "The
  packages of plugins/module_utils/" (the shared layers ``_common`` and
  ``_kernel`` have no row) and as `` `<file>` `` (with its few words) in the
  package's bullet of "What each file holds". A basename anywhere else does
  not count: ``plan.py`` is in four packages. Elsewhere the doc names such a
  file by its path relative to plugins/module_utils (``_libvirt/owned.py``),
  which the second half below checks.
* ``plugins/modules/<name>.py``: by the module's name ``<name>`` as a whole
  word (``libvirt_rt_domain`` inside ``libvirt_rt_domain_info`` does not
  count).
* ``plugins/filter/<name>.yml`` (a filter's documentation): by the
  filter's name ``<name>`` as a whole word.
* any other file, ``plugins/<dir>/<file>`` (filter/*.py, doc_fragments/*.py,
  a plugin directory added later): by ``<dir>/<file>``
  (``filter/os_vars.py``, ``doc_fragments/host_root.py``).

The other way: every path the doc names under plugins/ must exist, so a
renamed or removed file fails too. A path is ``plugins/...``,
``module_utils/...``, ``modules/...``, ``filter/...``, ``doc_fragments/...``
or ``_<package>/...`` (relative to plugins/module_utils), not preceded by a
letter, ``.``, ``-`` or ``/``; a path of the repository that starts with
``tests/``, ``roles/``, ``docs/``, ``changelogs/`` or ``playbooks/`` must
exist too (the recipes name real files). A ``<placeholder>`` or ``*`` ends
the path, so ``roles/<role>/tasks/`` checks ``roles/`` only. Every ``x.py``
of a table row must be a file of that row's package.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGINS = os.path.join(TOP, "plugins")
MODULE_UTILS = os.path.join(PLUGINS, "module_utils")
DOC = os.path.join(TOP, "docs", "architecture.md")
SHARED_LAYERS = ("_common", "_kernel")

PATH = re.compile(r"(?<![\w.\-/])((?:plugins|module_utils|modules|filter|doc_fragments|_[a-z]+|tests|roles|docs"
                  r"|changelogs|playbooks)/[\w./\-]*[\w/]|(?:plugins|module_utils|modules|filter|doc_fragments"
                  r"|tests|roles|docs|changelogs|playbooks)/)")
UNDER_PLUGINS = ("modules/", "filter/", "doc_fragments/", "module_utils/")
UNDER_TOP = ("plugins/", "tests/", "roles/", "docs/", "changelogs/", "playbooks/")


def _doc(text=None):
    if text is not None:
        return text
    with open(DOC) as handle:
        return handle.read()


def plugin_files(plugins=PLUGINS):
    """Every file under plugins/ as a path relative to it, empty __init__.py and caches left out."""
    found = []
    for directory, dirs, files in os.walk(plugins):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            path = os.path.join(directory, name)
            if name.endswith((".pyc", ".pyo")):
                continue
            if name == "__init__.py" and os.path.getsize(path) == 0:
                continue
            found.append(os.path.relpath(path, plugins).replace(os.sep, "/"))
    return found


def _word(name, text):
    return re.search(r"(?<![\w])%s(?![\w])" % re.escape(name), text) is not None


def _section(text, heading):
    start = text.index(heading)
    rest = text[start + len(heading):]
    ends = [m.start() for m in re.finditer(r"^#{1,3} ", rest, re.M)]
    return rest[:ends[0]] if ends else rest


def table_rows(text):
    """{package: row text} of the table of module_utils packages."""
    section = _section(text, "## The packages of `plugins/module_utils/`")
    return dict((m.group(1), m.group(0)) for m in re.finditer(r"^\| `(_[a-z]+)` \|.*$", section, re.M))


def bullets(text):
    """{package: bullet text} of "What each file holds"."""
    section = _section(text, "### What each file holds")
    found = {}
    for chunk in re.split(r"^- ", section, flags=re.M)[1:]:
        match = re.match(r"`(_[a-z]+)`", chunk)
        if match:
            found[match.group(1)] = chunk
    return found


def unnamed(text=None, plugins=PLUGINS):
    """The files under plugins/ the doc does not name by the rule of this file's docstring."""
    text = _doc(text)
    rows, items = table_rows(text), bullets(text)
    missing = []
    for rel in plugin_files(plugins):
        parts = rel.split("/")
        if parts[0] == "module_utils" and len(parts) == 3:
            package, name = parts[1], parts[2]
            where = []
            if package not in SHARED_LAYERS and "`%s`" % name not in rows.get(package, ""):
                where.append("table row")
            if "`%s`" % name[:-len(".py")] not in items.get(package, ""):
                where.append("bullet")
            if where:
                missing.append("%s (%s)" % (rel, ", ".join(where)))
        elif parts[0] == "modules" and len(parts) == 2 and rel.endswith(".py"):
            if not _word(parts[1][:-len(".py")], text):
                missing.append(rel)
        elif parts[0] == "filter" and len(parts) == 2 and rel.endswith(".yml"):
            if not _word(parts[1][:-len(".yml")], text):
                missing.append(rel)
        elif rel not in text:
            missing.append(rel)
    return missing


def named_paths(text=None):
    """Every path the doc names, as a path relative to the repository."""
    text = _doc(text)
    paths = set()
    for match in PATH.finditer(text):
        path = match.group(1)
        if path.startswith("_"):
            path = "plugins/module_utils/" + path
        elif path.startswith(UNDER_PLUGINS):
            path = "plugins/" + path
        elif not path.startswith(UNDER_TOP):
            continue
        paths.add(path)
    return sorted(paths)


def missing_paths(text=None, top=TOP):
    return [path for path in named_paths(text) if not os.path.exists(os.path.join(top, path))]


def row_strays(text=None, module_utils=MODULE_UTILS):
    """``x.py`` names of a table row that are not files of that row's package."""
    strays = []
    for package, row in table_rows(_doc(text)).items():
        for name in re.findall(r"`([\w]+\.py)`", row):
            if not os.path.isfile(os.path.join(module_utils, package, name)):
                strays.append("%s/%s" % (package, name))
    return strays


# --- the tests ----------------------------------------------------------------


def test_every_file_under_plugins_is_named():
    assert unnamed() == []


def test_every_path_named_exists():
    assert missing_paths() == []
    assert row_strays() == []


def test_every_package_has_a_row_and_a_bullet():
    packages = sorted(name for name in os.listdir(MODULE_UTILS)
                      if os.path.isdir(os.path.join(MODULE_UTILS, name)) and name.startswith("_")
                      and name != "__pycache__")
    text = _doc()
    assert sorted(bullets(text)) == packages
    assert sorted(table_rows(text)) == sorted(set(packages) - set(SHARED_LAYERS))


# --- the checks see what they must (on copies, never on the real files) -------


def test_a_name_removed_from_the_doc_is_seen():
    text = _doc()
    row = table_rows(text)["_libvirt"]
    assert unnamed(text.replace(row, row.replace("`owned.py`, ", ""))) == ["module_utils/_libvirt/owned.py (table row)"]
    item = bullets(text)["_node"]
    assert unnamed(text.replace(item, item.replace("`resctrl`", "resctrl"))) == ["module_utils/_node/resctrl.py (bullet)"]
    assert unnamed(re.sub(r"(?<![\w])rt_isolation_info(?![\w])", "", text)) == ["modules/rt_isolation_info.py"]


def test_a_new_file_is_seen(tmp_path):
    plugins = tmp_path / "plugins"
    (plugins / "module_utils" / "_libvirt").mkdir(parents=True)
    (plugins / "module_utils" / "_libvirt" / "__init__.py").write_text(u"")
    (plugins / "module_utils" / "_libvirt" / "owned.py").write_text(u"#")
    (plugins / "module_utils" / "_libvirt" / "dummy.py").write_text(u"#")
    (plugins / "lookup").mkdir()
    (plugins / "lookup" / "dummy.py").write_text(u"#")
    assert unnamed(plugins=str(plugins)) == ["lookup/dummy.py", "module_utils/_libvirt/dummy.py (table row, bullet)"]


def test_a_renamed_file_is_seen():
    text = _doc() + "\nSee `_libvirt/draw.py`, `plugins/filter/gone.py` and `filter/gone.yml`.\n"
    assert missing_paths(text) == ["plugins/filter/gone.py", "plugins/filter/gone.yml",
                                   "plugins/module_utils/_libvirt/draw.py"]
    row = text.replace("`owned.py`, `render.py`", "`owned.py`, `draw.py`, `render.py`")
    assert row_strays(row) == ["_libvirt/draw.py"]
