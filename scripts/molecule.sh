#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Run `molecule test` for every scenario in extensions/molecule/ (or only
# those named as arguments, or all but those named with --skip) against
# localhost, with this collection on
# ANSIBLE_COLLECTIONS_PATH. Prints one line per scenario and ends with
# "molecule: N passed, M failed"; exits non-zero on a failure or when no
# scenario ran.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
export PATH="$top/.venv/bin:$PATH"
export ANSIBLE_COLLECTIONS_PATH="$top/.cache/collections"
export ANSIBLE_CONFIG="$top/ansible.cfg"
# Every ansible-playbook molecule starts records the role tasks it ran
# (tests/coverage, docs/testing.md); molecule passes the environment on.
recording=$(python3 "$top/tests/coverage/recording.py" --shell) || exit 2
eval "$recording"

# --destroy NAME: stop and throw away what a run of NAME that was killed
# left (scripts/test.sh uses it for the lab VM).
if [ "${1:-}" = --destroy ]; then
    exec molecule destroy -s "${2:?usage: molecule.sh --destroy SCENARIO}"
fi

# --skip NAME (repeatable): every scenario but those.
skip=()
while [ "${1:-}" = --skip ]; do
    skip+=("${2:?usage: molecule.sh --skip SCENARIO ...}")
    shift 2
done

if [ "$#" -gt 0 ]; then
    scenarios=("$@")
else
    scenarios=()
    for file in extensions/molecule/*/molecule.yml; do
        [ -f "$file" ] || continue
        name=$(basename "$(dirname "$file")")
        for skipped in "${skip[@]}"; do
            [ "$name" = "$skipped" ] && continue 2
        done
        scenarios+=("$name")
    done
fi

passed=0
failed=0
failed_names=()
logdir="$top/tests/output/molecule"
mkdir -p "$logdir"
for scenario in "${scenarios[@]}"; do
    if [ ! -f "extensions/molecule/$scenario/molecule.yml" ]; then
        echo "molecule: $scenario: no extensions/molecule/$scenario/molecule.yml" >&2
        failed=$((failed + 1))
        failed_names+=("$scenario")
        continue
    fi
    echo "molecule: $scenario: running (log: $logdir/$scenario.log)"
    start=$(date +%s)
    # A fresh ephemeral directory first: an earlier run that failed or was
    # killed leaves molecule's state there ("prepared: true" makes molecule
    # skip prepare) and the scenario's records (rt_host's original.json),
    # which its cleanup would then trust. Removes files only, runs nothing.
    molecule reset -s "$scenario" >"$logdir/$scenario.log" 2>&1
    if molecule test -s "$scenario" >>"$logdir/$scenario.log" 2>&1; then
        passed=$((passed + 1))
        echo "molecule: $scenario: passed in $(( $(date +%s) - start ))s"
    else
        failed=$((failed + 1))
        failed_names+=("$scenario")
        echo "molecule: $scenario: FAILED in $(( $(date +%s) - start ))s; last lines of the log:"
        tail -n 40 "$logdir/$scenario.log" | sed 's/^/    /'
    fi
done

echo "molecule: $passed passed, $failed failed"
if [ "$failed" -gt 0 ]; then
    echo "molecule: failed scenarios: ${failed_names[*]}" >&2
    exit 1
fi
if [ "$passed" -eq 0 ]; then
    echo "molecule: no scenario ran" >&2
    exit 1
fi
exit 0
