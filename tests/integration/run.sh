#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Run every integration target (or those named) against this machine and
# print a closing "N passed, M failed" line.  Exits non-zero when a target
# fails or when no target ran.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top" || exit 1
# Every ansible-playbook of the targets (and the ones they start) records the
# role tasks it ran (tests/coverage, docs/testing.md).
recording=$(python3 "$top/tests/coverage/recording.py" --shell) || exit 1
eval "$recording"
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  for dir in "$here"/targets/*/; do
    name=$(basename "$dir")
    grep -qs '^disabled' "$dir/aliases" && continue
    targets+=("$name")
  done
fi
# Each target's output is kept in tests/output/integration/TARGET.log; a
# failed target's first failure is printed again at the end, where a CI
# log's tail shows it.
logs="$top/tests/output/integration"
mkdir -p "$logs" || exit 1
passed=0
failed=0
failed_names=()
for target in "${targets[@]}"; do
  echo "=== integration: $target"
  start=$(date +%s)
  if ansible-playbook tests/integration/run_target.yml -e "target=$target" 2>&1 | tee "$logs/$target.log"; then
    passed=$((passed + 1))
    echo "=== integration: $target passed in $(( $(date +%s) - start )) s"
  else
    failed=$((failed + 1))
    failed_names+=("$target")
    echo "=== integration: $target FAILED"
  fi
done
if [ "$failed" -gt 0 ]; then
  for target in "${failed_names[@]}"; do
    echo "--- integration: $target, its first failure ($logs/$target.log):"
    python3 "$here/first_failure.py" "$logs/$target.log"
  done
  echo "failed targets: ${failed_names[*]}"
fi
echo "integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
