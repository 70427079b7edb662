"""The first moments of the job's own process: become the job's user, then exec the job or
copy its files.

Why a separate program: a root starter must open the job's stdio, enter its Iwd and read and
write its transferred files with the owner's permissions, not root's (else a job could name
``/etc/shadow`` as its input). Switching identity inside the daemon would switch every one of
its threads; a fresh process can switch for good. The starter runs this file by path with
``python -I -S`` (started as root, so the interpreter need not be readable by the job's
user), sends a JSON spec on stdin, and reads the outcome:

* ``exec STATUS_FD``: working directory entered, stdio opened, then ``execve``. A failure is
  written as JSON to the status descriptor (close-on-exec, so a successful exec leaves it
  empty), naming the step (``user``, ``cwd``, ``stdin``, ``stdout``, ``stderr``, ``exec``,
  or ``shim`` for a spec it could not read) and the errno.
* ``copy``: files and directories copied in order, stopping at the first failure, which is
  printed as JSON (``null`` when all went well). A starter that needs no user switch calls
  ``copy_all`` in its own process instead (the same code, so the same holds).

Standard library only, so that nothing is imported from places the job's user can write.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import sys

_WRITE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC


def main() -> None:
    """``shim.py exec STATUS_FD`` or ``shim.py copy``, the spec on stdin."""
    if sys.argv[1:2] == ["exec"]:
        status = int(sys.argv[2])
        try:
            _exec(json.loads(sys.stdin.buffer.read()), status)
        except Exception as error:  # a broken spec: still say so, never exec half-prepared
            _report(status, "shim", 0, repr(error))
    else:
        failure = copy_all(json.loads(sys.stdin.buffer.read()))
        sys.stdout.write(json.dumps(failure))


def _report(status: int, step: str, number: int, path: str | None) -> None:
    os.write(status, json.dumps({"step": step, "errno": number, "path": path}).encode())
    os._exit(127)


def _become(user: dict | None) -> None:
    if user is not None:
        os.setgroups(user["groups"])
        os.setgid(user["gid"])
        os.setuid(user["uid"])


def _exec(spec: dict, status: int) -> None:
    step, path = "user", None
    try:
        _become(spec["user"])
        step, path = "cwd", spec["cwd"]
        os.chdir(path)
        step, path = "stdin", spec["stdin"]
        stdin = os.open(path, os.O_RDONLY)
        step, path = "stdout", spec["stdout"]
        stdout = os.open(path, _WRITE, 0o644)
        step, path = "stderr", spec["stderr"]
        stderr = os.dup(stdout) if path == spec["stdout"] else os.open(path, _WRITE, 0o644)
        for target, fd in enumerate((stdin, stdout, stderr)):
            os.dup2(fd, target)
        os.set_inheritable(status, False)
        for number in (signal.SIGPIPE, signal.SIGXFSZ):  # ignored by Python at start-up: an
            signal.signal(number, signal.SIG_DFL)  # exec would pass that on to the job
        step, path = "exec", spec["executable"]
        os.execve(path, spec["argv"], spec["env"])
    except OSError as error:
        _report(status, step, error.errno or 0, path)


def copy_all(spec: dict) -> dict | None:
    """The ``copy`` spec carried out as its user (None: as we are); the first failure."""
    try:
        _become(spec["user"])
    except OSError as error:
        path = f"(as uid {spec['user']['uid']})"
        return {"errno": error.errno or 0, "path": path, "source": None, "reading": False}
    for copy in spec["copies"]:
        try:
            _copy(copy)
        except OSError as error:
            path = error.filename if error.filename is not None else copy["source"]
            reading = path == copy["source"] or str(path).startswith(copy["source"] + "/")
            return {
                "errno": error.errno or 0,
                "path": path,
                "source": copy["source"],
                "reading": reading,
            }
    return None


def _copy(copy: dict) -> None:
    """One named file or directory; what it names is followed if it is a link (the user
    named it), but links inside a directory are copied as links, never followed out of it."""
    source, target = copy["source"], copy["target"]
    if copy["make_parents"]:
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    if not stat.S_ISDIR(os.stat(source).st_mode):
        shutil.copy2(source, target)
        if copy["executable"]:
            os.chmod(target, os.stat(target).st_mode | stat.S_IXUSR)
    elif copy["contents"]:
        _copy_entries(source, target)
    else:
        os.makedirs(target, exist_ok=True)
        _copy_entries(source, target)


def _copy_entries(source: str, target: str) -> None:
    for entry in os.scandir(source):
        path = os.path.join(target, entry.name)
        if entry.is_symlink():
            if os.path.lexists(path):
                os.unlink(path)
            os.symlink(os.readlink(entry.path), path)
        elif entry.is_dir():
            os.makedirs(path, exist_ok=True)
            _copy_entries(entry.path, path)
        else:
            shutil.copy2(entry.path, path)


if __name__ == "__main__":
    main()
