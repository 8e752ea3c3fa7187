#!/usr/bin/env bash
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# make release: the release procedure of docs/development.md, up to the
# point of publishing, which stays a person's decision.
#
#  1. The changelog: when changelogs/changelog.yaml has no entry for the
#     version galaxy.yml names, the fragments become that release
#     (antsibull-changelog release), which needs a release_summary fragment;
#     CHANGELOG.rst is generated again either way.
#  2. The tarball, built into dist/ from the checkout.
#  3. Every check on that very tarball: the build check (what ships, Galaxy's
#     importer, the installed copy's docs, filters, facts module and
#     site.yml on the newest and the oldest claimed ansible-core), the
#     documentation lint and the documentation site.
#  4. What to publish, printed; nothing is uploaded, tagged or pushed here.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
version=$(python -c "import yaml; print(yaml.safe_load(open('galaxy.yml'))['version'])")
repository=$(python -c "import yaml; print(yaml.safe_load(open('galaxy.yml')).get('repository', ''))")
documentation=$(python -c "import yaml; print(yaml.safe_load(open('galaxy.yml')).get('documentation', ''))")
released=$(python - "$version" <<'PY'
import sys, yaml
releases = yaml.safe_load(open("changelogs/changelog.yaml")).get("releases") or {}
print("yes" if sys.argv[1] in releases else "no")
PY
)

echo "release: realtime.virt $version"
if [ "$released" = no ]; then
  if ! grep -lqs '^release_summary:' changelogs/fragments/*.yml; then
    echo "release: changelogs/changelog.yaml has no $version yet and no fragment carries a release_summary." \
      "Fix: write changelogs/fragments/$version.yml with a release_summary: (what this release is, for" \
      "its users), or set galaxy.yml's version to the release you mean." >&2
    exit 1
  fi
  echo "release: turning $(find changelogs/fragments -name "*.yml" | wc -l) changelog fragments into $version"
  antsibull-changelog release --version "$version"
else
  echo "release: $version is already in changelogs/changelog.yaml; generating CHANGELOG.rst from it"
  antsibull-changelog generate
fi
antsibull-changelog lint
grep -q "^v$version\$" CHANGELOG.rst || { echo "release: CHANGELOG.rst has no v$version section" >&2; exit 1; }

mkdir -p dist
rm -f "dist/realtime-virt-$version.tar.gz"
ansible-galaxy collection build --output-path dist . >/dev/null
tarball="$top/dist/realtime-virt-$version.tar.gz"
echo "release: built $tarball"
scripts/build-check.sh "$tarball"
make --no-print-directory lint docs

sha=$(sha256sum "$tarball" | cut -d' ' -f1)
cat <<TXT

release: realtime.virt $version is ready; nothing has been published.
  tarball   $tarball
  sha256    $sha
To publish, from a clean checkout of the commit that holds this changelog:
  1. git add changelogs CHANGELOG.rst && git commit -m "Release $version"   (if the changelog changed)
  2. git tag -a $version -m "realtime.virt $version" && git push origin main $version   (${repository:-no repository in galaxy.yml})
  3. ansible-galaxy collection publish $tarball --token <your Galaxy API token>
  4. publish build/docs/html at ${documentation:-the documentation address of galaxy.yml}
TXT
