#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Print the Python interpreter .venv is built with: the ansible-core that
# requirements-dev.txt pins (2.21) runs its controller on Python 3.12 or newer,
# and Debian 12's python3 is 3.11.  It must be 3.12 itself: the test matrix
# (tests/matrix/run.sh) builds its virtualenvs with .venv's Python, and 3.12
# is the one Python every claimed minor runs its controller on (2.16 and 2.17
# stop at 3.12, 2.20 and 2.21 start there).  $PYTHON wins when set; otherwise
# python3.12 or python3 on PATH, then pyenv's installed 3.12 releases.
set -uo pipefail
want_minor=12
ok() { "$1" -c "import sys, venv, ssl; sys.exit(sys.version_info[:2] != (3, $want_minor))" 2>/dev/null; }
candidates=()
if [ -n "${PYTHON:-}" ]; then
  if ok "$PYTHON"; then command -v "$PYTHON" || echo "$PYTHON"; exit 0; fi
  echo "find-python: PYTHON=$PYTHON is not a Python 3.12 with venv and ssl." \
    "Fix: set PYTHON to such an interpreter, or unset it to let make find one." >&2
  exit 1
fi
for name in python3.12 python3; do
  path=$(command -v "$name" 2>/dev/null) && candidates+=("$path")
done
pyenv_root="${PYENV_ROOT:-$HOME/.pyenv}"
for path in "$pyenv_root"/versions/3.12.*/bin/python3; do
  [ -x "$path" ] && candidates+=("$path")
done
for path in "${candidates[@]}"; do
  if ok "$path"; then echo "$path"; exit 0; fi
done
echo "find-python: no Python 3.12 found (looked at python3.12 and python3 on PATH" \
  "and $pyenv_root/versions). ansible-core 2.21 needs 3.12 or newer for the controller, and the test matrix's 2.16 at most 3.12. Fix: install one" \
  "(pyenv install 3.12, or your distribution's python3.12 with its venv module), or run make with" \
  "PYTHON=/path/to/python3.12." >&2
exit 1
