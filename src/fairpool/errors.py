"""The exceptions fairpool raises, all under one root.

    FairpoolError
    └── ClassAdSyntaxError      text that is not ClassAd syntax (with line, column and a caret)

Data problems inside expressions are never exceptions: they are the ClassAd values
UNDEFINED and ERROR. Exceptions are for input that cannot be read at all.
"""

from __future__ import annotations

__all__ = ["ClassAdSyntaxError", "FairpoolError"]


class FairpoolError(Exception):
    """Root of every error fairpool raises on purpose."""


class ClassAdSyntaxError(FairpoolError, ValueError):
    """A ClassAd expression or ad that does not parse.

    ``line`` and ``column`` are 1-based; ``source`` names the file (or is None for a
    string given directly). ``str()`` shows the offending line with a caret under the column.
    """

    def __init__(
        self,
        message: str,
        text: str = "",
        offset: int = 0,
        source: str | None = None,
        line_base: int = 0,
    ) -> None:
        self.message = message
        self.text = text
        self.offset = max(0, min(offset, len(text)))
        self.source = source
        self.line = text.count("\n", 0, self.offset) + 1 + line_base
        line_start = text.rfind("\n", 0, self.offset) + 1
        self.column = self.offset - line_start + 1
        line_end = text.find("\n", self.offset)
        self.source_line = text[line_start : line_end if line_end >= 0 else len(text)]
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.source}:" if self.source else ""
        caret = " " * (self.column - 1) + "^"
        return (
            f"{where}{self.line}:{self.column}: {self.message}\n"
            f"  {self.source_line}\n  {caret}"
        )

    def __reduce__(self):  # keep the exception picklable with all its fields
        return (type(self), (self.message, self.text, self.offset, self.source))
