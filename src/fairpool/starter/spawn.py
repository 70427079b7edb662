"""Exec'ing a job with the C library's ``posix_spawn``: what ``subprocess.Popen`` does for
the starter (a new session, the job's stdio, its working directory, every other
descriptor closed, SIGPIPE and SIGXFSZ back to their defaults), for less of the starter's
CPU.

Popen's own Python (its error pipe, its object, the environment encoded name by name) was
a fifth of the starter process's CPU per job. Python's ``os.posix_spawn`` cannot set the
working directory; glibc's ``posix_spawn_file_actions_addchdir_np`` (2.29) can, and
``posix_spawn_file_actions_addclosefrom_np`` (2.34) closes the descriptors above stdio,
as ``close_fds`` does. Both are called here through ctypes, which releases the
interpreter's lock while the new process execs, as Popen does. Where the C library lacks
either, ``USABLE`` is False and the starter uses Popen.

The errors are Popen's: ValueError for a NUL in a path, word or variable or an ``=`` in a
variable's name, OSError with the errno of the step that failed, naming the program, or the working
directory when that cannot be entered (looked at after the failure: glibc gives the errno
alone), or nothing when no process could be made.
"""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import stat
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["USABLE", "Spawned", "spawn"]

_SETSIGDEF, _SETSIGMASK, _SETSID = 0x04, 0x08, 0x80  # glibc's POSIX_SPAWN_* flags
_STRUCT = 1024  # bytes for posix_spawnattr_t or posix_spawn_file_actions_t (336 and 80)
_SIGSET = 128  # bytes of a sigset_t
_NO_PROCESS = (errno.EAGAIN, errno.ENOMEM)  # no process could be made, or no memory for it

_libc = ctypes.CDLL(None, use_errno=True)
_addchdir = getattr(_libc, "posix_spawn_file_actions_addchdir_np", None)
_addclosefrom = getattr(_libc, "posix_spawn_file_actions_addclosefrom_np", None)
USABLE = _addchdir is not None and _addclosefrom is not None


@dataclass
class Spawned:
    """A process ``spawn`` made: its pid, and its exit code once reaped (the two things
    the starter reads of a Popen)."""

    pid: int
    returncode: int | None = None


def _attributes() -> ctypes.Array:
    """New session, no signal blocked, SIGPIPE and SIGXFSZ at their defaults (Python
    ignores them, and an exec keeps what is ignored): made once, only read after."""
    attr = ctypes.create_string_buffer(_STRUCT)
    _libc.posix_spawnattr_init(attr)
    empty = ctypes.create_string_buffer(_SIGSET)
    _libc.sigemptyset(empty)
    defaults = ctypes.create_string_buffer(_SIGSET)
    _libc.sigemptyset(defaults)
    for number in (signal.SIGPIPE, signal.SIGXFSZ):
        _libc.sigaddset(defaults, int(number))
    _libc.posix_spawnattr_setsigmask(attr, empty)
    _libc.posix_spawnattr_setsigdefault(attr, defaults)
    _libc.posix_spawnattr_setflags(attr, ctypes.c_short(_SETSIGDEF | _SETSIGMASK | _SETSID))
    return attr


_ATTRIBUTES = _attributes() if USABLE else None


def spawn(
    executable: str,
    argv: Sequence[str],
    env: Mapping[str, str],
    cwd: str,
    stdio: Sequence[int],
) -> Spawned:
    """Start ``executable`` (an absolute path) with ``argv`` and exactly ``env``, in
    ``cwd``, its stdin, stdout and stderr the descriptors ``stdio``, in a session of its
    own; returns once it has exec'd."""
    path = _encoded(executable)
    args = [_encoded(word) for word in argv]
    variables = []
    for name, value in env.items():
        if "=" in name:
            raise ValueError("illegal environment variable name")
        variables.append(_encoded(f"{name}={value}"))
    pid = ctypes.c_int()
    failed = _libc.posix_spawn(
        ctypes.byref(pid),
        path,
        _actions(tuple(stdio), cwd),
        _ATTRIBUTES,
        (ctypes.c_char_p * (len(args) + 1))(*args, None),
        (ctypes.c_char_p * (len(variables) + 1))(*variables, None),
    )
    if failed in _NO_PROCESS:  # the machine's trouble, as Popen says it: no file named
        raise OSError(failed, os.strerror(failed))
    if failed:
        raise OSError(failed, os.strerror(failed), _failed_step(cwd, executable))
    return Spawned(pid.value)


def _actions(stdio: tuple[int, ...], cwd: str) -> ctypes.Array:
    """The file actions for these stdio descriptors and working directory: made once per
    thread and kept (a few per thread, for the jobs of a few working directories), since
    most jobs repeat both (their Iwd, /dev/null or the lowest free descriptors)."""
    kept: dict[tuple[tuple[int, ...], str], ctypes.Array] | None = getattr(_kept, "actions", None)
    if kept is None:
        kept = _kept.actions = {}
    actions = kept.get((stdio, cwd))
    if actions is not None:
        return actions
    if len(kept) >= _KEPT:  # this thread's own: no other thread is spawning with them
        for old in kept.values():
            _libc.posix_spawn_file_actions_destroy(old)
        kept.clear()
    directory = _encoded(cwd)
    actions = ctypes.create_string_buffer(_STRUCT)
    _libc.posix_spawn_file_actions_init(actions)
    for target, fd in enumerate(stdio):
        _libc.posix_spawn_file_actions_adddup2(actions, fd, target)
    _addchdir(actions, directory)
    _addclosefrom(actions, 3)
    kept[(stdio, cwd)] = actions
    return actions


_kept = threading.local()
_KEPT = 16  # file actions kept per thread


def _failed_step(cwd: str, executable: str) -> str:
    """What Popen names when a start fails: the working directory when it cannot be
    entered (now: the errno alone does not say which step failed), else the program."""
    try:
        enterable = stat.S_ISDIR(os.stat(cwd).st_mode) and os.access(
            cwd, os.X_OK, effective_ids=True
        )
    except OSError:
        enterable = False
    return executable if enterable else cwd


def _encoded(text: str) -> bytes:
    """As Popen encodes a word for exec; a NUL would cut it short in C."""
    if "\0" in text:
        raise ValueError("embedded null byte")
    return os.fsencode(text)
