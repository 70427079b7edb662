"""Output files and directories of commands: checked before the work, written whole.

A command that will write ``--json OUT`` or ``--out DIR`` checks first that it can (the
parent directory exists and is writable, the path is not a directory, or not a file), so a
typo costs one error line, not a finished run. Files are written to a temporary file beside
the target and renamed over it (``write_file``); a result directory is built beside its
target and renamed into place (``result_directory``): a kill at any moment leaves the
previous complete output or the new complete one, never a mix or a truncated file.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import fail

__all__ = [
    "result_directory",
    "stage_file",
    "writable_directory",
    "writable_file",
    "write_file",
]

# Files a result directory of fairpool simulate holds: a directory holding one of them
# may be replaced by a new result; any other non-empty directory is left alone.
RESULT_MARKERS = ("summary.json", "compare.json")


def _writable_parent(path: Path, option: str) -> None:
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        fail(f"{option} {path}: no directory {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        fail(f"{option} {path}: cannot write in {parent}")


def writable_file(path: str | Path, option: str) -> None:
    """Fail unless ``path`` can be written as a file."""
    path = Path(path)
    if path.is_dir():
        fail(f"{option} {path}: is a directory, expected a file name")
    _writable_parent(path, option)
    if path.exists() and not os.access(path, os.W_OK):
        fail(f"{option} {path}: cannot write this file")


def writable_directory(path: str | Path, option: str) -> None:
    """Fail unless a result directory can be made (or replaced) at ``path``."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        fail(f"{option} {path}: is a file, expected a directory")
    if path.is_dir() and any(path.iterdir()) and not _is_result(path):
        fail(
            f"{option} {path}: a directory that holds other files than a fairpool result; "
            "give a new directory (it is created) or an earlier result to replace"
        )
    _writable_parent(path.absolute(), option)


def _is_result(path: Path) -> bool:
    return any((path / marker).is_file() for marker in RESULT_MARKERS)


def write_file(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` whole: a temporary file beside it, synced, renamed over it."""
    path = Path(path)
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed below, before the rename)
        "w", encoding="utf-8", dir=path.parent, prefix=f".{path.name}.", delete=False
    )
    try:
        with handle:
            handle.write(text)
            handle.flush()
            os.fchmod(handle.fileno(), _mode(0o666))  # as open() would have made it
            os.fsync(handle.fileno())
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def stage_file(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` and sync it, for a rename into place later (the commit
    that makes it visible is the caller's)."""
    path = Path(path)
    with path.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


@contextmanager
def result_directory(path: str | Path) -> Iterator[Path]:
    """A new directory beside ``path`` to write a result into; on success it replaces
    ``path`` (an earlier result goes away only once the new one is complete), on failure
    it is removed. Leftovers of a killed run are hidden (``.name.*``) and removed next time."""
    target = Path(path).absolute()
    for stale in sorted(target.parent.glob(f".{target.name}.partial-*")):
        if (stale / "old").is_dir() and not target.exists():
            os.replace(stale / "old", target)  # killed between the two renames below
        shutil.rmtree(stale, ignore_errors=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-", dir=target.parent))
    os.chmod(work, _mode(0o777))
    try:
        yield work
        _sync_tree(work)
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-", dir=target.parent))
            os.replace(target, old / "old")
            os.replace(work, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(work, target)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def _mode(base: int) -> int:
    """``base`` less the process's umask: the mode a plain open() or mkdir() gives."""
    mask = os.umask(0)
    os.umask(mask)
    return base & ~mask


def _sync_tree(root: Path) -> None:
    """Flush every file under ``root`` to disk before the rename makes it visible."""
    for item in sorted(root.rglob("*")):
        if item.is_file():
            with item.open("rb") as handle:
                os.fsync(handle.fileno())
