"""Every real configuration file parses, and chosen knobs come out as the files mean them."""

from pathlib import Path

import pytest

from fairpool.classad import Expr
from fairpool.config import load_config, parse_config_text
from fairpool.errors import ConfigError
from fairpool.negotiator.configure import accountant_policy, negotiator_params

DATA = Path(__file__).parents[1] / "data" / "configs"
FILES = sorted(p for p in DATA.rglob("*") if p.is_file() and p.suffix not in (".md", ".sub"))
# Knobs these files use but never define; HTCondor expands them to nothing.
UNDEFINED_IN = {
    "condor_config.annotated": {"TILDE", "FLOCK_FROM", "FLOCK_TO"},
    "condor_config": {"UWCS_CLAIM_WORKLIFE"},
}


def read(path: Path, strict: bool = True):
    return parse_config_text(path.read_text(), str(path), env={}, strict=strict)


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_file_parses(path: Path) -> None:
    config = read(path, strict=False)
    assert config.names(), "every file sets knobs"
    undefined = {w.split("$(")[1].split(")")[0] for w in config.warnings}
    assert undefined == UNDEFINED_IN.get(path.name, set())
    for name in config.names():
        assert config.get(name) is not None
        source, line = config.where(name)
        assert source == str(path) and line and line >= 1


@pytest.mark.parametrize("name", sorted(UNDEFINED_IN))
def test_strict_reading_names_the_undefined_macro(name: str) -> None:
    path = next(p for p in FILES if p.name == name)
    with pytest.raises(ConfigError) as caught:
        read(path)
    assert caught.value.knob in UNDEFINED_IN[name]
    assert str(caught.value).startswith(f"{path}:")


OSPOOL = DATA / "ospool"


def test_ospool_priorities() -> None:
    path = OSPOOL / "production_95_priorties_osgflockgit.config"
    config = read(path)
    assert config.get("PRIORITY_HALFLIFE") == "21600"
    assert config.get_float("PRIORITY_HALFLIFE") == 21600.0
    assert config.where("PRIORITY_HALFLIFE") == (str(path), 7)
    assert accountant_policy(config).halflife == 21600.0
    assert accountant_policy(config).default_factor == 1000.0


def test_ospool_slot_constraint_is_intact() -> None:
    config = read(OSPOOL / "production_95_negotiator_osgflockgit.config")
    text = config.get("NEGOTIATOR_SLOT_CONSTRAINT")
    assert text.startswith("(Mips > 11800) && OSPool =?= True && versioncmp(")
    assert text.endswith(
        '(regexp("ARGO", GLIDEIN_ResourceName) =!= True) && GLIDEIN_ResourceName != "UNKNOWN"'
    )
    assert text.count("versioncmp(") == 5 and "\\" not in text and "  " not in text
    assert str(Expr(text)) == str(config.get_expr("NEGOTIATOR_SLOT_CONSTRAINT"))
    second = config.get("NEGOTIATOR_ALLOCATED.NEGOTIATOR_SLOT_CONSTRAINT")
    assert second.startswith("OSPool =!= True && ")


def test_ospool_negotiator_params() -> None:
    """negotiator_params works on a loaded Config (the Knobs protocol)."""
    files = [
        OSPOOL / "production_95_negotiator_osgflockgit.config",
        OSPOOL / "production_95_priorties_osgflockgit.config",
        OSPOOL / "production_95_concurrency_osgflockgit.config",
    ]
    config = load_config(files, env={})
    params = negotiator_params(config)
    assert params.consider_preemption is False
    assert str(params.preemption_requirements) == "false"
    assert params.slot_constraint == config.get_expr("NEGOTIATOR_SLOT_CONSTRAINT")
    assert params.groups.allow_oversubscription is False
    assert params.groups.use_weighted_demand is False
    assert params.groups.default_accept_surplus is True
    assert params.concurrency.explicit["amnhdb"] == 200
    assert params.concurrency.explicit["xenon_upload"] == 20


def test_ral_preemption_requirements_is_intact() -> None:
    path = DATA / "ral-tier1" / "condor_config"
    config = read(path, strict=False)
    assert config.get("PREEMPTION_REQUIREMENTS") == (
        "((SubmitterGroup =?= RemoteGroup) && ((time() - EnteredCurrentState) > (1 * (60 * 60)))"
        " && (RemoteUserPrio > TARGET.SubmitterUserPrio * 1.2)) || (MY.NiceUser == True)"
    )
    assert config.where("PREEMPTION_REQUIREMENTS") == (str(path), 99)
    assert config.get_expr("PREEMPTION_REQUIREMENTS") is not None
    assert config.get("PREEMPTION_RANK") == "(RemoteUserPrio * 1000000) - TARGET.ImageSize"


def test_hgq_test_configuration_gives_the_group_tree() -> None:
    config = read(DATA / "htcondor-tests" / "hgq_negfail.config")
    groups = negotiator_params(config).groups
    assert set(groups.names) == {"a", "b", "a.a", "a.b", "b.a", "b.b"}
    assert groups.round_robin_rate == 1.0  # from HFS_ROUND_ROBIN_RATE
    assert config.get("NUM_SLOTS_TYPE_1") == "40"  # use FEATURE : StaticSlots
