# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Stand-ins for grubby, tuned-adm and systemctl of a RHEL-family host.

  python fake_rhel_tools.py STATE_DIR grubby|tuned-adm|systemctl ARGS...

Each keeps what it would change in STATE_DIR (grubby.json: the boot
entries; tuned.json: the known and the active profiles; systemctl.json:
the units restarted) and appends every call to STATE_DIR/calls.jsonl.
They follow the tools' documented command lines, only the part the
rt_host role uses; anything else fails with exit code 1, so a role that
calls them differently fails instead of passing by luck.

grubby (grubby(8), the BLS grubby of RHEL 8 and later): --info=ALL prints
index, kernel, args="...", initrd and title per entry;
--update-kernel=ALL|N[,N] with --args adds arguments, replacing the value
of an argument of the same name, and with --remove-args removes them (a
word with a value removes that word, a bare name every word of that name).

tuned-adm (tuned/admin/admin.py): list prints "Available profiles:", one
"- <name>" line per profile padded to column 30 before "- <summary>", then
the active profile line; active prints "Current active profile: <name>"
(exit 0) or "No current active profile." (exit 1); recommend prints the
"recommended" profile of tuned.json (balanced by default); profile <name> makes a
known profile active, else "Requested profile '<name>' doesn't exist." and
exit 1. The known profiles are those of tuned.json plus, as tuned's locator
finds them, every <dir>/<name>/tuned.conf of its "profile_dirs" (the
summary from the [main] section).

systemctl: show <unit> prints the properties of a loaded, running unit;
restart <unit> records the restart. Nothing real is started.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import configparser
import json
import os
import sys


def _load(state, name, default):
    path = os.path.join(state, name)
    if not os.path.exists(path):
        return default
    with open(path) as handle:
        return json.load(handle)


def _save(state, name, data):
    path = os.path.join(state, name)
    with open(path + ".new", "w") as handle:
        json.dump(data, handle, indent=1, sort_keys=True)
    os.rename(path + ".new", path)


def _fail(message):
    sys.stderr.write(message + "\n")
    return 1


def _name(word):
    return word.split("=", 1)[0]


def _add(words, new):
    for word in new:
        same = [index for index, old in enumerate(words) if _name(old) == _name(word)]
        if same:
            words[same[0]] = word
            for index in reversed(same[1:]):
                del words[index]
        else:
            words.append(word)
    return words


def _remove(words, gone):
    for word in gone:
        if "=" in word:
            words = [old for old in words if old != word]
        else:
            words = [old for old in words if _name(old) != word]
    return words


def _options(argv, known):
    options = {}
    for arg in argv:
        if not arg.startswith("--") or "=" not in arg:
            return None
        key, value = arg[2:].split("=", 1)
        if key not in known or key in options:
            return None
        options[key] = value
    return options


def _indexes(selector, count):
    if selector == "ALL":
        return list(range(count))
    try:
        picked = [int(part) for part in selector.split(",")]
    except ValueError:
        return None
    return picked if all(0 <= index < count for index in picked) else None


def grubby(state, argv):
    data = _load(state, "grubby.json", {"entries": []})
    entries = data["entries"]
    options = _options(argv, ("info", "update-kernel", "args", "remove-args"))
    if not options:
        return _fail("grubby: bad arguments %r" % (argv,))
    if "info" in options:
        if len(options) != 1:
            return _fail("grubby: --info takes no other option")
        picked = _indexes(options["info"], len(entries))
        if picked is None:
            return _fail("The param %s is incorrect" % options["info"])
        for index in picked:
            entry = entries[index]
            print("index=%d" % index)
            print("kernel=\"%s\"" % entry["kernel"])
            print("args=\"%s\"" % " ".join(entry["args"]))
            print("initrd=\"%s\"" % entry["initrd"])
            print("title=\"%s\"" % entry["title"])
        return 0
    if "update-kernel" not in options or not ("args" in options or "remove-args" in options):
        return _fail("grubby: --args and --remove-args need --update-kernel")
    picked = _indexes(options["update-kernel"], len(entries))
    if picked is None:
        return _fail("The param %s is incorrect" % options["update-kernel"])
    for index in picked:
        words = list(entries[index]["args"])
        words = _remove(words, options.get("remove-args", "").split())
        entries[index]["args"] = _add(words, options.get("args", "").split())
    _save(state, "grubby.json", data)
    return 0


def _print_active(active):
    if active:
        print("Current active profile: %s" % active)
        return 0
    print("No current active profile.")
    return 1


def _tuned_profiles(data):
    profiles = dict(data["profiles"])
    for directory in data.get("profile_dirs", []):
        for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
            conf = os.path.join(directory, name, "tuned.conf")
            if os.path.isfile(conf):
                parser = configparser.ConfigParser(delimiters=("=",), inline_comment_prefixes=("#",), strict=False)
                parser.read(conf)
                profiles[name] = parser.get("main", "summary", fallback="")
    return profiles


def tuned_adm(state, argv):
    data = _load(state, "tuned.json", {"profiles": {}, "active": None})
    profiles = _tuned_profiles(data)
    if argv == ["list"]:
        print("Available profiles:")
        for name in sorted(profiles):
            summary = profiles[name]
            label = "- %s" % name
            print(label + " " * (30 - len(label)) + "- " + summary if summary else label)
        _print_active(data["active"])
        return 0
    if argv == ["active"]:
        return _print_active(data["active"])
    if argv == ["recommend"]:
        print(data.get("recommended", "balanced"))
        return 0
    if len(argv) >= 2 and argv[0] == "profile":
        name = " ".join(argv[1:])
        if name not in profiles:
            return _fail("Requested profile '%s' doesn't exist." % name)
        data["active"] = name
        _save(state, "tuned.json", data)
        return 0
    return _fail("tuned-adm: unsupported arguments %r" % (argv,))


def systemctl(state, argv):
    data = _load(state, "systemctl.json", {"restarted": []})
    if len(argv) == 2 and argv[0] == "show":
        unit = argv[1]
        print("Id=%s.service\nNames=%s.service\nLoadState=loaded\nActiveState=active\nSubState=running\n"
              "UnitFileState=enabled" % (unit, unit))
        return 0
    if len(argv) == 2 and argv[0] == "restart":
        data["restarted"].append(argv[1])
        _save(state, "systemctl.json", data)
        return 0
    return _fail("systemctl (fake): unsupported arguments %r" % (argv,))


TOOLS = {"grubby": grubby, "tuned-adm": tuned_adm, "systemctl": systemctl}


def main(argv):
    if len(argv) < 3 or argv[2] not in TOOLS:
        return _fail(__doc__)
    state, tool, rest = argv[1], argv[2], argv[3:]
    with open(os.path.join(state, "calls.jsonl"), "a") as handle:
        handle.write(json.dumps([tool] + rest) + "\n")
    return TOOLS[tool](state, rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
