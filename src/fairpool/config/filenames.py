"""The ``$F<letters>(path)`` macro functions: parts of a file name.

Letters, as HTCondor documents and its configuration reader behaves: ``p`` the directory
with its trailing slash, ``d`` the last directory name with its slash, ``n`` the name
without extension, ``x`` the extension with its dot, ``f`` the whole path (relative
paths stay relative), ``b`` drops a trailing slash from the result, ``q`` puts the result
in double quotes, ``u`` turns backslashes into slashes and ``w`` slashes into backslashes;
``a`` is accepted and changes nothing. Several of ``p``, ``d``, ``n`` and ``x`` join the
parts in path order (``$Fnx`` is the file name); none of them means the whole path.
"""

from __future__ import annotations

__all__ = ["filename_parts"]


def _split(path: str) -> tuple[str, str, str, str]:
    """Directory (with slash), last directory (with slash), stem and extension."""
    cut = max(path.rfind("/"), path.rfind("\\")) + 1
    directory, name = path[:cut], path[cut:]
    inner = directory[:-1]
    last = inner[max(inner.rfind("/"), inner.rfind("\\")) + 1 :] + directory[-1:]
    dot = name.rfind(".")
    stem, ext = (name[:dot], name[dot:]) if dot > 0 else (name, "")
    return directory, last, stem, ext


def filename_parts(letters: str, path: str) -> str:
    """``$F<letters>(path)``, with ``path`` already expanded."""
    letters = letters.lower()
    directory, last, stem, ext = _split(path)
    chosen = {"p": directory, "d": last, "n": stem, "x": ext}
    picked = [chosen[c] for c in "pdnx" if c in letters]
    if "p" in letters and "d" in letters:
        picked.pop(1)  # the directory already ends with its last name
    result = "".join(picked) if picked else path
    if "b" in letters and result[-1:] in ("/", "\\"):
        result = result[:-1]
    if "u" in letters:
        result = result.replace("\\", "/")
    if "w" in letters:
        result = result.replace("/", "\\")
    if "q" in letters:
        result = f'"{result}"'
    return result
