#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Build the collection tarball, install it into an empty collections path
# and prove the installed copy works: its docs render, its filters load and
# its facts module runs.  This is what `ansible-galaxy collection install`
# users get.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$top"
version=$(python -c "import yaml; print(yaml.safe_load(open('galaxy.yml'))['version'])")
echo "build-check: building realtime.virt $version"
ansible-galaxy collection build --force --output-path "$work/dist" . >/dev/null
tarball="$work/dist/realtime-virt-$version.tar.gz"
test -f "$tarball"
if tar -tzf "$tarball" | grep -Eq '^(\.venv|\.cache|\.git)/'; then
  echo "build-check: the tarball carries .venv, .cache or .git" >&2
  exit 1
fi
echo "build-check: installing $(basename "$tarball") into an empty path"
# Dependencies come from the `ansible` package in the venv, not from Galaxy.
ANSIBLE_COLLECTIONS_PATH="$work/collections" ansible-galaxy collection install --force --no-deps -p "$work/collections" "$tarball" >/dev/null
installed="$work/collections/ansible_collections/realtime/virt"
test -f "$installed/MANIFEST.json"
venv_collections=$(python -c "import ansible_collections, os; print(os.path.dirname(list(ansible_collections.__path__)[0]))")
export ANSIBLE_COLLECTIONS_PATH="$work/collections:$venv_collections"
unset PYTHONPATH
cd "$work"
printf "[defaults]\nretry_files_enabled = false\n" > "$work/ansible.cfg"
export ANSIBLE_CONFIG="$work/ansible.cfg"
for path in "$installed"/plugins/modules/*.py; do
  [ -e "$path" ] || continue
  plugin=$(basename "$path" .py)
  ansible-doc "realtime.virt.$plugin" | grep -q "realtime.virt.$plugin" \
    || { echo "build-check: ansible-doc realtime.virt.$plugin failed" >&2; exit 1; }
done
ansible-doc -t filter realtime.virt.cpuset_list | grep -q cpuset_list
out=$(ANSIBLE_CONFIG="$work/ansible.cfg" ansible localhost -c local -m ansible.builtin.debug \
  -a "msg={{ '0-3,^1' | realtime.virt.cpuset_list | realtime.virt.cpuset_string }}" \
  -e "ansible_python_interpreter=$(command -v python)")
echo "$out" | grep -q '"0,2-3"' || { echo "build-check: filters from the tarball gave: $out" >&2; exit 1; }
if [ -f "$installed/plugins/modules/rt_node_facts.py" ]; then
  out=$(ANSIBLE_CONFIG="$work/ansible.cfg" ansible localhost -c local -m realtime.virt.rt_node_facts \
    -e "ansible_python_interpreter=$(command -v python)")
  echo "$out" | grep -q '"rt_node"' || { echo "build-check: rt_node_facts from the tarball failed: $out" >&2; exit 1; }
fi
# The README's route for a fleet: site.yml by its collection name, from
# outside the checkout, against an inventory of the user's own.
printf 'all:\n  hosts:\n    guest-01.example.com:\n  children:\n    rt_hosts:\n      hosts:\n        kvm-01.example.com:\n        kvm-02.example.com:\n' \
  > "$work/inventory.yml"
ansible-playbook -i "$work/inventory.yml" realtime.virt.site --syntax-check >/dev/null \
  || { echo "build-check: realtime.virt.site does not pass --syntax-check from the installed copy" >&2; exit 1; }
tasks=$(ansible-playbook -i "$work/inventory.yml" realtime.virt.site --list-tasks)
for stage in "Plan every stage before the first change" "Host tuning" "Validate what the kernel really does"; do
  echo "$tasks" | grep -q "$stage" \
    || { echo "build-check: --list-tasks of realtime.virt.site lacks '$stage': $tasks" >&2; exit 1; }
done
hosts=$(ansible-playbook -i "$work/inventory.yml" realtime.virt.site --list-hosts)
if ! echo "$hosts" | grep -q "hosts (2)" || echo "$hosts" | grep -q guest-01; then
  echo "build-check: realtime.virt.site does not target exactly the inventory's rt_hosts: $hosts" >&2
  exit 1
fi

# An execution environment: what ansible-builder would install for the
# installed collection (meta/execution-environment.yml), and a build context.
deps=$(ansible-builder introspect "$work/collections")
if echo "$deps" | grep -Eiq "pytest|molecule|ansible-lint|import-linter|antsibull|mfusepy|ansible-builder|jmespath"; then
  echo "build-check: an execution environment would get test tools: $deps" >&2
  exit 1
fi
echo "$deps" | grep -q "^python: \[\]" \
  || { echo "build-check: an execution environment would get Python packages: $deps" >&2; exit 1; }
printf -- "---\ncollections:\n  - name: %s\n    type: file\n" "$tarball" > "$work/requirements.yml"
printf -- "---\nversion: 3\nimages:\n  base_image:\n    name: quay.io/ansible/awx-ee:latest\ndependencies:\n  galaxy: %s\n" \
  "$work/requirements.yml" > "$work/execution-environment.yml"
ansible-builder create -f "$work/execution-environment.yml" --context "$work/context" >/dev/null \
  || { echo "build-check: ansible-builder create failed on the collection's metadata" >&2; exit 1; }
test -f "$work/context/Containerfile" || test -f "$work/context/Dockerfile" \
  || { echo "build-check: ansible-builder create wrote no Containerfile" >&2; exit 1; }
# (its own _build/scripts name test tools, to leave them out; what it installs does not)
if cat "$work"/context/*file "$work"/context/_build/*.txt "$work"/context/_build/*.yml 2>/dev/null \
    | grep -Eiq "pytest|molecule|ansible-lint|import-linter"; then
  echo "build-check: the execution environment's build context names a test tool" >&2
  exit 1
fi
echo "build-check: the built collection installs and works; site.yml runs from outside the checkout; an EE gets no test tool"
