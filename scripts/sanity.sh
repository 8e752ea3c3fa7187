#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Run `ansible-test sanity` on the collection, locally, with no containers
# and no network beyond the package mirrors.
#
# ansible-test needs the collection at .../ansible_collections/realtime/virt
# inside a git repository, so the tracked and untracked (not ignored) files
# are copied there.  Its per-test virtualenvs are bootstrapped by a script
# it would download from a host this machine cannot reach; it first looks
# in ~/.ansible/test/cache/get_pip_<version>.py, so a stand-in goes there
# that bootstraps pip from the standard library's ensurepip instead.
#
# REALTIME_VIRT_SANITY_VENV names the virtualenv whose ansible-test runs
# (default .venv); the version matrix (tests/matrix/run.sh) points it at the
# virtualenv of an older ansible-core.  Each ansible-core version gets its
# own copy of the tree, so versions can run side by side.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
venv="${REALTIME_VIRT_SANITY_VENV:-$top/.venv}"
python="$venv/bin/python"
core_version=$("$python" -c 'from ansible.release import __version__; print(__version__)')
dest="$top/.cache/sanity/$core_version/ansible_collections/realtime/virt"

pip_version=$("$python" - <<'PY'
import re, ansible_test, os
src = open(os.path.join(os.path.dirname(ansible_test.__file__), "_internal", "python_requirements.py")).read()
print(re.search(r"pip='([0-9.]+)'", src).group(1))
PY
)
# A HOME of its own: collections a user or molecule installed under
# ~/.ansible/collections must not shadow the tree under test.  It lives
# outside the checkout so that ansible-test's per-test virtualenvs are
# built once per machine, not once per clone.
export HOME="${XDG_CACHE_HOME:-$HOME/.cache}/realtime-virt/sanity-home"
cache="$HOME/.ansible/test/cache/get_pip_${pip_version//./_}.py"
mkdir -p "$(dirname "$cache")"
cat > "$cache" <<PY
# Stand-in for get-pip.py written by realtime.virt's scripts/sanity.sh:
# bootstrap pip from ensurepip, then install what ansible-test asked for.
import os, subprocess, sys
subprocess.check_call([sys.executable, "-m", "ensurepip", "--default-pip"])
cert = "/etc/ssl/certs/ca-certificates.crt"
extra = ["--cert", cert] if os.path.exists(cert) else []
args = [a for a in sys.argv[1:] if a not in ("--no-setuptools", "--no-wheel")]
subprocess.check_call([sys.executable, "-m", "pip", "install", "--disable-pip-version-check"] + extra + args)
PY

echo "sanity: copying the collection to $dest"
rm -rf "$dest"
mkdir -p "$dest"
cd "$top"
git ls-files --cached --others --exclude-standard -z | while IFS= read -r -d '' f; do
  [ -e "$f" ] || continue
  mkdir -p "$dest/$(dirname "$f")"
  cp -a "$f" "$dest/$f"
done
cd "$dest"
git init -q
git add -A
git -c user.name=sanity -c user.email=sanity@localhost commit -q -m sanity --no-verify
export PATH="$venv/bin:$PATH"
# The Python the tests run on: the virtualenv's own unless PYTHON_VERSION says
# otherwise (ansible-test --local needs python<version> on PATH).
python_version=${PYTHON_VERSION:-$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')}
echo "sanity: ansible-core $core_version: ansible-test sanity --local --python $python_version $*"
ansible-test sanity --local --python "$python_version" --color no "$@"
