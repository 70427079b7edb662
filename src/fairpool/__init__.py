"""fairpool: HTCondor's fair-share matchmaking, in Python."""

__version__ = "0.1.0"

__all__ = ["__version__"]
