"""The ``$F<letters>(path)`` macro functions: parts of a file name.

The parts of ``/a/b/c.txt``: ``p`` the directory ``/a/b/``, ``d`` its last name ``b/``,
``n`` the name without extension ``c``, ``x`` the extension ``.txt`` (a name starting with
a dot has none). Several letters give the span from the first chosen part that is not
empty (``d`` before ``p``) to the end of the last chosen one: ``$Fnx`` is ``c.txt``,
``$Fpx`` the whole path, ``$Fdnx`` ``b/c.txt``, and ``$Fpx(f.e)`` is ``.e``; no part letter
gives the whole path. ``b`` drops the trailing slash when neither ``n`` nor ``x`` is chosen,
``q`` puts the result in double quotes, ``u`` turns backslashes into slashes and ``w``
slashes into backslashes; ``f`` and ``a`` change nothing here. A path that starts with a
double quote loses it, and then its closing quote if it ends with one (``$Fnx("/a/b.c")``
is ``b.c``, ``$Fq("x")`` is ``"x"``); a quote elsewhere stays. Only ``/`` separates
directories, as in HTCondor on Unix. As HTCondor, ``$Fqp`` of a path with no directory
gives a single ``"``. Left different, all around quoting an empty part: HTCondor's ``$Fqn``
of ``d/`` and ``$Fqd`` of an empty path are a single ``"``, and its ``$Fqn(.hidden)`` is
``""``; fairpool gives ``""``, ``""`` and ``".hidden"``.
"""

from __future__ import annotations

__all__ = ["filename_parts"]


def _bounds(path: str) -> tuple[int, int, int]:
    """Where the last directory name, the file name and the extension start."""
    name_start = path.rfind("/") + 1
    last_dir = path.rfind("/", 0, name_start - 1) + 1 if name_start else 0
    dot = path.rfind(".", name_start)
    ext_start = dot if dot > name_start else len(path)
    return last_dir, name_start, ext_start


def filename_parts(letters: str, path: str) -> str:
    """``$F<letters>(path)``, with ``path`` already expanded."""
    letters = letters.lower()
    if path.startswith('"'):  # a quoted path: HTCondor drops the quotes first
        path = path[1:-1] if path.endswith('"') and len(path) > 1 else path[1:]
    last_dir, name_start, ext_start = _bounds(path)
    spans = {
        "d": (last_dir, name_start),
        "p": (0, name_start),
        "n": (name_start, ext_start),
        "x": (ext_start, len(path)),
    }
    chosen = [c for c in "dpnx" if c in letters]
    if not chosen:
        result = path
    else:
        # The span starts at the first chosen part that is not empty.
        start = next((spans[c][0] for c in chosen if spans[c][0] < spans[c][1]), len(path))
        end = spans[chosen[-1] if chosen[-1] != "p" or "d" not in chosen else "d"][1]
        result = path[start:end]
        if "b" in letters and not {"n", "x"} & set(chosen) and result.endswith("/"):
            result = result[:-1]
        if "q" in letters and not result and "p" in chosen:
            return '"'  # how HTCondor quotes an empty directory
    if "u" in letters:
        result = result.replace("\\", "/")
    if "w" in letters:
        result = result.replace("/", "\\")
    if "q" in letters:
        result = f'"{result}"'
    return result
