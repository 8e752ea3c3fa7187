#!/usr/bin/env bash
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
echo "build-check: the built collection installs and works"
