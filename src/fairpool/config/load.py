"""Finding and loading a configuration, as condor_config_val does; keeping the last good one.

``load_config(paths)`` reads the given files in order; with no paths it reads the file
named by ``CONDOR_CONFIG`` (``ONLY_ENV``: no file), else ``/etc/condor/condor_config``.
Then, as HTCondor does, the files in ``LOCAL_CONFIG_DIR`` (in name order, skipping those
matching ``LOCAL_CONFIG_DIR_EXCLUDE_REGEXP``), then each of ``LOCAL_CONFIG_FILE``
(missing ones are an error unless ``REQUIRE_LOCAL_CONFIG_FILE`` is false), and last the
environment's ``_CONDOR_<NAME>`` variables. Every knob that was set is expanded once, so
an undefined macro or a cycle fails the load rather than a later read.
"""

from __future__ import annotations

import getpass
import os
import platform
import socket
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .configuration import Config
from .reader import Entry, Reader

__all__ = ["ConfigHolder", "host_facts", "load_config", "parse_config_text"]

DEFAULT_CONFIG = "/etc/condor/condor_config"


def host_facts() -> dict[str, str]:
    """The macros HTCondor defines from the machine itself (``$(FULL_HOSTNAME)``...)."""
    full = socket.getfqdn()
    return {
        "DOLLAR": "$",
        "FULL_HOSTNAME": full,
        "HOSTNAME": full.split(".")[0],
        "DETECTED_CORES": str(os.cpu_count() or 1),
        "DETECTED_CPUS": str(os.cpu_count() or 1),
        "OPSYS": platform.system().upper(),
        "ARCH": platform.machine().upper(),
        "USERNAME": getpass.getuser(),
        "SUBSYSTEM": "TOOL",
        "IP_ADDRESS": _address(full),
    }


def _address(host: str) -> str:
    try:
        return socket.gethostbyname(host)
    except OSError:
        return "127.0.0.1"


def _main_files(env: Mapping[str, str]) -> list[str]:
    named = env.get("CONDOR_CONFIG")
    if named == "ONLY_ENV":
        return []
    if named:
        return [named]
    if Path(DEFAULT_CONFIG).exists():
        return [DEFAULT_CONFIG]
    raise ConfigError("no configuration: set CONDOR_CONFIG or pass --config FILE", "<environment>")


def _exclusion(config: Config) -> Any:
    """LOCAL_CONFIG_DIR_EXCLUDE_REGEXP compiled (RE2: no pattern can hang the reader)."""
    from ..classad.builtins.regex import compile_pattern

    knob = "LOCAL_CONFIG_DIR_EXCLUDE_REGEXP"
    pattern = compile_pattern(config.get(knob) or "^$")
    if pattern is None:
        source, line = config.where(knob)
        raise ConfigError(f"{knob}: expected a regular expression", source, line, knob)
    return pattern


def _read_locals(reader: Reader, config: Config) -> None:
    directory = config.get("LOCAL_CONFIG_DIR")
    if directory:
        exclude = _exclusion(config)
        for folder in config.get_list("LOCAL_CONFIG_DIR"):
            if Path(folder).is_dir():
                for item in sorted(Path(folder).iterdir()):
                    if item.is_file() and not exclude.search(item.name):
                        reader.read_file(item)
    required = config.get_bool("REQUIRE_LOCAL_CONFIG_FILE", True)
    for file in config.get_list("LOCAL_CONFIG_FILE"):
        if required and not Path(file).exists():
            source, line = config.where("LOCAL_CONFIG_FILE")
            raise ConfigError(
                f"LOCAL_CONFIG_FILE names {file}, which does not exist "
                "(REQUIRE_LOCAL_CONFIG_FILE = False skips missing ones)",
                source,
                line,
                "LOCAL_CONFIG_FILE",
            )
        reader.read_file(file, must_exist=False)


def _build(reader: Reader, reload: object, strict: bool) -> Config:
    config = Config(
        reader.entries,
        facts=reader.facts,
        env=reader.env,
        seed=reader.seed,
        strict=strict,
        files=tuple(reader.files),
        warnings=tuple(reader.warnings),
        reloader=reload,  # type: ignore[arg-type]
    )
    config.check()
    return config


def _from_environment(reader: Reader) -> None:
    for key, value in reader.env.items():
        if key.upper().startswith("_CONDOR_") and len(key) > len("_CONDOR_"):
            name = key[len("_CONDOR_") :]
            reader.entries[name.upper()] = Entry(name, value, "<environment>", None)


def load_config(
    paths: str | Path | Sequence[str | Path] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    seed: int = 0,
    strict: bool = True,
) -> Config:
    """Read a configuration (see the module docstring); ConfigError if it cannot be used.

    ``strict=False`` expands undefined macros to nothing, as HTCondor does, and lists
    them in ``Config.warnings`` instead of failing.
    """
    environment = dict(os.environ if env is None else env)
    if paths is None:
        files: list[str | Path] = list(_main_files(environment))
    elif isinstance(paths, (str, Path)):
        files = [paths]
    else:
        files = list(paths)
    reader = Reader(env=environment, facts=host_facts(), seed=seed, strict=strict)
    for file in files:
        reader.read_file(file)
    _read_locals(reader, _build(reader, None, False))
    _from_environment(reader)
    return _build(reader, lambda: load_config(paths, env=env, seed=seed, strict=strict), strict)


def parse_config_text(
    text: str,
    source: str = "<string>",
    *,
    env: Mapping[str, str] | None = None,
    seed: int = 0,
    strict: bool = True,
    earlier: Sequence[tuple[str, str]] = (),
) -> Config:
    """A configuration from text (no local files, no ``_CONDOR_`` variables);
    ``earlier``: (text, source) pairs read first, as files read before it would be."""
    environment = dict(os.environ if env is None else env)
    reader = Reader(env=environment, facts=host_facts(), seed=seed, strict=strict)
    for earlier_text, earlier_source in earlier:
        reader.read_text(earlier_text, earlier_source)
    reader.read_text(text, source)

    def again() -> Config:
        return parse_config_text(text, source, env=env, seed=seed, strict=strict, earlier=earlier)

    return _build(reader, again, strict)


class ConfigHolder:
    """The configuration in force; a reload that fails keeps the previous one."""

    def __init__(self, config: Config) -> None:
        self.current = config
        self.last_error: ConfigError | None = None

    def reload(self) -> bool:
        """Read the sources again. False (and ``last_error`` set) if the new one fails."""
        try:
            fresh = self.current.reload()
        except ConfigError as err:
            self.last_error = err
            return False
        self.current, self.last_error = fresh, None
        return True
