"""Entry point of the ``fairpool`` command: one click group, subcommands in their modules."""

import click


@click.group()
def main() -> None:
    """fairpool: HTCondor-style fair-share matchmaking."""
