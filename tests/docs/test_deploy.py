"""docs/deploy.md's configuration reads as it says: the common file with each role's file
included loads without an error, names both collectors, the database and (on the
central managers) a high-availability group with the stabilization period the guide
states; the systemd unit's commands are fairpool's. Host names are replaced by loopback
addresses before anything would look them up."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from fairpool.cli import main
from fairpool.config import load_config
from fairpool.daemons.addresses import collector_hosts
from fairpool.daemons.context import database_url
from fairpool.daemons.had_config import had_settings
from fairpool.security.settings import Security
from securepool import certificate

GUIDE = Path(__file__).parents[2] / "docs" / "deploy.md"
pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl command")
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


def _blocks(language: str) -> list[str]:
    return [text for lang, text in BLOCK.findall(GUIDE.read_text()) if lang == language]


def _config_blocks() -> dict[str, str]:
    """The guide's configuration files, by the path their first line names."""
    files = {}
    for text in _blocks(""):
        first = text.splitlines()[0]
        if first.startswith("# /etc/fairpool/"):
            files[first.split()[1] + " " + " ".join(first.split()[2:])] = text
    return files


def _load(tmp_path: Path, role: str):
    files = _config_blocks()
    common = next(t for name, t in files.items() if name.startswith("/etc/fairpool/condor_config"))
    role_file = tmp_path / "role"
    role_file.write_text(files[role])
    text = common.replace("include : /etc/fairpool/role", f"include : {role_file}")
    # no lookups of example.org: the central managers become this machine and a
    # documentation address (RFC 5737)
    text = text.replace("cm1.example.org", "127.0.0.1").replace("cm2.example.org", "198.51.100.7")
    cert, key = certificate(tmp_path)  # the host's, and its own authority
    for name, made in (("host.crt", cert), ("host.key", key), ("ca.crt", cert)):
        text = text.replace(f"/etc/fairpool/{name}", str(made))
    path = tmp_path / "condor_config"
    path.write_text(text)
    return load_config(str(path), env={"_CONDOR_LOCAL_DIR": str(tmp_path / "local")})


def test_the_guide_has_a_common_file_and_three_roles() -> None:
    names = sorted(_config_blocks())
    assert len(names) == 4, names
    assert any("on cm1 and cm2" in n for n in names)
    assert any("on submit1" in n for n in names)
    assert any("on an execute host" in n for n in names)


@pytest.mark.parametrize("role", ["on cm1 and cm2", "on submit1", "on an execute host"])
def test_each_role_reads_without_an_error(tmp_path: Path, role: str) -> None:
    name = next(n for n in _config_blocks() if role in n)
    config = _load(tmp_path, name)
    hosts = collector_hosts(config)
    assert [(h.host, h.port) for h in hosts] == [("127.0.0.1", 9618), ("198.51.100.7", 9618)]
    assert all(h.scheme == "https" for h in hosts)  # the pool has a certificate
    daemons = [d.strip() for d in config.get_list("DAEMON_LIST")]
    security = Security(config)
    assert security.mode == "REQUIRED" and security.daemon_identity == "condor@example.org"
    if "SCHEDD" in daemons or "NEGOTIATOR" in daemons:
        url = database_url(config)
        assert url is not None and url.drivername == "postgresql+psycopg" and not url.password
    else:
        assert database_url(config) is None  # an execute host keeps no shared state
    if "HAD" in daemons:
        had = had_settings(config, 9618)
        assert had.me == "127.0.0.1:9618" and had.use_primary
        assert had.stabilization == 48  # the guide's 12 x 2 x 2 s


def test_the_systemd_unit_runs_fairpool_commands_that_exist() -> None:
    (unit,) = [t for t in _blocks("ini") if "[Service]" in t]
    commands = {}
    for line in unit.splitlines():
        key, _, value = line.partition("=")
        if key in ("ExecStart", "ExecReload"):
            commands[key] = shlex.split(value)
    assert set(commands) == {"ExecStart", "ExecReload"}
    for words in commands.values():
        assert words[0].endswith("/fairpool")
        args = words[1:]
        subcommand = [w for w in args if not w.startswith("-") and "/" not in w and ":" not in w]
        help_text = CliRunner().invoke(main, [*subcommand, "--help"]).output
        for option in (w for w in args if w.startswith("--")):
            assert option in help_text, (option, subcommand)
