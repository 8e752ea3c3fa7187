#!/usr/bin/env python
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the collection tarball must hold, for scripts/build-check.sh.

    tarball_contents.py copy TOP DEST        the checkout's files, then planted run output
    tarball_contents.py check TOP TARBALL LABEL [--planted]

`copy` puts into DEST what a clone of TOP would hold (git's tracked files
and its untracked, not ignored ones, as they are in the working tree), then
plants there the run output and local files a used checkout collects
(PLANTED).  `check` compares TARBALL with what should ship: every file of
TOP's git listing under SHIPS, minus DEVELOPMENT, plus the two files
ansible-galaxy writes.  It names each file too many (a planted one, a
development-only one, one git does not know) and each missing one, and
fails if there is any.

SHIPS and DEVELOPMENT say in the positive what galaxy.yml's build_ignore
says in the negative.  They are kept apart on purpose: a pattern added to
build_ignore that drops a file users need, or a new file nobody decided
about, fails the check until both agree.
"""
import os
import shutil
import subprocess
import sys
import tarfile

# What a user of the installed collection needs: its content, its docs and
# changelog, its licences, and what an execution environment reads
# (meta/execution-environment.yml names bindep.txt).
SHIPS = {
    "README.md",
    "CHANGELOG.rst",
    "COPYING",
    "LICENSES",
    "bindep.txt",
    "changelogs",
    "docs",
    "meta",
    "playbooks",
    "plugins",
    "roles",
}
# Inside those, what serves only the development of the collection: the
# changelog's input (the generated changelog.yaml and CHANGELOG.rst ship)
# and the Molecule scenarios, which drive this repository's test host.
DEVELOPMENT = (
    "changelogs/fragments/",
    "changelogs/.plugin-cache.yaml",
    # the licences of test data only (tests/unit/fixtures/kubevirt_*, tests/corpus)
    "LICENSES/Apache-2.0.txt",
    "LICENSES/LGPL-2.1-or-later.txt",
)
# What ansible-galaxy collection build writes into every tarball.
GENERATED = {"MANIFEST.json", "FILES.json"}
# What a checkout collects that is not the collection: make demo's and the
# integration targets' fleet reports (host data), test and lint caches,
# Python bytecode, Ansible's retry files, make docs' site, make release's
# tarball, an older build, the virtualenv.
PLANTED = (
    "rt-reports/index.html",
    "playbooks/rt-reports/kvm-01.example.com.json",
    "roles/rt_validate/rt-reports/kvm-01.example.com.html",
    ".pytest_cache/v/cache/lastfailed",
    "plugins/filter/.pytest_cache/v/cache/nodeids",
    "tests/output/coverage/planted.json",
    "tests/unit/.pytest_cache/v/cache/lastfailed",
    ".cache/pyc/planted.pyc",
    ".cache/collections/ansible_collections/planted.txt",
    ".ansible/collections/ansible_collections/planted.txt",
    "plugins/modules/__pycache__/rt_node_facts.cpython-312.pyc",
    "plugins/module_utils/_common/cpuset.pyc",
    "playbooks/site.retry",
    "site.retry",
    "build/docs/html/index.html",
    "dist/realtime-virt-0.0.1.tar.gz",
    "realtime-virt-0.0.1.tar.gz",
    ".venv/bin/planted",
)


def git_files(top):
    """The files a clone of TOP would hold, as they are in its working tree."""
    out = subprocess.run(
        ["git", "-C", top, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        check=True, capture_output=True,
    ).stdout.decode()
    return sorted({path for path in out.split("\0")
                   if path and os.path.lexists(os.path.join(top, path))})


def ships(path):
    return path.split("/", 1)[0] in SHIPS and not path.startswith(DEVELOPMENT)


def copy(top, dest):
    for path in git_files(top):
        source, target = os.path.join(top, path), os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.islink(source):
            os.symlink(os.readlink(source), target)
        else:
            shutil.copy2(source, target)
    for path in PLANTED:
        target = os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as handle:
            handle.write("planted by scripts/build-check.sh: must not ship\n")


def check(top, tarball, label, planted):
    with tarfile.open(tarball) as archive:
        held = {member.name.removeprefix("./") for member in archive.getmembers()
                if not member.isdir()}
    files = git_files(top)
    expected = {path for path in files if ships(path)} | GENERATED
    known = set(files)
    problems = []
    for path in sorted(held - expected):
        if planted and path in PLANTED:
            why = "planted run output or local file; build_ignore must leave it out"
        elif path in known:
            why = "development-only (not under SHIPS of scripts/tarball_contents.py); add it to build_ignore, or to SHIPS if users need it"
        else:
            why = "not one of the checkout's git files: run output or a local file; add it to build_ignore"
        problems.append("ships %s: %s" % (path, why))
    for path in sorted(expected - held):
        problems.append("lacks %s: a user needs it, yet build_ignore leaves it out" % path)
    name = "%s (%s)" % (os.path.basename(tarball), label)
    if problems:
        for problem in problems:
            print("build-check: %s %s" % (name, problem), file=sys.stderr)
        return 1
    print("build-check: %s holds the %d files a user needs and nothing else%s"
          % (name, len(held), ", none of the %d planted ones" % len(PLANTED) if planted else ""))
    return 0


def main(argv):
    if len(argv) == 3 and argv[0] == "copy":
        copy(*argv[1:])
        return 0
    if len(argv) in (4, 5) and argv[0] == "check" and argv[4:] in ([], ["--planted"]):
        return check(argv[1], argv[2], argv[3], argv[4:] == ["--planted"])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
