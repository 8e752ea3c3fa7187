#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# The collection tarball as Galaxy and its users get it.
#
#   scripts/build-check.sh            build the tarball here, then check it
#   scripts/build-check.sh TARBALL    check that tarball (make release's)
#
# 1. What ships (scripts/tarball_contents.py): the files a user needs and
#    nothing else.  Without TARBALL the tarball is built from a copy of the
#    checkout's git files into which run output and local files were planted
#    (fleet reports, pytest and lint caches, bytecode, retry files, old
#    builds), and a second one from the checkout itself, with whatever it
#    collected; each file too many or missing is named.
# 2. Galaxy's importer (galaxy-importer, with its ansible-doc and
#    ansible-lint steps; ansible-test off, it needs containers) on the
#    tarball; any WARNING or ERROR line it prints fails the check.  Its lint
#    gets the collections galaxy.yml declares as dependencies (and theirs)
#    and no other, taken from .venv's ansible package, so a module of an
#    undeclared collection is reported.  Galaxy itself lints with no
#    dependency installed (ansible-lint --offline), so its import log may
#    also call a declared dependency's module unknown.
# 3. The tarball installed into an empty collections path, beside the
#    declared dependencies only: its docs render and pass antsibull-docs'
#    lint, its filters load, its facts module runs, and realtime.virt.site
#    passes --syntax-check from outside the checkout on .venv's ansible-core
#    and on the oldest one meta/runtime.yml claims (the virtualenv of
#    tests/matrix/run.sh --venv).
# 4. What an execution environment would get from it (ansible-builder).
# The importer runs in the background beside 3 and 4.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
importer_pid=
cleanup() {
  if [ -n "$importer_pid" ]; then
    kill -- "-$importer_pid" 2>/dev/null || true
    wait "$importer_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
start=$(date +%s)
cd "$top"
version=$(python -c "import yaml; print(yaml.safe_load(open('galaxy.yml'))['version'])")

# 1. What ships.
if [ "$#" -gt 0 ]; then
  tarball=$(realpath "$1")
  echo "build-check: checking $tarball"
  python scripts/tarball_contents.py check "$top" "$tarball" "the given tarball"
else
  echo "build-check: building realtime.virt $version from a copy of the checkout with run output planted in it, and from the checkout"
  python scripts/tarball_contents.py copy "$top" "$work/src"
  (cd "$work/src" && ansible-galaxy collection build --output-path "$work/dist" . >/dev/null)
  tarball="$work/dist/realtime-virt-$version.tar.gz"
  ansible-galaxy collection build --output-path "$work/checkout" . >/dev/null
  contents=0
  python scripts/tarball_contents.py check "$top" "$tarball" "built from the planted copy" --planted || contents=1
  python scripts/tarball_contents.py check "$top" "$work/checkout/realtime-virt-$version.tar.gz" "built from this checkout" || contents=1
  [ "$contents" -eq 0 ] || exit 1
fi

# The collections galaxy.yml declares as dependencies (as the tarball's
# MANIFEST.json carries them) and theirs in turn, what ansible-galaxy
# collection install would fetch for a user, taken from .venv's ansible
# package; no other collection.
# The ansible package installs its collections into .venv's site-packages
# (PYTHONPATH may put this checkout's link tree first on the import path).
venv_collections=$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
declared="$work/declared"
python - "$tarball" "$venv_collections/ansible_collections" "$declared/ansible_collections" <<'PY'
import json, os, sys, tarfile
tarball, source, target = sys.argv[1:]
with tarfile.open(tarball) as archive:
    wanted = list(json.load(archive.extractfile("MANIFEST.json"))["collection_info"]["dependencies"])
done = set()
while wanted:
    name = wanted.pop()
    if name in done:
        continue
    done.add(name)
    namespace, collection = name.split(".")
    path = os.path.join(source, namespace, collection)
    if not os.path.isdir(path):
        sys.exit("build-check: the dependency %s is not in .venv's ansible package" % name)
    os.makedirs(os.path.join(target, namespace), exist_ok=True)
    os.symlink(path, os.path.join(target, namespace, collection))
    with open(os.path.join(path, "MANIFEST.json")) as handle:
        wanted += list(json.load(handle)["collection_info"]["dependencies"] or {})
print("build-check: dependencies beside the tarball: %s" % ", ".join(sorted(done)))
PY
# Every Ansible command below: no environment of the checkout's (make's
# ANSIBLE_CONFIG, collections path, PYTHONPATH or callbacks) and no
# collection found on Python's path (the ansible package's).
unset PYTHONPATH ANSIBLE_COLLECTIONS_PATH ANSIBLE_CALLBACK_PLUGINS ANSIBLE_CALLBACKS_ENABLED
export ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false
printf "[defaults]\nretry_files_enabled = false\n" > "$work/ansible.cfg"
export ANSIBLE_CONFIG="$work/ansible.cfg"

# 2. Galaxy's importer, in the background.  It sets ANSIBLE_COLLECTIONS_PATH
# to the extracted tarball alone for its ansible-lint; the ansible-lint it
# finds first on PATH adds the declared dependencies to it.
importer="$work/importer"
mkdir -p "$importer/bin" "$importer/tmp"
command -v ansible-lint >/dev/null || { echo "build-check: no ansible-lint on PATH for galaxy-importer's lint step" >&2; exit 1; }
cat > "$importer/bin/ansible-lint" <<LINT
#!/usr/bin/env bash
export ANSIBLE_COLLECTIONS_PATH="\$ANSIBLE_COLLECTIONS_PATH:$declared"
exec $(command -v ansible-lint) "\$@"
LINT
chmod +x "$importer/bin/ansible-lint"
cat > "$importer/galaxy-importer.cfg" <<CFG
[galaxy-importer]
RUN_ANSIBLE_TEST = False
RUN_ANSIBLE_LINT = True
RUN_ANSIBLE_DOC = True
CHECK_CHANGELOG = True
ANSIBLE_LOCAL_TMP = $importer/tmp
TMP_ROOT_DIR = $importer/tmp
CFG
# setsid: a process group of its own, which the exit trap can stop whole.
# shellcheck disable=SC2016
GALAXY_IMPORTER_CONFIG="$importer/galaxy-importer.cfg" PATH="$importer/bin:$PATH" setsid bash -c \
  'cd "$1" && python -m galaxy_importer.main "$2" > importer.log 2>&1; echo $? > rc' _ "$importer" "$tarball" &
importer_pid=$!

# 3. The installed tarball.
echo "build-check: installing $(basename "$tarball") into an empty path"
ANSIBLE_COLLECTIONS_PATH="$work/collections" ansible-galaxy collection install --force --no-deps -p "$work/collections" "$tarball" >/dev/null
installed="$work/collections/ansible_collections/realtime/virt"
test -f "$installed/MANIFEST.json"
export ANSIBLE_COLLECTIONS_PATH="$work/collections:$declared"
cd "$work"
for path in "$installed"/plugins/modules/*.py; do
  [ -e "$path" ] || continue
  plugin=$(basename "$path" .py)
  ansible-doc "realtime.virt.$plugin" | grep -q "realtime.virt.$plugin" \
    || { echo "build-check: ansible-doc realtime.virt.$plugin failed" >&2; exit 1; }
done
ansible-doc -t filter realtime.virt.cpuset_list | grep -q cpuset_list
antsibull-docs lint-collection-docs --plugin-docs "$installed" > "$work/docs-lint.out" 2>&1 \
  || { cat "$work/docs-lint.out" >&2; echo "build-check: antsibull-docs lint-collection-docs --plugin-docs fails on the installed copy" >&2; exit 1; }
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
# The same on the oldest ansible-core that meta/runtime.yml claims, in the
# version matrix's virtualenv of it (built there when missing).
read -r oldest oldest_venv < <("$top/tests/matrix/run.sh" --venv) \
  || { echo "build-check: tests/matrix/run.sh --venv gave no virtualenv" >&2; exit 1; }
for check in --syntax-check --list-tasks; do
  "$oldest_venv/bin/ansible-playbook" -i "$work/inventory.yml" realtime.virt.site "$check" > "$work/oldest.out" 2>&1 \
    || { cat "$work/oldest.out" >&2; echo "build-check: realtime.virt.site $check fails on ansible-core $oldest" >&2; exit 1; }
done
grep -q "Validate what the kernel really does" "$work/oldest.out" \
  || { cat "$work/oldest.out" >&2; echo "build-check: --list-tasks of realtime.virt.site on ansible-core $oldest lacks its stages" >&2; exit 1; }
core_version='from ansible.release import __version__; print(__version__)'
echo "build-check: realtime.virt.site passes --syntax-check from the installed copy on ansible-core" \
  "$(python -c "$core_version") and $("$oldest_venv/bin/python" -c "$core_version")"

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
echo "build-check: the installed collection works and its docs pass antsibull-docs lint; an execution environment would get no test tool"

# 2, continued: the importer's verdict.
wait "$importer_pid" || true
importer_pid=
log="$importer/importer.log"
rc=$(cat "$importer/rc" 2>/dev/null || echo "none")
importer_version=$(sed -n 's/^Importing with galaxy-importer //p' "$log")
problems=$(grep -E '^(WARNING|ERROR|CRITICAL)' "$log" || true)
if [ "$rc" != 0 ] || [ -n "$problems" ] || ! grep -q '^\.\.\.ansible-lint run complete' "$log" \
    || ! grep -q '^Importer processing completed successfully' "$log"; then
  grep -v '^Loading ' "$log" | tail -n 40 >&2
  echo "build-check: galaxy-importer ${importer_version:-?} does not accept $(basename "$tarball") (exit $rc): each WARNING or ERROR above fails it" >&2
  exit 1
fi
echo "build-check: galaxy-importer $importer_version accepts $(basename "$tarball"): no warning, no error" \
  "($(grep -c '^Loading ' "$log") plugins and roles loaded, ansible-lint run)"
echo "build-check: passed in $(( $(date +%s) - start )) s"
