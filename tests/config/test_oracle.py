"""fairpool's configuration reader against HTCondor's own (htcondor2), knob by knob.

For real files, metaknob templates and generated configurations, every knob the
configuration sets must expand to the text htcondor2 gives (HTCondor types some knobs:
those are compared through fairpool's typed accessors). Knobs whose values come from the
host (names, addresses, core counts) or from ``$RANDOM_INTEGER`` are left out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fairpool.config import Config, load_config, parse_config_text
from fairpool.config.filenames import filename_parts
from fairpool.config.metaknobs import TEMPLATES

from .config_oracle import AVAILABLE, ConfigOracle

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="htcondor2 is not installed")

DATA = Path(__file__).parents[1] / "data" / "configs"
HOST_DEPENDENT = ("HOSTNAME", "IP_ADDRESS", "DETECTED_", "TILDE", "LOCAL_DIR", "$RANDOM")
# Table defaults fairpool chooses on purpose (the seed's policy, spec/README.md decisions).
OUR_DEFAULTS = {
    *("START", "SUSPEND", "CONTINUE", "PREEMPT", "KILL", "WANT_SUSPEND", "WANT_VACATE"),
    *("IS_OWNER", "PERIODIC_CHECKPOINT", "CPUBUSY", "CLAIM_WORKLIFE", "MATCH_TIMEOUT"),
    *("NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION", "NEGOTIATOR_CROSS_SLOT_PRIOS", "UID_DOMAIN"),
    *("CONCURRENCY_LIMIT_DEFAULT", "MACHINEMAXVACATETIME", "UNCLAIMED_CURRENT_RANK"),
}


@pytest.fixture(scope="module")
def oracle():
    worker = ConfigOracle()
    yield worker
    worker.close()


def _comparable(config: Config, name: str) -> bool:
    """Whether HTCondor must agree: no host facts, randomness or our own defaults reached."""
    if name.upper() in OUR_DEFAULTS and not config.get(name):
        return False  # read as the default, which is ours
    raw = config.raw(name) or ""
    seen = {name.upper()}
    pending = [raw]
    while pending:  # the knob and every macro it reaches
        text = pending.pop()
        if any(marker in text.upper() for marker in HOST_DEPENDENT):
            return False
        for part in text.split("$(")[1:]:
            ref = part.split(")")[0].split(":")[0].upper()
            if ref in OUR_DEFAULTS and not config.is_set(ref):
                return False
            if ref not in seen:
                seen.add(ref)
                pending.append(config.raw(ref) or "")
    return not any(marker in name.upper() for marker in HOST_DEPENDENT)


def _agrees(config: Config, name: str, theirs: Any) -> bool:
    ours = config.get(name)
    if isinstance(theirs, bool):
        return config.get_bool(name) is theirs
    if isinstance(theirs, (int, float)):
        return config.get_float(name) == pytest.approx(float(theirs))
    if theirs is None:
        return not ours
    if theirs in ("True", "False"):  # htcondor2 spells boolean literals its own way
        return (ours or "").lower() == theirs.lower()
    return ours == theirs.strip()


def _differences(oracle: ConfigOracle, path: Path, config: Config) -> dict[str, tuple]:
    names = [n for n in config.names() if _comparable(config, n)]
    theirs = oracle.read(path, names)
    return {n: (config.get(n), theirs[n]) for n in names if not _agrees(config, n, theirs[n])}


REAL = sorted(
    p
    for p in DATA.rglob("*")
    if p.is_file() and p.suffix not in (".md", ".sub") and "generic" not in p.name
)


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_files_expand_as_htcondor(oracle, tmp_path: Path, path: Path) -> None:
    # Read alone: the local files these name are not here (HTCondor would stop).
    alone = tmp_path / path.name
    alone.write_text(path.read_text() + "\nLOCAL_CONFIG_FILE =\nLOCAL_CONFIG_DIR =\n")
    config = parse_config_text(alone.read_text(), str(alone), env={}, strict=False)
    assert _differences(oracle, alone, config) == {}


TEMPLATE_USES = [
    f"{category} : {name}" + ("(/etc/condor/groups.map)" if "ACCOUNTING" in name else "")
    for category, name in TEMPLATES
    if name != "SEED_DEFAULT"
]
# the second argument of AssignAccountingGroup (check_request; issue 14)
TEMPLATE_USES += [
    f"FEATURE : AssignAccountingGroup(/etc/condor/groups.map, {check})"
    for check in ("false", "true")
]


@pytest.mark.parametrize("use", TEMPLATE_USES)
def test_metaknobs_expand_as_htcondor(oracle, tmp_path: Path, use: str) -> None:
    path = tmp_path / "use.config"
    path.write_text(f"use {use}\n")
    config = load_config(path, env={})
    assert config.names(), "the template sets knobs"
    assert _differences(oracle, path, config) == {}


PATHS = ["", "f", "f.e", "/d/f.e", "d/", "/a/b/", "a\\b\\c.x", "/a/b/c", "/x/.y", "a.b/c.d.e"]
PATHS += ['"/a/b.c"', '"K4"', '"a b', 'a"b"', '"K4"  x']  # quoted paths lose their quotes
LETTERS = ["p", "d", "n", "x", "f", "q", "b", "pd", "nx", "dn", "px", "pn", "db", "pb", "dx"]
LETTERS += ["pdnx", "u", "w", "a", "qp", "qnx", "qdb", "dnxb"]


def quirk(path: str, letters: str) -> bool:
    """Documented difference (filenames.py): how HTCondor quotes an empty part."""
    return "q" in letters and filename_parts(letters.replace("q", ""), path) == ""


def test_file_name_functions_as_htcondor(oracle, tmp_path: Path) -> None:
    lines, cases = [], {}
    for i, path in enumerate(PATHS):
        lines.append(f"P{i} = {path}")
        for letters in LETTERS:
            if not quirk(path, letters):
                cases[f"R{i}_{letters}"] = f"[$F{letters}(P{i})]"
    lines += [f"{name} = {text}" for name, text in cases.items()]
    path = tmp_path / "f.config"
    path.write_text("\n".join(lines) + "\n")
    config = load_config(path, env={})
    theirs = oracle.read(path, list(cases))
    assert {n: config.get(n) for n in cases if config.get(n) != theirs[n]} == {}


NUMBERS = ["1", "2.7", "-2.7", "60*60", "true", "1e3", "7/2", "7.0/2", "0.1", "1e20", "-0"]
NUMBERS += ["+5", ".5", "5.", "3"]
FORMS = ["$INT(N)", "$INT(N,%05d)", "$INT(N,%x)", "$INT(N,%g)", "$INT(N,%5.1f)", "$REAL(N)"]
FORMS += ["$REAL(N,%.3f)", "$REAL(N,%g)", "$REAL(N,%.2g)", "$REAL(N,%e)", "$REAL(N,%.0f)"]
FORMS += ["$STRING(N)", "$CHOICE(1,a,b,c)", "$SUBSTR(N,1,2)", "$ENV(NO_SUCH_VARIABLE_X)"]


def test_number_and_string_functions_as_htcondor(oracle, tmp_path: Path) -> None:
    lines, cases = [], []
    for i, number in enumerate(NUMBERS):
        lines.append(f"N{i} = {number}")
        for j, form in enumerate(FORMS):
            cases.append(f"R{i}_{j}")
            lines.append(f"R{i}_{j} = [{form.replace('N', f'N{i}', 1)}]")
    path = tmp_path / "n.config"
    path.write_text("\n".join(lines) + "\n")
    config = load_config(path, env={})
    theirs = oracle.read(path, cases)
    assert {n: (config.get(n), theirs[n]) for n in cases if config.get(n) != theirs[n]} == {}


NAMES = ["K0", "K1", "K2", "K3", "K4"]
FUNCTIONS = ["$STRING(X)", "$SUBSTR(X,1)", "$SUBSTR(X,-2,1)", "$Fnx(X)", "$Fpd(X)", "$Fq(X)"]


@st.composite
def configurations(draw) -> str:
    """Assignments among K0..K4 whose references cannot cycle (Ki reads only Kj, j > i)."""
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        i = draw(st.integers(0, len(NAMES) - 1))
        parts = []
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(
                st.sampled_from(["word", "ref", "default", "self", "undefined", "function"])
            )
            later = NAMES[draw(st.integers(i, len(NAMES) - 1))] if i < len(NAMES) - 1 else None
            if kind == "word" or (kind in ("ref", "default") and later is None):
                parts.append(draw(st.sampled_from(["a", "b c", "1", "(x)", "y:z", "#", "/d/f.e"])))
            elif kind == "ref" and later != NAMES[i]:
                parts.append(f"$({later})")
            elif kind == "default" and later != NAMES[i]:
                parts.append(f"$({later}:d{draw(st.integers(0, 9))})")
            elif kind == "function" and later is not None and later != NAMES[i]:
                form = draw(st.sampled_from(FUNCTIONS))
                parts.append(form.replace("X", later))
            elif kind == "self":
                parts.append(f"$({NAMES[i]})")
            else:
                parts.append(f"$(UNSET_{draw(st.integers(0, 2))}:u)")
        form = draw(st.sampled_from(["plain", "block", "continued", "if"]))
        value = " ".join(parts)
        if form == "block":
            lines += [f"{NAMES[i]} @=end", value, "@end"]
        elif form == "continued" and len(parts) > 1:
            lines += [f"{NAMES[i]} = {parts[0]} \\", "  " + " ".join(parts[1:])]
        elif form == "if":
            test = f"defined {NAMES[draw(st.integers(0, len(NAMES) - 1))]}"
            lines += [f"if {test}", f"{NAMES[i]} = {value}", "else", f"{NAMES[i]} = no", "endif"]
        else:
            lines.append(f"{NAMES[i]} = {value}")
    return "\n".join(lines) + "\n"


STRING_VALUES = [
    '"a b"',
    "1+2",
    '"a" + "b"',
    '  "x"  ',
    '"unterminated',
    "true",
    "abc",
    '"q\\"x"',
    '"a" "b"',
    '"K2" x',
    '"3"',
    "$Fq(K9)",
    "$Fq(/d/f.e)",
]


@pytest.mark.parametrize("value", STRING_VALUES)
def test_string_function_reads_a_string_literal(oracle, tmp_path, value) -> None:
    """$STRING(X) gives the text of a string literal (``"a b"`` -> ``a b``), else X's text."""
    path = tmp_path / "s.config"
    path.write_text(f"K1 = {value}\nK0 = $STRING(K1)\nK2 = x $(K2) $STRING(K1)\n")
    config = load_config(path, env={})
    assert _differences(oracle, path, config) == {}


@given(text=configurations())
@example(text="K0 = \nK1 = $Fq(K2)\nK0 = \nK0 = $(K0) $STRING(K1)\n")
@example(text="K3 = $Fq(K4) $(K3) $(K3)\nK0 = \nK0 = $Fnx(K3)\n")
def test_generated_configurations_expand_as_htcondor(oracle, tmp_path_factory, text) -> None:
    path = tmp_path_factory.mktemp("gen") / "gen.config"
    path.write_text(text)
    config = parse_config_text(text, str(path), env={}, strict=False)
    assert _differences(oracle, path, config) == {}


# Table defaults that differ from HTCondor's on purpose (docs/compat.md), besides
# OUR_DEFAULTS: paths under fairpool's LOCAL_DIR, the domains that follow UID_DOMAIN, the
# seed's RunBenchmarks, HTCondor 25's catalog space in MODIFY_REQUEST_EXPR_REQUESTDISK,
# GANGLIAD's $(ETC) (unset in fairpool); REQUIRE_LOCAL_CONFIG_FILE is set by the worker.
# ADSTASH's $(LOG) paths and $(FULL_HOSTNAME) follow this machine (the same text as
# HTCondor's table). A personal pool listens on 127.0.0.1 only (NETWORK_INTERFACE,
# BIND_ALL_INTERFACES; HTCondor's * and True). The token signing keys and daemon tokens
# are under LOCAL_DIR, and the HTTP API serves TLS only when a certificate is named
# (docs/security.md).
DELIBERATE = {
    *("SPOOL", "LOG", "ACCOUNTANT_DATABASE_FILE", "DEFRAG_LOG", "POOL_HISTORY_DIR"),
    *("NETWORK_INTERFACE", "BIND_ALL_INTERFACES"),
    *("ACCOUNTING_DOMAIN", "FILESYSTEM_DOMAIN", "TRUST_DOMAIN", "RUNBENCHMARKS"),
    "REQUIRE_LOCAL_CONFIG_FILE",
    *("MODIFY_REQUEST_EXPR_REQUESTDISK", "GANGLIAD_METRICS_CONFIG_DIR"),
    *("ADSTASH_CHECKPOINT_FILE", "ADSTASH_JSON_DIR", "ADSTASH_SE_HOST"),
    *("SEC_PASSWORD_DIRECTORY", "SEC_TOKEN_POOL_SIGNING_KEY_FILE", "SEC_TOKEN_SYSTEM_DIRECTORY"),
    *("AUTH_SSL_SERVER_CERTFILE", "AUTH_SSL_SERVER_KEYFILE"),
}


def test_every_table_default_is_htcondors(oracle, tmp_path: Path) -> None:
    """Issue 14: each knob of fairpool's parameter table has the default HTCondor's own
    table gives it (htcondor2 25.14.1 reading an empty configuration: the wheel carries
    HTCondor's parameter table, e.g. MATCH_TIMEOUT 120, CLAIM_WORKLIFE 1200,
    CONSUMPTION_CPUS quantize(target.RequestCpus,{1})), except the deliberate ones.
    Knobs HTCondor's table leaves unset are fairpool's own and not compared."""
    from fairpool.config.params import PARAMS

    path = tmp_path / "empty.config"
    path.write_text("\n")
    config = load_config(path, env={})
    names = [p.name for p in PARAMS.values()]
    theirs = oracle.read(path, names)
    assert theirs["MATCH_TIMEOUT"] == 120  # the wheel's table, not a configuration
    skipped = OUR_DEFAULTS | DELIBERATE
    differences = {
        n: (config.get(n), theirs[n])
        for n in names
        if theirs[n] is not None
        and n.upper() not in skipped
        and not any(marker in n.upper() for marker in HOST_DEPENDENT)
        and not _agrees(config, n, theirs[n])
    }
    assert differences == {}
