#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# The ansible-core version matrix: the unit tests that reach ansible-core
# (tests/matrix/core_reach.py) on every ansible-core minor that
# meta/runtime.yml's requires_ansible claims, below the one .venv pins (make
# units and make sanity test that one, with every unit test), and ansible-test sanity
# on the oldest of them, so that sanity runs on the oldest and the newest
# claimed minor (--sanity-all: on every minor).
#
#   tests/matrix/run.sh [--quick] [--sanity-all] [MINOR...]   e.g. tests/matrix/run.sh 2.16
#   tests/matrix/run.sh --venv [MINOR...]
#
# --venv runs no test: it builds the virtualenvs that are missing and prints
# "<minor> <path>" for each (no MINOR: the oldest claimed one, where
# scripts/build-check.sh runs the installed tarball's site.yml).
#
# Each minor runs in a plain virtualenv of its own, built from
# tests/matrix/requirements-<minor>.txt (ansible-core's latest patch release
# of that minor, plus requirements-common.txt) with .venv's Python.  The
# virtualenvs are cached per machine, outside the checkout, under
# ${XDG_CACHE_HOME:-~/.cache}/realtime-virt/matrix/<minor>-<key>, where <key>
# is a hash of the pins and the Python: a clone reuses a virtualenv only when
# it would have built the same one.  A lock per minor keeps two runs from
# building one virtualenv at once.
#
# --quick leaves ansible-test's pylint out (make test runs it so; see
# docs/testing.md for what each part costs and why).  Any version that is
# missing, fails to install, fails a test or runs none fails the whole run.
# Logs: tests/output/matrix/<minor>-{venv,units,sanity}.log.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
python="$top/.venv/bin/python"
here="tests/matrix"
logs="$top/tests/output/matrix"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/realtime-virt/matrix"
sanity_args=()
sanity_all=0
print_venvs=0
wanted=()
for arg in "$@"; do
  case "$arg" in
    --quick) sanity_args=(--skip-test pylint) ;;
    --sanity-all) sanity_all=1 ;;
    --venv) print_venvs=1 ;;
    -*) echo "matrix: unknown option $arg" >&2; exit 2 ;;
    *) wanted+=("$arg") ;;
  esac
done
minors_given=${#wanted[@]}
mkdir -p "$logs" "$cache"

# The minors to run: from requires_ansible's lower bound up to, not
# including, .venv's ansible-core.  Each needs its requirements file, and a
# requirements file for a minor outside that range is stale.
claimed=$("$python" - "$here" <<'PY'
import glob, os, re, sys
import yaml
from ansible.release import __version__

here = sys.argv[1]
spec = yaml.safe_load(open("meta/runtime.yml"))["requires_ansible"]
low = re.search(r">=\s*2\.(\d+)", spec)
if not low:
    sys.exit("matrix: cannot read a lower bound >=2.N from requires_ansible %r" % spec)
main = int(__version__.split(".")[1])
# Minors inside the claim that make test leaves out, each with its reason;
# `tests/matrix/run.sh MINOR` still runs one of them by hand.
NOT_RUN = {
    # The issue that moved .venv to 2.21 (37) asks for 2.16-2.18, 2.20 and
    # 2.21, within the test budget: 2.19 sits between 2.18 and 2.20, both run,
    # and .venv ran on 2.19 until that move; its units passed on 2026-12-07.
    "2.19": "between 2.18 and 2.20",
}
claimed = ["2.%d" % minor for minor in range(int(low.group(1)), main) if "2.%d" % minor not in NOT_RUN]
present = sorted(re.search(r"requirements-(2\.\d+)\.txt$", path).group(1)
                 for path in glob.glob(os.path.join(here, "requirements-2.*.txt")))
missing = [minor for minor in claimed if minor not in present]
stale = [minor for minor in present if minor not in claimed and minor not in NOT_RUN]
if missing:
    sys.exit("matrix: requires_ansible %r claims ansible-core %s, which has no %s/requirements-<minor>.txt"
             % (spec, ", ".join(missing), here))
if stale:
    sys.exit("matrix: %s/requirements-%s.txt is outside requires_ansible %r below .venv's %s: remove it"
             % (here, "/".join(stale), spec, __version__))
print(" ".join(claimed))
PY
) || exit 1
if [ "${#wanted[@]}" -eq 0 ]; then
  read -r -a wanted <<<"$claimed"
fi
if [ "${#wanted[@]}" -eq 0 ]; then
  echo "matrix: requires_ansible claims no ansible-core minor below .venv's; nothing would run" >&2
  exit 1
fi
for minor in "${wanted[@]}"; do
  if [ ! -f "$here/requirements-$minor.txt" ]; then
    echo "matrix: no $here/requirements-$minor.txt (the matrix has: $claimed)" >&2
    exit 1
  fi
done

# The virtualenv of one minor, built when missing; prints its path.
venv_for() {
  local minor=$1 key venv
  key=$( (cat "$here/requirements-$minor.txt" "$here/requirements-common.txt"
          "$python" -c 'import sys; print(sys.version); print(sys._base_executable)') | sha256sum | cut -c1-12)
  venv="$cache/$minor-$key"
  (
    flock 9
    [ -f "$venv/.complete" ] && exit 0
    echo "matrix: $minor: building $venv" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv" &&
      "$venv/bin/python" -m pip install --disable-pip-version-check -r "$here/requirements-$minor.txt" &&
      "$venv/bin/python" -c "import sys; from ansible.release import __version__ as v; \
sys.exit(0 if v.startswith('$minor.') else 'ansible-core %s installed, not $minor' % v)" &&
      touch "$venv/.complete"
  ) 9>"$cache/$minor.lock" >"$logs/$minor-venv.log" 2>&1 || {
    tail -n 20 "$logs/$minor-venv.log" >&2
    echo "matrix: $minor: building the virtualenv failed (log: $logs/$minor-venv.log)" >&2
    return 1
  }
  echo "$venv"
}

if [ "$print_venvs" -eq 1 ]; then
  [ "$minors_given" -gt 0 ] || wanted=("${claimed%% *}")
  for minor in "${wanted[@]}"; do
    venv=$(venv_for "$minor") || exit 1
    echo "$minor $venv"
  done
  exit 0
fi

# One stage of one minor: its output goes to a log, a line says how it went.
stage() {
  local minor=$1 name=$2 start rc summary
  shift 2
  start=$(date +%s)
  "$@" >"$logs/$minor-$name.log" 2>&1
  rc=$?
  if [ "$rc" -ne 0 ]; then
    tail -n 40 "$logs/$minor-$name.log"
    echo "matrix: $minor: $name FAILED (exit $rc, $(( $(date +%s) - start )) s, log: $logs/$minor-$name.log)"
    return 1
  fi
  summary=$(summary "$name" "$logs/$minor-$name.log") || {
    echo "matrix: $minor: $name exited 0 but ran no test (log: $logs/$minor-$name.log)"
    return 1
  }
  echo "matrix: $minor: $name passed in $(( $(date +%s) - start )) s ($summary)"
}

# What a passed stage ran, read from its log; fails when it ran nothing.
summary() {
  local count
  case "$1" in
    units) grep -E '^[0-9]+ passed' "$2" | tail -n 1 | grep . ;;
    sanity)
      count=$(grep -c '^Running sanity test' "$2")
      [ "$count" -gt 0 ] && echo "$count sanity tests" ;;
  esac
}

# sanity's rules change little between neighbouring minors: the oldest
# claimed minor here, the newest in make sanity
oldest=${claimed%% *}
echo "matrix: ansible-core ${wanted[*]} (requires_ansible claims $claimed and .venv's version); sanity on $([ "$sanity_all" -eq 1 ] && echo every one || echo "$oldest")"
failed=()
start=$(date +%s)
for minor in "${wanted[@]}"; do
  venv=$(venv_for "$minor") || { failed+=("$minor"); continue; }
  ok=1
  # the matrix's virtualenvs hold ansible-core alone: tests of the ansible package's collections run in make units;
  # so do the test files that never reach ansible-core (tests/matrix/core_reach.py): on one Python they give
  # the same result under every minor
  REALTIME_VIRT_UNITS_REACHING_CORE=1 PATH="$venv/bin:$PATH" stage "$minor" units tests/unit/run.sh -m "not ansible_package" || ok=0
  if [ "$sanity_all" -eq 1 ] || [ "$minor" = "$oldest" ]; then
    REALTIME_VIRT_SANITY_VENV="$venv" stage "$minor" sanity scripts/sanity.sh "${sanity_args[@]}" || ok=0
  fi
  [ "$ok" -eq 1 ] || failed+=("$minor")
done
if [ "${#failed[@]}" -ne 0 ]; then
  echo "matrix: FAILED on ansible-core ${failed[*]} ($(( $(date +%s) - start )) s)"
  exit 1
fi
echo "matrix: ansible-core ${wanted[*]} passed ($(( $(date +%s) - start )) s)"
