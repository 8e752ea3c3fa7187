# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""README.md's links work where the README is read: on Galaxy and on GitHub.

Galaxy shows README.md away from the repository and resolves no relative
link, so every link is absolute.  The project's public addresses are
given once, in galaxy.yml (``repository``, ``documentation``,
``homepage``, ``issues``), and every link to the project's host or to
its documentation site starts with them:

- on the repository's host, the repository itself, its issues, or a file
  (``/blob/main/<path>``), a directory (``/tree/main/<path>``) or, for an
  image, a file's raw content (``/raw/main/<path>``), each path present
  in this checkout;
- on the documentation site's host, the site's address.

When the project moves, changing galaxy.yml makes this test name every
README link still pointing at the old place.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
from urllib.parse import unquote, urlsplit

import pytest
import yaml

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
README = os.path.join(TOP, "README.md")
ADDRESS_KEYS = ("repository", "documentation", "homepage", "issues")
ABSOLUTE = ("https://", "http://", "mailto:")

# Code is shown, not linked: fenced blocks first, then code spans.
FENCED = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?^ {0,3}\1[`~]*[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
# [text](url "title") and ![alt](url), the text allowed one level of brackets
INLINE = re.compile(r"(!?)\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^\s()<>]*)>?(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*<?([^\s>]+)>?", re.MULTILINE)
AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>")
HTML = re.compile(r"\b(href|src)\s*=\s*[\"']([^\"']*)[\"']", re.IGNORECASE)


def links(text):
    """(url, is_image) for every link and image of a Markdown text."""
    text = CODE_SPAN.sub("", FENCED.sub("", text))
    found = [(match.group(2), match.group(1) == "!") for match in INLINE.finditer(text)]
    text = INLINE.sub(" ", text)
    found += [(match.group(1), False) for match in REFERENCE.finditer(text)]
    found += [(match.group(1), False) for match in AUTOLINK.finditer(text)]
    found += [(match.group(2), match.group(1).lower() == "src") for match in HTML.finditer(text)]
    return found


def galaxy():
    with open(os.path.join(TOP, "galaxy.yml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def readme_links():
    with open(README, encoding="utf-8") as handle:
        return links(handle.read())


def host_of(url):
    return urlsplit(url).netloc.lower()


def in_repository(url, is_image, repository, issues):
    """The problem with a link to the repository's host, or None."""
    if url in (repository, repository + "/") or url.startswith(issues):
        return None
    forms = [("/blob/main/", os.path.isfile), ("/tree/main/", os.path.isdir)]
    if is_image:
        forms.append(("/raw/main/", os.path.isfile))
    for form, exists in forms:
        if url.startswith(repository + form):
            path = unquote(urlsplit(url[len(repository + form):]).path).rstrip("/")
            if not path or os.path.isabs(path) or ".." in path.split("/"):
                return "%s: no path inside the repository after %s" % (url, form)
            if not exists(os.path.join(TOP, path)):
                return "%s: %s is not a %s in this checkout" % (
                    url, path, "directory" if form == "/tree/main/" else "file")
            return None
    return ("%s: a link to the repository's host must be %s itself, its issues (%s) or start with %s "
            "followed by /blob/main/<file> or /tree/main/<directory>%s (galaxy.yml's repository)"
            % (url, repository, issues, repository, " (an image: /raw/main/<file>)" if is_image else ""))


# The link finder itself, on the forms Markdown (and Galaxy's renderer) knows.
@pytest.mark.parametrize("text, expected", [
    ("see [the roles](docs/roles.md) first", [("docs/roles.md", False)]),
    ("[a](https://example.org/a \"title\") and [b](<https://example.org/b>)",
     [("https://example.org/a", False), ("https://example.org/b", False)]),
    ("![a report,\nacross lines](docs/images/rt-report.png)", [("docs/images/rt-report.png", True)]),
    ("[a [nested] text](docs/qat.md#vfs)", [("docs/qat.md#vfs", False)]),
    ("[roles]: docs/roles.md\n", [("docs/roles.md", False)]),
    ("mail <mailto:a@example.org> or <https://example.org/>",
     [("mailto:a@example.org", False), ("https://example.org/", False)]),
    ('<a href="docs/x.md">x</a> <img src="docs/y.png">', [("docs/x.md", False), ("docs/y.png", True)]),
    ("```yaml\nurl: [x](docs/in-code.md)\n```\nafter", []),
    ("inline `[x](docs/in-code.md)` code", []),
    ("a list `[1, 2]` then (a remark)", []),
])
def test_the_link_finder_finds_each_form(text, expected):
    assert links(text) == expected


@pytest.mark.parametrize("key", ADDRESS_KEYS)
def test_galaxy_yml_names_each_public_address(key):
    value = galaxy().get(key)
    assert isinstance(value, str) and value.startswith("https://") and host_of(value), (
        "galaxy.yml: %s must be the project's https:// address, not %r" % (key, value))


def test_the_readme_links_to_the_repository_and_the_documentation():
    meta = galaxy()
    urls = [url for url, _image in readme_links()]
    assert any(url.startswith(meta["repository"] + "/blob/main/") for url in urls), urls
    assert any(url.startswith(meta["documentation"]) for url in urls), urls


@pytest.mark.parametrize("url", [url for url, _image in readme_links()])
def test_readme_link_is_absolute(url):
    assert url.startswith(ABSOLUTE), (
        "README.md: %r is not absolute; Galaxy resolves no relative link. Write %s/blob/main/<path> "
        "(a directory: /tree/main/<path>), with galaxy.yml's repository" % (url, galaxy()["repository"]))


@pytest.mark.parametrize("url, is_image", readme_links())
def test_readme_link_to_the_project_starts_with_its_address(url, is_image):
    meta = galaxy()
    host = host_of(url)
    if host == host_of(meta["repository"]):
        problem = in_repository(url, is_image, meta["repository"], meta["issues"])
        assert problem is None, "README.md: " + problem
    if host == host_of(meta["documentation"]):
        assert url.startswith(meta["documentation"]), (
            "README.md: %s is on the documentation site's host but does not start with galaxy.yml's "
            "documentation, %s" % (url, meta["documentation"]))
