"""Every HTTP route a pool process serves has a level in security/routes.py, and the
table names no route that is not served: listed from the application the master builds
(with every daemon of DAEMON_LIST), so a route added later is covered or fails here."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from fairpool.security.levels import Level
from fairpool.security.middleware import Guard
from fairpool.security.routes import HTTP_LEVELS, RouteLevels, cedar_levels, served_routes
from securepool import every_route_app


def test_the_table_and_the_served_routes_are_the_same(tmp_path: Path) -> None:
    served = {f"{method} {path}" for method, path in served_routes(every_route_app(tmp_path))}
    assert "POST /schedd/submit" in served and "GET /dashboard/static/{path:path}" in served
    assert sorted(served - set(HTTP_LEVELS)) == [], "routes without a level"
    assert sorted(set(HTTP_LEVELS) - served) == [], "levels of routes no longer served"


def test_the_gate_will_not_stand_before_a_route_without_a_level(tmp_path: Path) -> None:
    app = every_route_app(tmp_path)

    @app.post("/schedd/new-thing")
    async def new_thing() -> dict:
        return {}

    with pytest.raises(RuntimeError, match=r"POST /schedd/new-thing"):
        Guard(app, lambda: None, None)  # type: ignore[arg-type]


def test_a_request_finds_its_route_and_level(tmp_path: Path) -> None:
    levels = RouteLevels(every_route_app(tmp_path))
    assert levels.find("GET", "/schedd/jobs/12.3") == ("GET /schedd/jobs/{job}", Level.READ)
    assert levels.find("HEAD", "/metrics") == ("GET /metrics", Level.READ)
    assert levels.find("POST", "/negotiator/accountant")[1] is Level.ADMINISTRATOR
    assert levels.find("GET", "/negotiator/accountant")[1] is Level.READ
    assert levels.find("GET", "/dashboard/static/app.js")[1] is Level.READ
    assert levels.find("DELETE", "/schedd/jobs/1.0") is None
    assert levels.find("GET", "/schedd/nothing-here") is None
    assert levels.find("GET", "/collector/ads/") is None  # no slash redirects past the gate


def test_every_cedar_command_served_has_a_level() -> None:
    from fairpool.cedar import commands
    from fairpool.cedar.collector import collector_handlers
    from fairpool.cedar.negotiator import negotiator_handlers
    from fairpool.cedar.schedd import schedd_handlers

    stand_in = SimpleNamespace()
    served = {
        *collector_handlers(stand_in),  # type: ignore[arg-type]
        *negotiator_handlers(stand_in),  # type: ignore[arg-type]
        *schedd_handlers(stand_in),  # type: ignore[arg-type]
    }
    assert served == set(cedar_levels())
    assert cedar_levels()[commands.SET_PRIORITYFACTOR] is Level.ADMINISTRATOR
    assert cedar_levels()[commands.QMGMT_WRITE_CMD] is Level.WRITE
    assert all(cedar_levels()[n] is Level.DAEMON for n in commands.ADVERTISE)


def test_the_levels_issue_17_asks_for() -> None:
    """Priority factors, userprio edits, drains, reconfiguration and stopping need
    ADMINISTRATOR; ad updates and the daemons' claims DAEMON; negotiation NEGOTIATOR;
    job commands WRITE; queries, metrics and the dashboard READ."""
    wanted = {
        "POST /negotiator/accountant": Level.ADMINISTRATOR,
        "POST /startd/drain": Level.ADMINISTRATOR,
        "POST /startd/cancel-drain": Level.ADMINISTRATOR,
        "POST /master/reconfig": Level.ADMINISTRATOR,
        "POST /master/off": Level.ADMINISTRATOR,
        "POST /collector/update": Level.DAEMON,
        "POST /collector/invalidate": Level.DAEMON,
        "POST /startd/claim": Level.DAEMON,
        "POST /schedd/events": Level.DAEMON,
        "POST /schedd/negotiate": Level.NEGOTIATOR,
        "POST /schedd/matches": Level.NEGOTIATOR,
        "POST /schedd/submit": Level.WRITE,
        "POST /schedd/act": Level.WRITE,
        "POST /schedd/edit": Level.WRITE,
        "GET /schedd/jobs": Level.READ,
        "GET /collector/ads": Level.READ,
        "GET /metrics": Level.READ,
        "GET /dashboard/": Level.READ,
    }
    assert {route: HTTP_LEVELS[route] for route in wanted} == wanted
    reads = [route for route, level in HTTP_LEVELS.items() if route.startswith("GET ")]
    assert all(HTTP_LEVELS[route] is Level.READ for route in reads)  # a query changes nothing


def test_docs_security_md_gives_every_route_its_level() -> None:
    text = (Path(__file__).parents[2] / "docs" / "security.md").read_text()
    rows = re.findall(
        r"^\| `(GET|POST) ([^`]+)` \| (READ|WRITE|ADMINISTRATOR|DAEMON|NEGOTIATOR)", text, re.M
    )
    documented = {f"{method} {path}": Level(level) for method, path, level in rows}
    pages = ("/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc")
    wanted = {route: level for route, level in HTTP_LEVELS.items() if not route.endswith(pages)}
    assert documented == wanted
