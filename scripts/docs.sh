#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Build the collection's documentation site into build/docs/html (make docs).
#
# The pages of modules, filters and roles (options from DOCUMENTATION, the
# filters' YAML docs and the roles' meta/argument_specs.yml) are written by
# antsibull-docs, the generator behind docs.ansible.com, and drawn by Sphinx
# with sphinx-ansible-theme, so they look as docs.ansible.com shows a
# collection. antsibull-docs sphinx-init writes the Sphinx project
# (build/docs/src); this script adds to its conf.py only what our guides
# need, and replaces its front page by one that lists the collection and the
# guides.
#
# The guides are the Markdown files of docs/, read by myst-parser as they
# are: they stay Markdown for GitHub and a clone, and no RST copy can drift
# from them. They are copied under guides/ with the rest of docs/ (examples,
# images), so a link from a guide to a file beside it becomes a download.
#
# Every Sphinx warning fails the build (-W, with --keep-going to list them
# all): a broken link between guides, a link from a guide to a file outside
# docs/ (it would be dead on the site: link the page or the repository
# instead), a heading anchor that does not exist, or a reference antsibull-docs
# could not resolve. antsibull-docs runs with --fail-on-error: a plugin whose
# documentation does not parse fails the build instead of becoming an error
# page. No network: intersphinx is off, and the few references to Ansible's
# own documentation and to other collections' plugins (M(ansible.builtin.debug))
# become plain links to docs.ansible.com, by a handler added to conf.py.
#
# REALTIME_VIRT_DOCS_VENV names the virtualenv whose antsibull-docs and
# Sphinx run (default .venv); REALTIME_VIRT_DOCS_DIR the output directory
# (default build/docs).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
venv="${REALTIME_VIRT_DOCS_VENV:-$top/.venv}"
out="${REALTIME_VIRT_DOCS_DIR:-$top/build/docs}"
src="$out/src"
html="$out/html"

# antsibull-docs --use-current asks ansible-galaxy where collections are: this
# one through the link that `make collection` keeps in .cache/collections,
# its dependencies in the ansible package (as make lint does).
test -f "$top/.cache/collections/ansible_collections/realtime/virt/galaxy.yml" || {
  echo "docs: .cache/collections holds no realtime.virt link; run make collection" >&2
  exit 1
}
export PATH="$venv/bin:$PATH"
ANSIBLE_COLLECTIONS_PATH="$top/.cache/collections:$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
export ANSIBLE_COLLECTIONS_PATH

# antsibull-docs says what it writes on stdout and what is wrong there too:
# shown only when it fails.
quiet() {
  local log rc=0
  log=$(mktemp)
  "$@" >"$log" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || cat "$log" >&2
  rm -f "$log"
  return "$rc"
}

rm -rf "$src" "$html"
mkdir -p "$src"
# Git, and so ansible-lint and the copy scripts/sanity.sh makes of the tree,
# leaves the whole output out, whether or not .gitignore names build/.
echo '*' > "$out/.gitignore"
quiet antsibull-docs sphinx-init --use-current --fail-on-error --dest-dir "$src" \
  --project realtime.virt --copyright "realtime.virt contributors" \
  --title "realtime.virt documentation" --html-short-title realtime.virt \
  realtime.virt

cat >> "$src/conf.py" <<'PY'

# Added by realtime.virt's scripts/docs.sh: the guides of docs/ are Markdown.
extensions = [name for name in extensions if name != 'sphinx.ext.intersphinx'] + ['myst_parser']
intersphinx_mapping = {}
source_suffix = {'.rst': 'restructuredtext', '.md': 'markdown'}
# Links such as [Guest hardening](#guest-hardening) use GitHub's heading anchors.
myst_heading_anchors = 4

# With no intersphinx inventory (no network), the few labels of Ansible's own
# documentation that the generated pages use, and plugins of other
# collections, become links to docs.ansible.com. Any other unresolved label,
# ours included, stays a warning and so fails the build.
import re as _re
from docutils import nodes as _nodes

_ANSIBLE_DOCS = 'https://docs.ansible.com/projects/ansible/latest/'
_ANSIBLE_LABELS = {
    'common_return_values': 'reference_appendices/common_return_values.html',
    'ansible_configuration_settings': 'reference_appendices/config.html',
    # the note antsibull-docs adds to a module with an action plugin (rt_host_plan)
    'action_plugins': 'plugins/action.html',
}
_OTHER_PLUGIN = _re.compile(r'ansible_collections\.(\w+)\.(\w+)\.(\w+_[a-z]+)')


def _ansible_docs_link(app, env, node, contnode):
    if node.get('refdomain') != 'std' or node.get('reftype') != 'ref':
        return None
    target = node['reftarget']
    page = _ANSIBLE_LABELS.get(target)
    plugin = _OTHER_PLUGIN.fullmatch(target)
    if plugin and plugin.group(1, 2) != ('realtime', 'virt'):
        page = 'collections/%s/%s/%s.html' % plugin.group(1, 2, 3)
    if page is None:
        return None
    return _nodes.reference('', '', contnode, internal=False, refuri=_ANSIBLE_DOCS + page)


def setup(app):
    app.connect('missing-reference', _ansible_docs_link)
PY

cat > "$src/rst/index.rst" <<'RST'
.. _docsite_root_index:

realtime.virt
=============

Real-time KVM hosts and libvirt domains with Ansible: the collection's
modules, filters and roles with their options, and the guides.

.. toctree::
   :maxdepth: 2
   :caption: Collection

   collections/realtime/virt/index

.. toctree::
   :maxdepth: 1
   :caption: Guides
   :titlesonly:
   :glob:

   guides/*

.. toctree::
   :maxdepth: 1
   :caption: Indexes
   :glob:

   collections/index_*
   collections/environment_variables
RST

# The plugin and role pages, as the generated build.sh writes them.
chmod og-w "$src/rst"
quiet antsibull-docs --config-file "$src/antsibull-docs.cfg" collection --use-current --fail-on-error \
  --cleanup everything --dest-dir "$src/rst" realtime.virt

mkdir -p "$src/rst/guides"
tar -C "$top/docs" --exclude=./docsite -cf - . | tar -C "$src/rst/guides" -xf -

sphinx-build -b html -q -W --keep-going -c "$src" "$src/rst" "$html" || {
  echo "docs: Sphinx failed (every warning fails the build); $src/rst/guides/NAME.md is docs/NAME.md" >&2
  exit 1
}
echo "docs: $html/index.html"
