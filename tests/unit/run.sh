#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Unit tests; fails when pytest collects no test (exit 5) as well.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
pytest -q -p no:cacheprovider --import-mode=importlib -n 2 tests/unit "$@"
rc=$?
if [ "$rc" -eq 5 ]; then
  echo "units: pytest collected no test" >&2
fi
exit "$rc"
