"""Entry point of the ``fairpool`` command.

Subcommands live in their own modules and are imported only when used, so that
``fairpool --help`` and each command start quickly. To add one, add a line to COMMANDS.
"""

from __future__ import annotations

import importlib
import io
import sys

import click

# name -> "module:attribute" of a click command
COMMANDS: dict[str, str] = {
    "adstash": "fairpool.cli.adstash:adstash",
    "classad": "fairpool.cli.classad:classad",
    "config_val": "fairpool.cli.config_val:config_val",
    "demo": "fairpool.cli.demo:demo",
    "drain": "fairpool.cli.drain:drain",
    "history": "fairpool.cli.history:history",
    "hold": "fairpool.cli.job_actions:hold",
    "negotiate": "fairpool.cli.negotiate:negotiate",
    "policy": "fairpool.cli.policy:policy",
    "pool": "fairpool.cli.pool:pool",
    "q": "fairpool.cli.q:q",
    "qedit": "fairpool.cli.qedit:qedit",
    "reconfig": "fairpool.cli.pool:reconfig",
    "release": "fairpool.cli.job_actions:release",
    "rm": "fairpool.cli.job_actions:rm",
    "simulate": "fairpool.cli.simulate:simulate",
    "stats": "fairpool.cli.stats:stats",
    "status": "fairpool.cli.status:status",
    "submit": "fairpool.cli.submit:submit",
    "token": "fairpool.cli.token:token",
    "userprio": "fairpool.cli.userprio:userprio",
}


class LazyGroup(click.Group):
    """A click group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attribute = target.split(":")
        return getattr(importlib.import_module(module), attribute)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fairpool")
def main() -> None:
    """fairpool: HTCondor's fair-share matchmaking, as a library, a dry-run tool and a simulator."""
    # Input bytes that are not UTF-8 are kept as they are (ClassAd strings are bytes):
    # they go out as the same bytes, not as an encoding error.
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="surrogateescape")
