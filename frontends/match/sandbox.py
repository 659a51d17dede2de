"""How a bot command is launched: a bubblewrap sandbox (or none), and resource limits.

A bot is arbitrary code run by the referee's user. Without a sandbox it can read the
match folder (every deal), signal the runner and its rivals, and leave daemons behind.
With ``bwrap`` it gets its own PID, IPC, UTS and network namespaces, a read-only view of
the system, of Python and of its own files (never a whole home or shared temporary
folder), and one small writable tmpfs (its HOME, TMPDIR and /tmp) that the runner
empties between games; the match folder, deal files, records and key are never mounted,
not even as a mount point that would name them. Limits (memory, processes, CPU, file
size, no core files) apply to every bot, sandboxed or not. spec/MATCH.md ("The
sandbox") is the threat model.
"""

from __future__ import annotations

import atexit
import functools
import glob
import importlib
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence

import attrs

from xactika.core.games import PLUGINS, plugin_names

BACKENDS = ("auto", "bwrap", "none")
UNSANDBOXED = "unsandboxed: bots can read the deals, the records and the signing key"
INSIDE_TMP = "/tmp"  # where the private writable directory appears inside the sandbox

# Read-only system paths a program needs to run; those missing here are skipped.
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "passwd",
       "group", "nsswitch.conf", "mime.types", "os-release")
# Temporary folders every program of the machine shares: never bound whole.
SHARED_TMP = ("/tmp", "/var/tmp", "/dev/shm")
SHM_MAX = 64 << 20  # the sandbox's /dev/shm: a tmpfs no address-space limit counts
# Environment a bot keeps inside the sandbox (the runner's may hold secrets).
KEEP_ENV = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONHASHSEED")


class SandboxError(Exception):
    """The sandbox asked for cannot be used here; the message says why."""


# --------------------------------------------------------------------------- limits


@attrs.frozen
class Limits:
    """Resource limits set in the bot's process before it runs (``None``: no limit).

    ``procs`` is RLIMIT_NPROC, which the kernel counts per *user*, not per process tree:
    the limit set is the user's processes at launch plus ``procs``, so a bot cannot fork
    without bound yet the user's other processes do not use up its share. The kernel
    never applies it to root; there, the sandbox's PID namespace is what ends a fork
    bomb (every process in it dies with the game).
    """

    memory: int | None = 4 << 30  # bytes of address space (RLIMIT_AS)
    procs: int | None = 256  # processes beyond the user's current count (RLIMIT_NPROC)
    cpu: int | None = 3600  # seconds of CPU time per process (RLIMIT_CPU)
    fsize: int | None = 256 << 20  # bytes in any one file it writes (RLIMIT_FSIZE)
    tmp: int | None = 256 << 20  # bytes of the sandbox's /tmp (a tmpfs; /dev/shm: 64M at most)

    def settings(self) -> list[tuple[int, int]]:
        """(resource, value) pairs, computed in the parent: the child only calls setrlimit."""
        out: list[tuple[int, int]] = [(resource.RLIMIT_CORE, 0)]
        if self.memory is not None:
            out.append((resource.RLIMIT_AS, self.memory))
        if self.cpu is not None:
            out.append((resource.RLIMIT_CPU, self.cpu))
        if self.fsize is not None:
            out.append((resource.RLIMIT_FSIZE, self.fsize))
        if self.procs is not None and os.getuid() != 0:
            out.append((resource.RLIMIT_NPROC, _user_processes() + self.procs))
        return out

    def preexec(self) -> Callable[[], None]:
        """A ``preexec_fn`` that only lowers limits (it never raises a hard limit)."""
        pairs = self.settings()
        setrlimit, getrlimit, infinity = resource.setrlimit, resource.getrlimit, \
            resource.RLIM_INFINITY

        cpu = resource.RLIMIT_CPU

        def apply() -> None:  # runs between fork and exec: no imports, no allocation
            for res, value in pairs:
                _, hard = getrlimit(res)
                if hard != infinity and hard < value:
                    value = hard
                # CPU: SIGXCPU at the soft limit says why; SIGKILL 5 s later if ignored
                top = value + 5 if res == cpu and (hard == infinity or hard >= value + 5) \
                    else value
                setrlimit(res, (value, top))

        return apply


def _user_processes() -> int:
    """How many processes (threads count for the kernel too) this user runs now."""
    uid = os.getuid()
    count = 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid == uid:
                count += len(os.listdir(f"/proc/{entry}/task"))
        except OSError:
            continue
    return count


_SIZE = re.compile(r"^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$")
_SCALE = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_size(text: str, what: str) -> int | None:
    """``512M``, ``4G``, ``1048576`` -> bytes; ``none`` -> no limit; ValueError otherwise."""
    t = text.strip().lower()
    if t in ("none", "off", "unlimited"):
        return None
    m = _SIZE.match(t)
    value = int(float(m.group(1)) * _SCALE[m.group(2)]) if m else 0
    if value <= 0:
        raise ValueError(f"bad {what} {text!r}: expected a size above zero such as 512M "
                         "or 4G, or none")
    return value


def parse_count(text: str, what: str, unit: str = "") -> int | None:
    """A whole number above zero (``unit`` may follow it, e.g. ``60s``), or ``none``."""
    t = text.strip().lower()
    if t in ("none", "off", "unlimited"):
        return None
    if unit:
        t = t.removesuffix(unit)
    value = int(t) if t.isdigit() else 0
    if value <= 0:
        raise ValueError(f"bad {what} {text!r}: expected a whole number above zero, "
                         "or none")
    return value


# --------------------------------------------------------------------------- bwrap


def bwrap_flags() -> list[str]:
    """The namespace and life-cycle flags: no signals to, or sight of, other processes.

    Run by root, bubblewrap keeps every capability in the sandbox unless told otherwise:
    with CAP_SYS_ADMIN a bot could unmount the tmpfs hiding the match folder, or remount
    its read-only binds (our own sources) writable. ``--cap-drop ALL`` is only for root
    (bubblewrap refuses it from others, who get no capabilities anyway). The user
    namespace (where the kernel allows one) gives the bot its own kernel keyrings: the
    user keyring is otherwise shared by every process of the user, and a bot stored the
    hands of one seating there and read them back in the next.
    """
    caps = ["--cap-drop", "ALL"] if os.getuid() == 0 else []
    return ["--unshare-user-try", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--unshare-net", "--die-with-parent", "--new-session",
            *caps]


@functools.cache
def bwrap_works() -> str | None:
    """None when bubblewrap runs here with our flags, else why not (probed once)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    argv = [exe, *bwrap_flags(), *_system_binds(), "--proc", "/proc", "--dev", "/dev",
            "--", "true"]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap cannot run: {exc}"
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bwrap does not work here: {why[-1] if why else f'exit {done.returncode}'}"
    return None


@functools.cache
def bwrap_sizes() -> bool:
    """Whether this bubblewrap takes ``--size`` (0.5 and later): bounded tmpfs."""
    exe = shutil.which("bwrap")
    if exe is None or bwrap_works() is not None:
        return False
    argv = [exe, *bwrap_flags(), *_system_binds(), "--size", "1048576", "--tmpfs", "/tmp",
            "--remount-ro", "/", "--", "true"]
    try:
        return subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=10, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _system_binds() -> list[str]:
    args: list[str] = []
    for path in SYSTEM:
        if os.path.islink(path):  # merged /usr: /bin -> usr/bin
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for name in ETC:
        path = f"/etc/{name}"
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


@functools.cache
def python_paths() -> tuple[str, ...]:
    """What a Python bot of ours needs to see: the interpreter, the venv, our packages.

    ``xactika bot random`` runs ``sys.executable -m xactika...``: the base prefix holds the
    interpreter and standard library, the venv its site-packages, and an editable install
    maps ``xactika.*`` to source folders outside both.
    """
    paths = {os.path.realpath(p) for p in
             (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    paths.add(os.path.dirname(os.path.realpath(sys.executable)))
    for name in ("xactika.core", "xactika.protocol", "xactika.frontends"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        paths.update(os.path.realpath(p) for p in getattr(module, "__path__", []))
    return tuple(sorted(paths))


def plugin_paths() -> tuple[list[str], list[str]]:
    """What a bot of ours needs to see of the plug-in games (``XACTIKA_PLUGINS``, loaded
    here): each one's module file (or package folder) alone, and the folders the import
    finds them from, for its ``PYTHONPATH``; the rest of those folders stays hidden."""
    binds: list[str] = []
    roots: list[str] = []
    for name in plugin_names():
        module = sys.modules.get(name.split(".")[0])
        if module is None:  # it failed to load: nothing to show
            continue
        for where in list(getattr(module, "__path__", [])) or [module.__file__ or ""]:
            if where:
                binds.append(os.path.realpath(where))
                roots.append(os.path.dirname(os.path.realpath(where)))
    return binds, list(dict.fromkeys(roots))


def _under(path: str, roots: Iterable[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _minimal(paths: Iterable[str]) -> list[str]:
    """The paths not inside another one of them, so no folder is bound twice."""
    out: list[str] = []
    for p in sorted(set(paths), key=len):
        if not _under(p, out) and not _under(p, SYSTEM):
            out.append(p)
    return out


def _named_file(word: str, argv: Sequence[str], cwd: str) -> tuple[str, str] | None:
    """(prefix, path) when a word of a command names a file: ``bot.py``, ``--weights=w.bin``."""
    if word.startswith("-") and "=" not in word:
        return None
    prefix, value = (word.partition("=")[0] + "=", word.partition("=")[2]) \
        if word.startswith("-") else ("", word)
    if not value:
        return None
    candidate = value if os.path.isabs(value) else os.path.join(cwd, value)
    if (os.sep in value or word == argv[0] or os.path.exists(candidate)) \
            and os.path.isfile(candidate):
        return prefix, candidate
    return None


def bot_files(argv: Sequence[str], cwd: str, shared: Sequence[str] | None = None) -> list[str]:
    """The folders of the files a command names (its program, its script): bound read-only."""
    shared = shared_folders() if shared is None else shared
    found = []
    for word in argv:
        named = _named_file(word, argv, cwd)
        if named is None:
            continue
        candidate = named[1]
        found.append(_folder_or_file(os.path.realpath(candidate), shared))
        if os.path.islink(candidate):  # the link itself lives in the folder named
            found.append(_folder_or_file(os.path.abspath(candidate), shared))
    return found


def absolute_argv(argv: Sequence[str], cwd: str) -> list[str]:
    """The command with each file it names made absolute.

    Inside the sandbox the bot starts in its private directory unless its ``dir=`` is
    bound, so ``python3 examples/bot.py`` must name its script by the path that is bound.
    """
    out = []
    for word in argv:
        named = _named_file(word, argv, cwd)
        if named is None or (word == argv[0] and os.sep not in word):
            out.append(word)  # not a file, or a program found on PATH
        else:
            out.append(named[0] + os.path.abspath(named[1]))
    return out


def shared_folders(base: str | None = None) -> list[str]:
    """Folders never bound whole: homes, shared temporary folders, the runner's own.

    A bot kept in one gets only its own files: ``python3 ~/bot.py`` must not show it
    ``~/.ssh``, nor ``python3 /tmp/bot.py`` every other program's temporary files and
    the private folders of the other seats (``base``: where the runner keeps those).
    """
    homes = [os.path.expanduser("~"), "/home", "/root"]
    try:
        homes += [e.path for e in os.scandir("/home") if e.is_dir()]
    except OSError:
        pass
    temps = [*SHARED_TMP, tempfile.gettempdir(), *([base] if base else [])]
    return sorted({os.path.realpath(p) for p in [*homes, *temps]})


def broad(folder: str, shared: Sequence[str]) -> bool:
    """True for ``/`` and any folder that is or holds one of ``shared``."""
    return folder == "/" or any(_under(s, [folder]) for s in shared)


def _folder_or_file(path: str, shared: Sequence[str] | None = None) -> str:
    """The folder of a bot's file, or the file alone when that folder is broad."""
    folder = os.path.dirname(path)
    return path if broad(folder, shared_folders() if shared is None else shared) else folder


def other_matches(folders: Iterable[str], depth: int = 2) -> list[str]:
    """Match folders (holding ``match.json``) within ``depth`` levels of the bot's folders.

    The bot's own folders are mounted whole, and an earlier match kept there (the default
    ``--out`` is a ``match-<time>`` folder in the current directory) would show its deals.
    """
    found = []
    for folder in folders:
        for level in range(depth + 1):
            pattern = os.path.join(glob.escape(folder), *(["*"] * level), "match.json")
            found += [os.path.dirname(p) for p in glob.glob(pattern)]
    return found


# --------------------------------------------------------------------------- launching


@attrs.define
class Launch:
    """One bot process's start: its argv, cwd, env, limits and private directory."""

    argv: list[str]
    cwd: str | None
    env: dict[str, str]
    preexec: Callable[[], None]
    private: str  # host path of the writable directory (unsandboxed: HOME and TMPDIR)
    sandboxed: bool
    token: str = ""  # names the sandbox in bubblewrap's command line, to find its /tmp

    def wipe(self) -> None:
        """Empty the private directory (between two games of a kept process): in the
        sandbox, its /tmp tmpfs, reached through the sandboxed process's root."""
        if not self.sandboxed:
            _empty(self.private)
            return
        for pid in _sandbox_pids(self.token):
            _empty(f"/proc/{pid}/root{INSIDE_TMP}")

    def close(self) -> None:
        """Remove the private directory (the process has gone)."""
        shutil.rmtree(self.private, ignore_errors=True)


def _sandbox_pids(token: str) -> list[int]:
    """The processes bubblewrap started for the sandbox whose command line holds
    ``token``: their ``/proc/PID/root`` is the sandbox's root."""
    marker = f"{TOKEN_ENV}\0{token}\0".encode()
    outer = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:  # bubblewrap is the runner's child; a bot that copies the marker is not
            with open(f"/proc/{entry}/stat", "rb") as fh:
                parent = int(fh.read().rpartition(b")")[2].split()[1])
            if parent != os.getpid():
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                if marker in fh.read():
                    outer.append(entry)
        except (OSError, ValueError, IndexError):
            continue
    found = []
    for pid in outer:
        try:
            with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as fh:
                found += [int(c) for c in fh.read().split()]
        except (OSError, ValueError):
            continue
    return found


PRIVATE_PREFIX = "xactika-bot-"
TOKEN_ENV = "XACTIKA_SANDBOX"


_parents: dict[tuple[str, int], str] = {}
_parents_lock = threading.Lock()


def _parent(base: str | None) -> str:
    """The runner's own folder (mode 0700) that holds its bots' private folders: made
    once per process and folder (again if something removed it), removed at exit, and
    named after the runner's pid for the sweep."""
    pid, where = os.getpid(), base or tempfile.gettempdir()
    with _parents_lock:
        folder = _parents.get((where, pid))
        if folder is not None and os.path.isdir(folder):
            return folder
        folder = tempfile.mkdtemp(prefix=f"{PRIVATE_PREFIX}{pid}-", dir=where)
        _parents[(where, pid)] = folder

    def remove() -> None:
        if os.getpid() == pid:  # not in a forked child that inherited the handler
            _make_writable(folder)
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)
    return folder


@functools.cache
def _sweep(base: str | None) -> None:
    """Remove private directories left by runners that died without cleaning up (SIGKILL):
    each is named after its runner's pid. Once per process and folder."""
    folder = base or tempfile.gettempdir()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        pid = entry.name[len(PRIVATE_PREFIX):].partition("-")[0]
        if not entry.name.startswith(PRIVATE_PREFIX) or not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
            continue  # its runner lives
        except ProcessLookupError:
            pass
        except OSError:
            continue  # another user's
        _make_writable(entry.path)
        shutil.rmtree(entry.path, ignore_errors=True)


def _empty(directory: str) -> None:
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                _make_writable(entry.path)
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
        except OSError:
            pass


def _make_writable(directory: str) -> None:
    """A bot may chmod its folders read-only: the wipe must still empty them."""
    for root, dirs, _ in os.walk(directory):
        for d in [root, *(os.path.join(root, x) for x in dirs)]:
            try:
                os.chmod(d, 0o700, follow_symlinks=False)
            except (OSError, NotImplementedError):
                pass


def _quiet_proc(parent: str) -> list[str]:
    """Binds that replace /proc/stat and /proc/loadavg with still ones: the real ones
    show, tick by tick, when the other seats compute. The CPU lines stay, so programs
    that count CPUs there still find them."""
    stat, load = os.path.join(parent, "stat"), os.path.join(parent, "loadavg")
    if not os.path.exists(stat):
        cpus = "".join(f"cpu{n} 0 0 0 0 0 0 0 0 0 0\n" for n in range(os.cpu_count() or 1))
        for path, text in ((load, "0.00 0.00 0.00 1/1 1\n"),  # stat last: both are there
                           (stat, f"cpu  0 0 0 0 0 0 0 0 0 0\n{cpus}intr 0\nctxt 0\n"
                                  "btime 0\nprocesses 1\nprocs_running 1\nprocs_blocked 0\n"
                                  "softirq 0\n")):
            fd, new = tempfile.mkstemp(dir=parent)  # launches in threads race here
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(text)
            os.chmod(new, 0o444)
            os.replace(new, path)
    return ["--ro-bind", stat, "/proc/stat", "--ro-bind", load, "/proc/loadavg"]


def _bind_around(folder: str, hidden: Sequence[str], top: bool = True) -> list[str]:
    """Binds that show ``folder`` without ``hidden`` (paths inside it), entry by entry.

    A hidden path is not there at all, not even as an empty mount: a mount's path shows
    in ``/proc/self/mountinfo``, and a bot would learn where the match folder or the
    key lies. Entries are bound as they are at launch; a symlink stays a symlink. The
    folders made on the way are a tmpfs remounted read-only, as a bound folder is.
    """
    args = ["--tmpfs", folder] if top else ["--dir", folder]
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        entries = []
    for entry in entries:
        path = entry.path
        inside = [h for h in hidden if h != path and _under(h, [path])]
        if path in hidden:
            continue
        if entry.is_symlink():
            args += ["--symlink", os.readlink(path), path]
        elif inside and entry.is_dir(follow_symlinks=False):
            args += _bind_around(path, inside, top=False)
        else:
            args += ["--ro-bind", path, path]
    return [*args, "--remount-ro", folder] if top else args


def _tmpfs(path: str, size: int | None) -> list[str]:
    """A tmpfs of ``size`` bytes; unbounded where bubblewrap is older than 0.5."""
    sized = size is not None and bwrap_sizes()
    return [*(["--size", str(size)] if sized else []), "--tmpfs", path]


@attrs.frozen
class Sandbox:
    """How bots are started: ``kind`` is ``bwrap`` or ``none``; ``hide`` lists paths
    (the match folder, deal files) that must stay invisible even under a bound folder."""

    kind: str = "none"
    limits: Limits = Limits()
    hide: tuple[str, ...] = ()
    base: str | None = None  # where private directories are made (default: the temp dir)

    @property
    def sandboxed(self) -> bool:
        return self.kind == "bwrap"

    def launch(self, argv: Sequence[str], cwd: str | os.PathLike[str] | None = None,
               extra_ro: Sequence[str] = ()) -> Launch:
        """The argv, cwd and env to start ``argv`` with; makes a private directory."""
        _sweep(self.base)
        parent = _parent(self.base)
        private = tempfile.mkdtemp(prefix="seat-", dir=parent)
        host_cwd = os.path.abspath(cwd) if cwd is not None else os.getcwd()
        if not self.sandboxed:
            env = dict(os.environ, HOME=private, TMPDIR=private)
            return Launch(list(argv), None if cwd is None else host_cwd, env,
                          self.limits.preexec(), private, False)
        shared = shared_folders(parent)
        # a dir= that is broad (a home, /tmp) is not bound: the files its cmd= names are
        mine = [*bot_files(argv, host_cwd, shared), *extra_ro,
                *([host_cwd] if cwd is not None else [])]
        mine = [real for real in map(os.path.realpath, mine)
                if os.path.exists(real) and not (os.path.isdir(real) and broad(real, shared))]
        plugins, plugin_roots = plugin_paths()
        ours = [p for p in [*python_paths(), *plugins]
                if os.path.exists(p) and not broad(p, shared)]
        binds = _minimal([*ours, *mine])
        tmp = self.limits.tmp
        shm = SHM_MAX if tmp is None else min(tmp, SHM_MAX)
        token = os.path.basename(private)
        args = [shutil.which("bwrap") or "bwrap", *bwrap_flags(), *_system_binds(),
                "--proc", "/proc", *_quiet_proc(parent),
                "--dev", "/dev", *_tmpfs("/dev/shm", shm), "--remount-ro", "/dev",
                *_tmpfs(INSIDE_TMP, tmp)]
        hidden = [os.path.realpath(p)
                  for p in [parent, *self.hide, *other_matches(_minimal(mine))]]
        for path in binds:
            inside = [h for h in hidden if h != path and _under(h, [path])]
            if path in hidden:
                continue
            args += _bind_around(path, inside) if inside else ["--ro-bind", path, path]
        inside_cwd = os.path.realpath(host_cwd)
        if not _under(inside_cwd, binds) or any(
                _under(inside_cwd, [os.path.realpath(h)]) for h in self.hide):
            inside_cwd = INSIDE_TMP
            argv = absolute_argv(argv, host_cwd)
        args += ["--remount-ro", "/", "--setenv", "HOME", INSIDE_TMP,
                 "--setenv", "TMPDIR", INSIDE_TMP, "--setenv", TOKEN_ENV, token,
                 "--chdir", inside_cwd, "--", *argv]
        env = {k: v for k, v in os.environ.items() if k in KEEP_ENV}
        if plugins:  # the plug-in games, found where their modules are bound
            env.update({PLUGINS: os.environ[PLUGINS], "PYTHONPATH": ":".join(plugin_roots)})
        return Launch(args, None, env, self.limits.preexec(), private, True, token)


def choose(kind: str, limits: Limits | None = None, hide: Sequence[str | os.PathLike[str]] = (),
           base: str | None = None) -> Sandbox:
    """The sandbox for ``auto``/``bwrap``/``none``; SandboxError if ``bwrap`` cannot run."""
    if kind not in BACKENDS:
        raise SandboxError(f"unknown sandbox {kind!r}: expected one of {', '.join(BACKENDS)}")
    limits = limits if limits is not None else Limits()
    hidden = tuple(os.path.abspath(h) for h in hide)
    if kind == "none":
        return Sandbox("none", limits, hidden, base)
    why = bwrap_works()
    if why is None:
        return Sandbox("bwrap", limits, hidden, base)
    if kind == "bwrap":
        raise SandboxError(f"--sandbox bwrap: {why}")
    return Sandbox("none", limits, hidden, base)


def limits_from(values: Mapping[str, str | None]) -> Limits:
    """Limits from the command line's texts (``None``: the default); ValueError if bad."""
    default = Limits()

    def pick(key: str, parse: Callable[[str], int | None]) -> int | None:
        text = values.get(key)
        return getattr(default, key) if text is None else parse(text)

    return Limits(
        memory=pick("memory", lambda t: parse_size(t, "--max-memory")),
        procs=pick("procs", lambda t: parse_count(t, "--max-procs")),
        cpu=pick("cpu", lambda t: parse_count(t, "--max-cpu", "s")),
        fsize=pick("fsize", lambda t: parse_size(t, "--max-file-size")),
        tmp=pick("tmp", lambda t: parse_size(t, "--max-tmp")),
    )


def add_arguments(parser: object) -> None:
    """``--sandbox`` and the limit flags, shared by ``match`` and ``play``."""
    add = parser.add_argument  # type: ignore[attr-defined]
    add("--sandbox", choices=BACKENDS, default="auto",
        help="how bots run: bwrap (bubblewrap: no network, no sight of other processes or "
        "of the match folder), none, or auto (bwrap when it works here; default)")
    add("--max-memory", default=None, metavar="SIZE",
        help="address space of each bot process (default 4G; 'none' for no limit)")
    add("--max-procs", default=None, metavar="N",
        help="processes a bot may add to its user's (default 256; never applied to root)")
    add("--max-cpu", default=None, metavar="SECONDS",
        help="CPU seconds of each bot process (default 3600)")
    add("--max-file-size", default=None, metavar="SIZE",
        help="size of any file a bot writes (default 256M)")
    add("--max-tmp", default=None, metavar="SIZE",
        help="size of the sandbox's /tmp, a tmpfs in memory (default 256M; /dev/shm is "
        "64M at most)")


def from_args(args: object, hide: Sequence[str | os.PathLike[str]] = ()) -> Sandbox:
    """The sandbox the parsed flags of :func:`add_arguments` ask for."""
    limits = limits_from({
        "memory": getattr(args, "max_memory", None), "procs": getattr(args, "max_procs", None),
        "cpu": getattr(args, "max_cpu", None), "fsize": getattr(args, "max_file_size", None),
        "tmp": getattr(args, "max_tmp", None),
    })
    return choose(getattr(args, "sandbox", "auto"), limits, hide)


def describe(box: Sandbox) -> str:
    """One line for a match header: what protects the deals, or the loud warning."""
    if box.sandboxed:
        return "sandbox: bwrap (no network, processes or match folder for bots)"
    return f"WARNING {UNSANDBOXED} (no sandbox: {bwrap_works() or '--sandbox none'})"
