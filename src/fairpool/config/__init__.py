"""HTCondor's configuration language: files, macros, metaknobs and the parameter table.

    from fairpool.config import load_config
    config = load_config("/etc/condor/condor_config")   # or None: follow CONDOR_CONFIG
    config.get("PRIORITY_HALFLIFE")                      # "86400" (expanded text)
    config.where("PRIORITY_HALFLIFE")                    # ("<default>", None) or (file, line)
    config.get_float("PRIORITY_HALFLIFE")                # 86400.0

docs/config.md is the user guide.
"""

from .configuration import Config
from .load import ConfigHolder, load_config, parse_config_text
from .macros import expand
from .params import PARAMS, Param, lookup_param
from .scoped import Scoped

__all__ = [
    "PARAMS",
    "Config",
    "ConfigHolder",
    "Param",
    "Scoped",
    "expand",
    "load_config",
    "lookup_param",
    "parse_config_text",
]
