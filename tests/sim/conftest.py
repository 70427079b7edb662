"""Scenario files for the simulator's tests, written into each test's tmp_path."""

from pathlib import Path

import pytest

MACHINE_AD = """
Cpus = 1
Memory = 2048
Disk = 100000000
Arch = "X86_64"
OpSys = "LINUX"
HasFileTransfer = true
"""


def machines(count: int, ad: str = MACHINE_AD, name: str = "node{n:03d}") -> str:
    """A [[machines]] table of ``count`` one-core machines."""
    return f'[[machines]]\ncount = {count}\nname = "{name}"\nad = """{ad}"""\n'


def jobs(owner: str, runtime: str, extra: str = "", submit: str = "") -> str:
    """A [[jobs]] table: one-job submissions of ``owner``."""
    return (
        f'[[jobs]]\nowner = "{owner}"\nruntime = {runtime}\n{extra}\n'
        f'submit = """\nexecutable = /bin/work\n{submit}queue\n"""\n'
    )


@pytest.fixture
def write_scenario(tmp_path):
    """write_scenario(text) -> the path of a scenario file holding ``text``."""

    def write(text: str, name: str = "scenario.toml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write


@pytest.fixture
def helpers():
    members = {"machines": staticmethod(machines), "jobs": staticmethod(jobs), "ad": MACHINE_AD}
    return type("Helpers", (), members)
