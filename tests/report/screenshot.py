# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Open a fleet report in headless chromium, save a screenshot, and check that it rendered.

    screenshot.py INDEX_HTML OUTPUT_PNG

Chromium (Debian's package) draws the page as a person's browser would.
The screenshot is read back with Pillow: it must have the window's size,
and hold pixels of the histogram bars' blue and of the threshold line's
red, which only appear when the inline SVG was drawn. Prints what it found
as JSON; exits 1, saying what is missing, when the page did not render.
"""
import json
import os
import shutil
import subprocess
import sys

from PIL import Image

WIDTH, HEIGHT = 1280, 1600
# The first series colour and the threshold colour of plugins/module_utils/_validate/svg.py.
BAR = (0x1F, 0x6F, 0xB4)
THRESHOLD = (0xB7, 0x1C, 0x1C)


def near(pixel, colour, slack=24):
    return all(abs(a - b) <= slack for a, b in zip(pixel[:3], colour))


def main(page, output):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        print("screenshot: chromium is not installed (scripts/host-packages.sh installs it)", file=sys.stderr)
        return 1
    if os.path.exists(output):
        os.unlink(output)
    argv = [browser, "--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--window-size=%d,%d" % (WIDTH, HEIGHT), "--screenshot=%s" % output,
            "file://" + os.path.abspath(page)]
    if os.geteuid() == 0:
        argv.insert(1, "--no-sandbox")  # chromium refuses to run as root with its sandbox
    run = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120, check=False)
    if run.returncode != 0 or not os.path.exists(output):
        print("screenshot: chromium exited with %d and wrote no %s:\n%s"
              % (run.returncode, output, run.stdout.decode(errors="replace")[-2000:]), file=sys.stderr)
        return 1
    image = Image.open(output).convert("RGB")
    colours = image.getcolors(WIDTH * HEIGHT)  # [(count, (r, g, b))], every colour of the picture
    found = {
        "path": output,
        "size": list(image.size),
        "bar_pixels": sum(count for count, colour in colours if near(colour, BAR)),
        "threshold_pixels": sum(count for count, colour in colours if near(colour, THRESHOLD)),
        "colours": len(colours),
    }
    print(json.dumps(found))
    problems = []
    if tuple(image.size) != (WIDTH, HEIGHT):
        problems.append("the screenshot is %dx%d, not the %dx%d window" % (image.size + (WIDTH, HEIGHT)))
    if found["bar_pixels"] < 100:
        problems.append("no histogram bars were drawn (%d blue pixels)" % found["bar_pixels"])
    if found["threshold_pixels"] < 20:
        problems.append("no threshold line was drawn (%d red pixels)" % found["threshold_pixels"])
    if problems:
        print("screenshot: the page did not render: " + "; ".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
