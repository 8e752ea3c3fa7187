# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Pure parsers for the text the kernel writes in /proc and /sys.

No I/O here: every function takes the text of a file (or a value from the
kernel command line) and returns plain Python data, so the tests can drive
them from tables.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.realtime.virt.plugins.module_utils._common.cpuset import (
    CpusetError,
    parse_kernel_cpulist,
)
from ansible_collections.realtime.virt.plugins.module_utils._common.units import page_size_kib

PREEMPT_MODES = ("none", "voluntary", "full", "lazy")
ISOLCPUS_FLAGS = ("nohz", "domain", "managed_irq")

_HUGEPAGE_DIR = re.compile(r"^hugepages-([0-9]+)kB$")
_OCTAL_ESCAPE = re.compile(r"\\([0-7]{3})")
_STRIDE = re.compile(r"^([0-9]+)-([0-9]+):([0-9]+)/([0-9]+)$")


def split_cmdline(text):
    """Split a kernel command line into words the way the kernel does.

    Whitespace separates words except inside double quotes; the quotes
    themselves are dropped (``a="b c"`` gives ``a=b c``).  Returns
    ``(kernel_words, init_words)``: everything after a lone ``--`` goes to
    init, not to the kernel.
    """
    words = []
    current = []
    in_word = False
    quoted = False
    for char in text or "":
        if char == '"':
            quoted = not quoted
            in_word = True
            continue
        if char.isspace() and not quoted:
            if in_word:
                words.append("".join(current))
                current = []
                in_word = False
            continue
        current.append(char)
        in_word = True
    if in_word:
        words.append("".join(current))
    if "--" in words:
        cut = words.index("--")
        return words[:cut], words[cut + 1:]
    return words, []


def parse_cmdline_args(words):
    """Map kernel words to ``{name: value}``.

    ``name=value`` gives a string value, a bare ``flag`` gives ``True``,
    and a name given more than once maps to the list of its values in
    command-line order.
    """
    args = {}
    for word in words:
        if "=" in word:
            name, value = word.split("=", 1)
        else:
            name, value = word, True
        if name in args:
            if isinstance(args[name], list):
                args[name].append(value)
            else:
                args[name] = [args[name], value]
        else:
            args[name] = value
    return args


def cmdline_value(args, name):
    """Last value the command line gives ``name`` (the kernel's winner).

    The kernel treats ``-`` and ``_`` in parameter names alike, so both
    spellings are looked up.  Returns None when the name is absent.
    """
    found = None
    wanted = name.replace("-", "_")
    for key, value in args.items():
        if key.replace("-", "_") == wanted:
            found = value[-1] if isinstance(value, list) else value
    return found


def parse_cmdline_cpulist(text, possible=None):
    """Parse a CPU list given on the kernel command line.

    Besides ``0-3,8`` the kernel accepts ``all``, ``N`` for the last CPU
    (needs ``possible``) and strided ranges ``0-15:2/4`` (use the first 2
    of every 4).  Raises :class:`CpusetError` for anything else.
    """
    text = (text or "").strip()
    possible = sorted(possible or [])
    last = possible[-1] if possible else None
    if text == "all":
        if last is None:
            raise CpusetError("'all' needs the list of possible CPUs", token=text, value=text)
        return list(possible)
    if text == "":
        return []
    plain = []
    extra = set()
    for token in text.split(","):
        token = token.strip()
        if last is not None and "N" in token:
            token = token.replace("N", str(last))
        match = _STRIDE.match(token)
        if match:
            start, end, used, group = (int(part) for part in match.groups())
            if start > end or used == 0 or group == 0 or used > group:
                raise CpusetError("invalid strided CPU range %r in %r" % (token, text), token=token, value=text)
            for base in range(start, end + 1, group):
                extra.update(cpu for cpu in range(base, base + used) if cpu <= end)
            continue
        plain.append(token)
    return sorted(set(parse_kernel_cpulist(",".join(plain))) | extra)


def parse_isolcpus(value, possible=None):
    """Split ``isolcpus=`` into ``(flags, cpus)``.

    The kernel accepts leading flags (``nohz``, ``domain``,
    ``managed_irq``) before the CPU list; without any flag it means
    ``domain``.  An unknown flag raises :class:`CpusetError`.
    """
    if value is None or value is True:
        return [], []
    parts = [part.strip() for part in value.split(",")]
    flags = []
    # Like the kernel: leading words that start with a letter are flags.
    while parts and parts[0][:1].isalpha():
        flag = parts.pop(0)
        if flag not in ISOLCPUS_FLAGS:
            raise CpusetError("unknown isolcpus flag %r in %r" % (flag, value), token=flag, value=value)
        flags.append(flag)
    if not flags:
        flags = ["domain"]
    return flags, parse_cmdline_cpulist(",".join(parts), possible)


def parse_sysfs_cpulist(text):
    """Parse a sysfs CPU list; old kernels write ``(null)`` for an empty mask."""
    text = (text or "").strip()
    if text in ("", "(null)"):
        return []
    return parse_kernel_cpulist(text)


def parse_meminfo(text):
    """``/proc/meminfo`` or a node's ``meminfo`` to ``{key: int}``.

    Values are kept in the file's unit (kB for sizes, a count for the
    ``HugePages_*`` lines).  The ``Node N`` prefix of per-node files is
    dropped.
    """
    result = {}
    for line in (text or "").splitlines():
        if ":" not in line:
            continue
        key, rest = line.split(":", 1)
        key = key.split()[-1] if key.startswith("Node ") else key.strip()
        fields = rest.split()
        if not fields:
            continue
        try:
            result[key] = int(fields[0])
        except ValueError:
            continue
    return result


def size_to_kb(text):
    """``2M`` / ``1024M`` / ``1G`` / ``2048k`` / ``2048kB`` to kibibytes.

    A bare number is taken as bytes (as hugetlbfs' ``pagesize=`` option
    does).  Returns None for text that is not a size.
    """
    return page_size_kib(text, bare_unit="B")


def hugepage_dir_size_kb(name):
    """``hugepages-2048kB`` to 2048; None for other names."""
    match = _HUGEPAGE_DIR.match(name)
    return int(match.group(1)) if match else None


def _unescape_mount_field(text):
    return _OCTAL_ESCAPE.sub(lambda match: chr(int(match.group(1), 8)), text)


def parse_mounts(text):
    """``/proc/mounts`` to a list of ``{device, path, fstype, options}``.

    ``options`` is a dict (``{"rw": True, "pagesize": "2M"}``); the kernel's
    octal escapes (``\\040`` for a space) are decoded in device and path.
    """
    mounts = []
    for line in (text or "").splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        options = {}
        for option in fields[3].split(","):
            if "=" in option:
                key, value = option.split("=", 1)
                options[key] = value
            elif option:
                options[option] = True
        mounts.append(
            {
                "device": _unescape_mount_field(fields[0]),
                "path": _unescape_mount_field(fields[1]),
                "fstype": fields[2],
                "options": options,
            }
        )
    return mounts


def hugetlbfs_mounts(mounts, default_size_kb):
    """hugetlbfs entries of :func:`parse_mounts` as ``{path, pagesize_kb}``.

    A mount without ``pagesize=`` serves the default hugepage size.
    """
    result = []
    for mount in mounts:
        if mount["fstype"] != "hugetlbfs":
            continue
        pagesize = mount["options"].get("pagesize")
        size_kb = size_to_kb(pagesize) if isinstance(pagesize, str) else default_size_kb
        result.append({"path": mount["path"], "pagesize_kb": size_kb})
    return result


def selected_choice(text):
    """The bracketed (or parenthesised) word of a sysfs choice file.

    ``always [madvise] never`` gives ``madvise``; debugfs' preempt file
    writes ``none voluntary (full) lazy``.  A file with one bare word gives
    that word; None when nothing is marked.
    """
    words = (text or "").split()
    for word in words:
        if len(word) > 2 and word[0] + word[-1] in ("[]", "()"):
            return word[1:-1]
    if len(words) == 1:
        return words[0]
    return None


def parse_cpu_flags(cpuinfo):
    """Flags of the first processor in ``/proc/cpuinfo`` as a set.

    x86 calls the line ``flags``, arm64 ``Features``.
    """
    for line in (cpuinfo or "").splitlines():
        if ":" not in line:
            continue
        key, value = line.split(":", 1)
        if key.strip() in ("flags", "Features"):
            return set(value.split())
    return set()


def parse_bool_param(text):
    """A module parameter's boolean (``Y``/``N``/``1``/``0``); None otherwise."""
    value = (text or "").strip().upper()
    if value in ("Y", "1", "YES", "ON", "TRUE"):
        return True
    if value in ("N", "0", "NO", "OFF", "FALSE"):
        return False
    return None


def parse_kernel_config(text, names):
    """Values of ``CONFIG_*`` names in a kernel config file (``y``, ``m``, ...)."""
    wanted = set(names)
    result = {}
    for line in (text or "").splitlines():
        if "=" not in line or line.startswith("#"):
            continue
        key, value = line.split("=", 1)
        if key in wanted:
            result[key] = value.strip().strip('"')
    return result


def preempt_model(version, realtime=None, debug_preempt=None, cmdline_preempt=None, config=None):
    """Work out the kernel's preemption model.

    Returns one of ``rt``, ``full``, ``lazy``, ``voluntary``, ``none``,
    ``dynamic-<mode>`` (``PREEMPT_DYNAMIC`` kernel whose current mode is
    known), ``dynamic`` (mode unknown), ``none-or-voluntary`` (a
    non-preemptible build whose config cannot be read), or None when even
    the version string is missing.

    Sources, strongest first: ``/sys/kernel/realtime`` (``realtime``),
    the words ``PREEMPT_RT``/``PREEMPT_DYNAMIC``/``PREEMPT`` of
    ``/proc/sys/kernel/version``, debugfs ``sched/preempt``, the ``preempt=``
    boot argument, then ``CONFIG_PREEMPT*`` of the boot config (``config``
    is the dict of :func:`parse_kernel_config`).
    """
    words = (version or "").split()
    config = config or {}
    if realtime or "PREEMPT_RT" in words or ("PREEMPT" in words and "RT" in words):
        return "rt"
    if config.get("CONFIG_PREEMPT_RT") == "y":
        return "rt"
    dynamic = "PREEMPT_DYNAMIC" in words or config.get("CONFIG_PREEMPT_DYNAMIC") == "y"
    configured = None
    for mode, key in (("full", "CONFIG_PREEMPT"), ("lazy", "CONFIG_PREEMPT_LAZY"),
                      ("voluntary", "CONFIG_PREEMPT_VOLUNTARY"), ("none", "CONFIG_PREEMPT_NONE")):
        if config.get(key) == "y":
            configured = mode
            break
    current = selected_choice(debug_preempt) if debug_preempt else None
    if current in PREEMPT_MODES:
        return "dynamic-" + current
    if dynamic:
        if cmdline_preempt in PREEMPT_MODES:
            return "dynamic-" + cmdline_preempt
        if configured:
            return "dynamic-" + configured
        return "dynamic"
    if "PREEMPT" in words:
        return "full"
    if "PREEMPT_LAZY" in words:
        return "lazy"
    if configured:
        return configured
    if version is None:
        return None
    return "none-or-voluntary"
