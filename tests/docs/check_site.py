# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check the documentation site that scripts/docs.sh built (make docs).

    check_site.py [SITE_DIR]

SITE_DIR defaults to build/docs/html, or REALTIME_VIRT_DOCS_DIR/html when
that is set (as for scripts/docs.sh).

First the HTML: every module, filter and role of the tree has its page and
every guide of docs/ its page. The libvirt_rt_domain module page and the
rt_domain role page must hold antsibull-docs' options table with a row for
each option the module's DOCUMENTATION and the role's
meta/argument_specs.yml declare (read from the tree, not from the site).

Then a real browser: the two pages are opened in headless chromium
(Debian's package, scripts/host-packages.sh) and the screenshots, saved
next to the site in SITE_DIR/../check/, are read back with Pillow. Each must
have the window's size, show the theme (the dark navigation column), hold
text in the content column, and show two bands of the theme's table-header
blue there: the "Note" box every plugin page opens with, and the header of
the options table below it. A page with no options, an unstyled page (the
theme's CSS missing) or a blank one fails.

Prints what it found as JSON; exits 1, saying what is wrong.
"""
import ast
import glob
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml
from PIL import Image, ImageChops

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = "collections/realtime/virt"
WIDTH, HEIGHT = 1280, 2400
# sphinx-ansible-theme's colours: the navigation column, the header of the
# note box and of the options table, and the page background.
NAV = (0x34, 0x31, 0x31)
HEADER = (0x6A, 0xB0, 0xDE)
BACKGROUND = (0xFC, 0xFC, 0xFC)
# The content column starts right of the navigation column (300 px wide).
CONTENT_LEFT = 320


def near(pixel, colour, slack=12):
    return all(abs(a - b) <= slack for a, b in zip(pixel[:3], colour))


class Ids(html.parser.HTMLParser):
    """The id of every element, and the classes of every table."""

    def __init__(self):
        super().__init__()
        self.ids = set()
        self.table_classes = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "table":
            self.table_classes.append((attrs.get("class") or "").split())


def parse(path):
    parser = Ids()
    with open(path, encoding="utf-8") as page:
        parser.feed(page.read())
    return parser


def module_options(name):
    """Top-level option names of a module's DOCUMENTATION, read without importing it."""
    with open(os.path.join(TOP, "plugins", "modules", name + ".py"), encoding="utf-8") as source:
        tree = ast.parse(source.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "DOCUMENTATION" for t in node.targets):
            return sorted(yaml.safe_load(node.value.value)["options"])
    raise ValueError("plugins/modules/%s.py has no DOCUMENTATION" % name)


def role_options(name):
    """{entry point: option names} of a role's meta/argument_specs.yml."""
    with open(os.path.join(TOP, "roles", name, "meta", "argument_specs.yml"), encoding="utf-8") as specs:
        entry_points = yaml.safe_load(specs)["argument_specs"]
    return {entry: sorted(spec.get("options") or {}) for entry, spec in entry_points.items()}


def expected_pages():
    """Every page the site must have, relative to the site: plugins, roles, guides."""
    pages = ["%s/%s_module.html" % (PAGES, os.path.basename(path)[:-3])
             for path in glob.glob(os.path.join(TOP, "plugins", "modules", "*.py"))
             if not os.path.basename(path).startswith("_")]
    pages += ["%s/%s_filter.html" % (PAGES, os.path.basename(path)[:-4])
              for path in glob.glob(os.path.join(TOP, "plugins", "filter", "*.yml"))]
    # Every role: antsibull-docs writes a role's page from its meta/argument_specs.yml.
    pages += ["%s/%s_role.html" % (PAGES, os.path.basename(os.path.dirname(path)))
              for path in glob.glob(os.path.join(TOP, "roles", "*", ""))]
    pages += ["guides/%s.html" % os.path.basename(path)[:-3]
              for path in glob.glob(os.path.join(TOP, "docs", "*.md"))]
    return sorted(pages)


def check_options(site, page, anchors, problems):
    """The page has an options table and a row (an anchor) for each option."""
    parsed = parse(os.path.join(site, page))
    if not any("ansible-option-table" in classes for classes in parsed.table_classes):
        problems.append("%s has no options table" % page)
    missing = sorted(anchor for anchor in anchors if anchor not in parsed.ids)
    if missing:
        problems.append("%s lacks the rows of %s" % (page, ", ".join(m.split("-", 1)[1] for m in missing)))
    return {"page": page, "options": len(anchors), "rows_missing": len(missing)}


def bands(image, colour, left):
    """Runs of rows in which the colour spans at least half the content column."""
    content = image.crop((left, 0, image.size[0], image.size[1]))
    mask = None
    for channel, value in zip(content.split(), colour):
        near_value = channel.point(lambda v, value=value: 255 if abs(v - value) <= 12 else 0)
        mask = near_value if mask is None else ImageChops.multiply(mask, near_value)
    # Squeezed to one column: each row's share of matching pixels, 0 to 255.
    shares = mask.resize((1, content.size[1]), Image.Resampling.BOX).tobytes()
    runs, inside = 0, False
    for share in shares:
        wide = share >= 128
        if wide and not inside:
            runs += 1
        inside = wide
    return runs


def start_chromium(browser, page, output, profile):
    """Chromium writing the page's screenshot to output, started in the background."""
    if os.path.exists(output):
        os.unlink(output)
    argv = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
            "--user-data-dir=" + profile, "--window-size=%d,%d" % (WIDTH, HEIGHT),
            "--screenshot=" + output, "file://" + os.path.abspath(page)]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def read_screenshot(run, page, output, problems):
    """Wait for chromium, then read back what it drew."""
    log = run.communicate(timeout=120)[0]
    if run.returncode != 0 or not os.path.exists(output):
        problems.append("chromium exited with %d and wrote no %s: %s"
                        % (run.returncode, output, log.decode(errors="replace")[-2000:]))
        return {"path": output}
    image = Image.open(output).convert("RGB")
    colours = image.getcolors(image.size[0] * image.size[1])
    content = image.crop((CONTENT_LEFT, 0, image.size[0], image.size[1]))
    content_colours = content.getcolors(content.size[0] * content.size[1])
    found = {
        "path": output,
        "size": list(image.size),
        "colours": len(colours),
        "nav_pixels": sum(count for count, colour in colours if near(colour, NAV)),
        # Text, code, borders: whatever is neither background nor near white.
        "ink_pixels": sum(count for count, colour in content_colours
                          if not near(colour, BACKGROUND, 8) and sum(colour) < 600),
        "header_bands": bands(image, HEADER, CONTENT_LEFT),
    }
    name = os.path.basename(page)
    if tuple(image.size) != (WIDTH, HEIGHT):
        problems.append("%s: the screenshot is %dx%d, not the %dx%d window" % ((name,) + image.size + (WIDTH, HEIGHT)))
    if found["nav_pixels"] < 50000:
        problems.append("%s: no navigation column was drawn (%d pixels; the theme's CSS?)" % (name, found["nav_pixels"]))
    if found["ink_pixels"] < 20000:
        problems.append("%s: the content column is (nearly) blank (%d pixels of ink)" % (name, found["ink_pixels"]))
    if found["header_bands"] < 2:
        problems.append("%s: %d band(s) of table-header blue, not the note and the options table"
                        % (name, found["header_bands"]))
    return found


def main(site):
    site = os.path.abspath(site)
    problems = []
    missing = [page for page in expected_pages() if not os.path.isfile(os.path.join(site, page))]
    if missing:
        problems.append("the site lacks %d page(s): %s" % (len(missing), ", ".join(missing)))
    module_page = "%s/libvirt_rt_domain_module.html" % PAGES
    role_page = "%s/rt_domain_role.html" % PAGES
    checked = []
    if os.path.isfile(os.path.join(site, module_page)):
        checked.append(check_options(site, module_page,
                                     ["parameter-" + name for name in module_options("libvirt_rt_domain")], problems))
    if os.path.isfile(os.path.join(site, role_page)):
        checked.append(check_options(site, role_page,
                                     ["parameter-%s--%s" % (entry, name)
                                      for entry, names in role_options("rt_domain").items() for name in names],
                                     problems))
    shots = []
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        problems.append("chromium is not installed (scripts/host-packages.sh installs it)")
    else:
        out = os.path.join(os.path.dirname(site), "check")
        os.makedirs(out, exist_ok=True)
        # One chromium per page, side by side, each with an empty profile of its own.
        with tempfile.TemporaryDirectory(prefix="rtv-docs-chromium-") as profiles:
            runs = []
            for page in (module_page, role_page):
                if os.path.isfile(os.path.join(site, page)):
                    png = os.path.join(out, os.path.basename(page)[:-5] + ".png")
                    profile = os.path.join(profiles, os.path.basename(page))
                    runs.append((start_chromium(browser, os.path.join(site, page), png, profile), page, png))
            for run, page, png in runs:
                shots.append(read_screenshot(run, os.path.join(site, page), png, problems))
    print(json.dumps({"site": site, "pages_missing": len(missing), "options": checked, "screenshots": shots}))
    if problems:
        print("check_site: the documentation site is not right:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    default = os.path.join(os.environ.get("REALTIME_VIRT_DOCS_DIR") or os.path.join(TOP, "build", "docs"), "html")
    sys.exit(main(sys.argv[1] if len(sys.argv) == 2 else default))
