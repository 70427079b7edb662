"""HTCondor's configuration language: macros, files, metaknobs and the parameter table."""

from .macros import expand

__all__ = ["expand"]
