#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A fake QAT host: a PCI sysfs served over FUSE that reacts like the kernel.

The tree and its reactions are the unit tests' fake kernel
(tests/unit/fixtures/pci_kernel.py and qat_trees.py): a write to
sriov_numvfs creates or removes virtfnN links and VF directories,
driver_override + drivers_probe binds, unbind unbinds, qat/state 'down'
removes the PF's VFs, qat/ exists only while the PF driver is bound, and
loading a module binds the devices its driver claims.  Here the tree is
served through FUSE, so programs that know nothing of the fake (the qat
role, its modules, the boot-time shell script) read and write it with
plain open/read/write.

  fake_kernel_host.py start DIR --shape S [--load M]... [--firmware-missing ADDR]...
      build the tree in DIR/backing, mount it on DIR/mnt (a daemon in the
      background), write DIR/bin/modprobe
  fake_kernel_host.py run DIR [--result FILE] -- COMMAND...
      run COMMAND in a private mount namespace where /sys is the fake,
      /proc/modules lists the fake's modules, /lib/modules/<release>
      exists and 'modprobe' is the fake's; with --result, COMMAND is an
      ansible-playbook run whose JSON callback output is summed up in FILE,
      with what the fake kernel shows afterwards (as 'view' prints it)
  fake_kernel_host.py view DIR          what the fake kernel shows now, as JSON
  fake_kernel_host.py reboot DIR [--modules-load FILE]
      the host as it boots again (the start options, then the modules FILE lists)
  fake_kernel_host.py stop DIR          unmount, stop the daemon, remove DIR

Inside the namespace: /sys is a bind mount of DIR/mnt/sys; /proc is a
tmpfs of links into the real procfs (bound on DIR/hostproc) plus
'modules', a link to DIR/mnt/proc/modules (procfs cannot be an overlay
layer, and this kernel has no /proc/modules at all); /usr/lib is an
overlay that adds modules/<release>/modules.builtin (empty: nothing is
built in).  community.general.modprobe reads those two files and runs
'modprobe [-n] NAME'; the fake modprobe asks the daemon through DIR/mnt/ctl.
Every write the fake kernel sees is appended to DIR/writes.jsonl.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import argparse
import errno
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "unit", "fixtures"))

import qat_trees  # noqa: E402  pylint: disable=wrong-import-position
from pci_kernel import FakeKernel  # noqa: E402  pylint: disable=wrong-import-position
from ansible_collections.realtime.virt.plugins.module_utils._node.parsing import (  # noqa: E402  pylint: disable=wrong-import-position
    parse_mounts,
)

RELEASE = platform.release()


def paths(top):
    top = os.path.abspath(top)
    return {
        "top": top,
        "backing": os.path.join(top, "backing"),
        "mnt": os.path.join(top, "mnt"),
        "bin": os.path.join(top, "bin"),
        "lib": os.path.join(top, "lib"),
        "hostproc": os.path.join(top, "hostproc"),
        "pid": os.path.join(top, "daemon.pid"),
        "log": os.path.join(top, "daemon.log"),
        "writes": os.path.join(top, "writes.jsonl"),
        "options": os.path.join(top, "options.json"),
    }


# -- the fake kernel and its file system ---------------------------------------------------------------
class Host(object):
    """The fake kernel of one host shape, rebuilt on reboot."""

    def __init__(self, where, options):
        self.where = where
        self.options = options
        self.seq = 0
        self.boot()

    def boot(self):
        backing = self.where["backing"]
        if os.path.isdir(backing):
            shutil.rmtree(backing)
        os.makedirs(os.path.join(backing, "proc"))
        with open(os.path.join(backing, "proc", "modules"), "w"):
            pass
        self.tree = qat_trees.build(backing, self.options["shape"])
        self.kernel = FakeKernel(self.tree)
        # the in-tree QAT drivers enable every VF, whatever count is written
        self.kernel.all_vfs.update(self.tree.qat)
        self.kernel.firmware_missing.update(self.options["firmware_missing"])
        self.record("boot", value=self.options["shape"])
        for module in self.options["load"]:
            self.load(module)

    def record(self, event, **details):
        """One line of DIR/writes.jsonl; every line has the same keys."""
        self.seq += 1
        entry = dict({"device": None, "attr": None, "value": None, "path": None, "write": None, "error": None},
                     event=event, seq=self.seq, **details)
        with open(self.where["writes"], "a") as handle:
            handle.write(json.dumps(entry, sort_keys=True) + "\n")

    def load(self, name):
        name = name.replace("-", "_")
        if name not in qat_trees.MODULES:
            raise OSError(errno.ENOENT, "module %s not found" % name)
        driver, ids = qat_trees.MODULES[name]
        if self.kernel.load_module(name, driver, ids):
            self.record("load", value=name)

    def control(self, text):
        """A command of the fake modprobe (or the test) written to /ctl."""
        words = text.split()
        if not words:
            raise OSError(errno.EINVAL, "empty command")
        verb, args = words[0], words[1:]
        if verb == "load" and len(args) == 1:
            return self.load(args[0])
        if verb == "probe" and len(args) == 1:
            if args[0].replace("-", "_") not in qat_trees.MODULES:
                raise OSError(errno.ENOENT, "module %s not found" % args[0])
            return None
        if verb == "first-time" and len(args) == 1:
            if args[0].replace("-", "_") in self.kernel.modules:
                raise OSError(errno.EEXIST, "module %s already loaded" % args[0])
            return self.control("probe " + args[0])
        if verb == "reboot" and not args:
            return self.boot()
        raise OSError(errno.EINVAL, "unknown command %r" % text)

    def write(self, path, value):
        address, attr = FakeKernel.target(path)
        entry = {"path": path, "value": value, "device": address, "attr": attr, "write": "%s=%s" % (attr, value)}
        try:
            self.kernel.write(path, value)
        except OSError as error:
            self.record("write", error=errno.errorcode.get(error.errno, str(error.errno)), **entry)
            raise
        self.record("write", **entry)


def serve(where):
    """Mount the fake on DIR/mnt and serve it until unmounted (the daemon)."""
    from mfusepy import FUSE, FuseOSError, Operations  # pylint: disable=import-outside-toplevel

    with open(where["options"]) as handle:
        options = json.load(handle)
    host = Host(where, options)
    ctl = "/ctl"

    def real(path):
        return where["backing"] + path

    # One request at a time (nothreads), so the fake kernel needs no lock;
    # mfusepy answers an OSError with its errno, as the kernel would.
    class KernelFs(Operations):
        use_ns = True

        def getattr(self, path, fh=None):
            if path == ctl:
                now = int(time.time() * 1e9)
                return {"st_mode": 0o100200, "st_nlink": 1, "st_size": 0, "st_uid": 0, "st_gid": 0,
                        "st_atime": now, "st_mtime": now, "st_ctime": now}
            st = os.lstat(real(path))
            attrs = dict((key, getattr(st, key)) for key in ("st_mode", "st_nlink", "st_size", "st_uid", "st_gid"))
            attrs.update(st_atime=st.st_atime_ns, st_mtime=st.st_mtime_ns, st_ctime=st.st_ctime_ns)
            return attrs

        def readdir(self, path, fh):
            names = os.listdir(real(path))
            return [".", ".."] + names + (["ctl"] if path == "/" else [])

        def readlink(self, path):
            return os.readlink(real(path))

        def access(self, path, amode):
            if path != ctl and not os.path.lexists(real(path)):
                raise OSError(errno.ENOENT, path)
            return 0

        def open(self, path, flags):
            if path != ctl and not os.path.isfile(real(path)):
                raise OSError(errno.ENOENT, path)
            return 0

        def read(self, path, size, offset, fh):
            if path == ctl:
                raise OSError(errno.EACCES, path)
            with open(real(path), "rb") as handle:
                handle.seek(offset)
                return handle.read(size)

        def truncate(self, path, length, fh=None):
            return 0  # 'echo x > attr' truncates first; sysfs ignores it

        def write(self, path, data, offset, fh):
            value = data.decode("ascii", "replace").strip()
            if path == ctl:
                host.control(value)
            elif path.startswith("/sys/"):
                host.write(path, value)
            else:
                raise OSError(errno.EACCES, path)
            return len(data)

        def statfs(self, path):
            st = os.statvfs(where["backing"])
            return dict((key, getattr(st, key)) for key in (
                "f_bsize", "f_frsize", "f_blocks", "f_bfree", "f_bavail", "f_files", "f_ffree", "f_namemax"))

        def create(self, path, mode, fi=None):
            raise FuseOSError(errno.EACCES)

        def mkdir(self, path, mode):
            raise FuseOSError(errno.EPERM)

        def unlink(self, path):
            raise FuseOSError(errno.EPERM)

        def rmdir(self, path):
            raise FuseOSError(errno.EPERM)

        def rename(self, old, new):
            raise FuseOSError(errno.EPERM)

        def symlink(self, target, source):
            raise FuseOSError(errno.EPERM)

    FUSE(KernelFs(), where["mnt"], foreground=True, nothreads=True, direct_io=True, attr_timeout=0,
         entry_timeout=0, negative_timeout=0, fsname="realtime-virt-fake-sysfs")


# -- start, stop -----------------------------------------------------------------------------------------
def _our_daemon(where):
    """The daemon's pid, if that process is still this tool serving this DIR."""
    try:
        with open(where["pid"]) as handle:
            pid = int(handle.read().strip())
        with open("/proc/%d/cmdline" % pid, "rb") as handle:
            argv = handle.read().split(b"\0")
    except (IOError, OSError, ValueError):
        return None
    if b"serve" in argv and where["top"].encode() in argv and any(a.endswith(b"fake_kernel_host.py") for a in argv):
        return pid
    return None


def _mounted_under(top):
    """Mount points at or below top, deepest first, read from the kernel's mount table.

    os.path.ismount cannot see a FUSE mount whose daemon died (its lstat
    fails with ENOTCONN), and such a mount is what a killed run leaves.
    """
    with open("/proc/self/mounts") as handle:
        points = {mount["path"] for mount in parse_mounts(handle.read())}
    return sorted((point for point in points if point == top or point.startswith(top + os.sep)), key=len, reverse=True)


def stop(where, keep=False):
    problems = []
    for point in _mounted_under(where["top"]):
        if subprocess.call(["umount", point]) != 0 and subprocess.call(["umount", "-l", point]) != 0:
            problems.append("could not unmount %s" % point)
    pid = _our_daemon(where)
    if pid:
        for sig, wait in ((None, 5), (signal.SIGTERM, 5), (signal.SIGKILL, 5)):
            if sig:
                os.kill(pid, sig)
            deadline = time.time() + wait
            while time.time() < deadline and _our_daemon(where):
                time.sleep(0.05)
            if not _our_daemon(where):
                break
        if _our_daemon(where):
            problems.append("daemon %d did not stop" % pid)
    if not keep and not problems and os.path.isdir(where["top"]):
        shutil.rmtree(where["top"])
    return problems


def start(where, shape, load, firmware_missing):
    stop(where)
    for key in ("mnt", "bin", "hostproc"):
        os.makedirs(where[key])
    builtin = os.path.join(where["lib"], "modules", RELEASE)
    os.makedirs(builtin)
    with open(os.path.join(builtin, "modules.builtin"), "w"):
        pass
    with open(where["options"], "w") as handle:
        json.dump({"shape": shape, "load": load, "firmware_missing": firmware_missing}, handle)
    modprobe = os.path.join(where["bin"], "modprobe")
    with open(modprobe, "w") as handle:
        handle.write("#!/bin/sh\n# the fake kernel's modprobe (fake_kernel_host.py)\nexec %s %s modprobe %s \"$@\"\n"
                     % (sys.executable, os.path.abspath(__file__), where["top"]))
    os.chmod(modprobe, 0o755)
    with open(where["log"], "w") as log:
        daemon = subprocess.Popen([sys.executable, os.path.abspath(__file__), "serve", where["top"]],
                                  stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    with open(where["pid"], "w") as handle:
        handle.write("%d\n" % daemon.pid)
    deadline = time.time() + 20
    while time.time() < deadline:
        if daemon.poll() is not None:
            break
        if os.path.ismount(where["mnt"]) and os.path.isdir(os.path.join(where["mnt"], "sys", "bus", "pci")):
            return
        time.sleep(0.05)
    with open(where["log"]) as handle:
        tail = handle.read()[-3000:]
    stop(where, keep=True)
    raise SystemExit("fake kernel: the FUSE daemon did not come up:\n" + tail)


# -- inside the namespace ------------------------------------------------------------------------------
def _mount(*args):
    subprocess.check_call(("mount",) + args)


def enter(where):
    """Make this (private) mount namespace see the fake: /sys, /proc/modules, /lib/modules."""
    _mount("-t", "overlay", "overlay", "-o", "lowerdir=%s:/usr/lib" % where["lib"], "/usr/lib")
    _mount("--bind", os.path.join(where["mnt"], "sys"), "/sys")
    _mount("--bind", "/proc", where["hostproc"])
    _mount("-t", "tmpfs", "-o", "mode=0555", "fake-proc", "/proc")
    for name in os.listdir(where["hostproc"]):
        if not name.isdigit() or name == "1":
            os.symlink(os.path.join(where["hostproc"], name), os.path.join("/proc", name))
    if os.path.lexists("/proc/modules"):
        os.unlink("/proc/modules")
    os.symlink(os.path.join(where["mnt"], "proc", "modules"), "/proc/modules")
    os.environ["PATH"] = where["bin"] + os.pathsep + os.environ.get("PATH", "")


def summarise(stdout, rc):
    """The ansible.posix.json callback's output -> changed and failed tasks, one entry per changed item."""
    try:
        data = json.loads(stdout[stdout.index("{"):])
    except ValueError:
        return {"rc": rc, "parsed": False, "tail": stdout.splitlines()[-40:]}
    changed, failed, warnings = [], [], []
    for play in data.get("plays", []):
        for task in play.get("tasks", []):
            name = task["task"]["name"]
            for result in task.get("hosts", {}).values():
                items = result.get("results") if isinstance(result.get("results"), list) else [result]
                failed_items = 0
                for item in items:
                    if item.get("changed"):
                        changed.append(name)
                    # ansible-core 2.21 leaves "failed" out of a loop's failed
                    # items and marks them with "exception" instead.
                    if item.get("failed") or item.get("failed_when_result") is True or \
                            (result.get("failed") and "exception" in item):
                        failed_items += 1
                        failed.append({"task": name, "msg": item.get("msg", "")})
                if result.get("failed") and not failed_items:
                    failed.append({"task": name, "msg": result.get("msg", "")})
                warnings.extend(result.get("warnings", []))
    stats = data.get("stats", {})
    return {"rc": rc, "parsed": True, "changed_tasks": changed, "failed": failed, "warnings": warnings,
            "stats": stats.get("localhost", stats)}


def inside(where, command, result):
    enter(where)
    if not result:
        os.execvp(command[0], command)
    env = dict(os.environ, ANSIBLE_STDOUT_CALLBACK="ansible.posix.json", ANSIBLE_NOCOLOR="1")
    proc = subprocess.run(command, stdout=subprocess.PIPE, universal_newlines=True, env=env, check=False)
    summary = summarise(proc.stdout, proc.returncode)
    summary["kernel"] = view(where)
    with open(result, "w") as handle:
        json.dump(summary, handle, indent=1, sort_keys=True)
    return proc.returncode


def run(where, command, result):
    if not os.path.ismount(where["mnt"]):
        raise SystemExit("fake kernel: %s is not mounted; run 'start' first" % where["mnt"])
    argv = ["unshare", "--mount", "--propagation", "private", "--", sys.executable, os.path.abspath(__file__),
            "_inside", where["top"]] + (["--result", os.path.abspath(result)] if result else []) + ["--"] + command
    return subprocess.call(argv)


# -- the fake modprobe -----------------------------------------------------------------------------------
def modprobe(where, argv):
    """What community.general.modprobe runs: 'modprobe [-n] [--first-time] NAME [params]'."""
    dry = first = remove = False
    names = []
    for arg in argv:
        if arg in ("-n", "--dry-run", "--show"):
            dry = True
        elif arg == "--first-time":
            first = True
        elif arg in ("-r", "--remove"):
            remove = True
        elif arg.startswith("-"):
            continue
        elif not names:
            names.append(arg)
    if not names:
        sys.stderr.write("modprobe: ERROR: missing module name.\n")
        return 1
    name = names[0]
    if remove:
        sys.stderr.write("modprobe: FATAL: the fake kernel does not unload modules\n")
        return 1
    command = ("first-time " if first else "probe " if dry else "load ") + name
    try:
        fd = os.open(os.path.join(where["mnt"], "ctl"), os.O_WRONLY)
        try:
            os.write(fd, command.encode())
        finally:
            os.close(fd)
    except OSError as error:
        if error.errno == errno.EEXIST:
            sys.stderr.write("modprobe: ERROR: could not insert '%s': Module already in kernel\n" % name)
        else:
            sys.stderr.write("modprobe: FATAL: Module %s not found in directory /lib/modules/%s\n" % (name, RELEASE))
        return 1
    return 0


# -- what the kernel shows -------------------------------------------------------------------------------
def _text(path):
    try:
        with open(path) as handle:
            return handle.read().strip()
    except (IOError, OSError):
        return None


def _link(path):
    return os.path.basename(os.readlink(path)) if os.path.islink(path) else None


def view(where):
    sys_dir = os.path.join(where["mnt"], "sys")
    devices = os.path.join(sys_dir, "bus", "pci", "devices")
    pfs = {}
    for address in sorted(os.listdir(devices)):
        base = os.path.join(devices, address)
        if _text(os.path.join(base, "sriov_totalvfs")) is None:
            continue
        virtfns = {}
        for name in os.listdir(base):
            if name.startswith("virtfn"):
                virtfns[int(name[6:])] = _link(os.path.join(base, name))
        vfs = []
        for index in sorted(virtfns):
            vf = os.path.join(devices, virtfns[index])
            vfs.append({"index": index, "pci_address": virtfns[index], "exists": os.path.isdir(vf),
                        "driver": _link(os.path.join(vf, "driver")),
                        "driver_override": _text(os.path.join(vf, "driver_override")),
                        "physfn": _link(os.path.join(vf, "physfn"))})
        qat = os.path.join(base, "qat")
        pfs[address] = {
            "driver": _link(os.path.join(base, "driver")),
            "sriov_numvfs": int(_text(os.path.join(base, "sriov_numvfs"))),
            "qat_group": os.path.isdir(qat),
            "state": _text(os.path.join(qat, "state")),
            "cfg_services": _text(os.path.join(qat, "cfg_services")),
            "vfs": vfs,
        }
    writes = []
    if os.path.exists(where["writes"]):
        with open(where["writes"]) as handle:
            writes = [json.loads(line) for line in handle if line.strip()]
    modules = [line.split()[0] for line in (_text(os.path.join(where["mnt"], "proc", "modules")) or "").splitlines()]
    return {
        "pfs": pfs,
        "drivers": sorted(os.listdir(os.path.join(sys_dir, "bus", "pci", "drivers"))),
        "modules": sorted(modules),
        "sys_module": sorted(os.listdir(os.path.join(sys_dir, "module"))) if os.path.isdir(
            os.path.join(sys_dir, "module")) else [],
        "writes": writes,
    }


def reboot(where, modules_load):
    """The host boots again: the start options, then what a modules-load.d file lists (systemd-modules-load)."""
    with open(os.path.join(where["mnt"], "ctl"), "w") as handle:
        handle.write("reboot")
    if modules_load:
        with open(modules_load) as handle:
            for line in handle:
                name = line.split("#")[0].strip()
                if name:
                    with open(os.path.join(where["mnt"], "ctl"), "w") as ctl:
                        ctl.write("load " + name)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    sub = parser.add_subparsers(dest="action", required=True)
    one = sub.add_parser("start")
    one.add_argument("dir")
    one.add_argument("--shape", default="two_socket_4xxx_bare", choices=sorted(qat_trees.SHAPES))
    one.add_argument("--load", action="append", default=[])
    one.add_argument("--firmware-missing", action="append", default=[])
    for name in ("stop", "view", "serve"):
        sub.add_parser(name).add_argument("dir")
    one = sub.add_parser("reboot")
    one.add_argument("dir")
    one.add_argument("--modules-load")
    for name in ("run", "_inside"):
        one = sub.add_parser(name)
        one.add_argument("dir")
        one.add_argument("--result")
    one = sub.add_parser("modprobe")
    one.add_argument("dir")
    argv = list(sys.argv[1:] if argv is None else argv)
    rest = []
    if argv[:1] == ["modprobe"]:
        argv, rest = argv[:2], argv[2:]
    elif "--" in argv:
        argv, rest = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    args = parser.parse_args(argv)
    where = paths(args.dir)
    if args.action == "start":
        start(where, args.shape, args.load, args.firmware_missing)
        print(json.dumps({"mounted": where["mnt"], "modprobe": os.path.join(where["bin"], "modprobe")}))
        return 0
    if args.action == "stop":
        problems = stop(where)
        if problems:
            print("fake kernel: " + "; ".join(problems))
        return 1 if problems else 0
    if args.action == "serve":
        serve(where)
        return 0
    if args.action == "view":
        print(json.dumps(view(where), indent=1, sort_keys=True))
        return 0
    if args.action == "reboot":
        reboot(where, args.modules_load)
        return 0
    if args.action == "modprobe":
        return modprobe(where, rest)
    if not rest:
        parser.error("give the command to run after --")
    if args.action == "run":
        return run(where, rest, args.result)
    return inside(where, rest, args.result)


if __name__ == "__main__":
    sys.exit(main())
