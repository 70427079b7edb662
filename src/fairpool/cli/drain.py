"""``fairpool drain``: condor_drain.

``fairpool drain [-graceful|-quick|-fast] [-start EXPR] [-check EXPR] [-reason TEXT]
MACHINE`` asks the startd of MACHINE to drain; ``fairpool drain -cancel [-request-id ID]
MACHINE`` stops it. The startd is the one whose slot ads in the collector name MACHINE
(their ``Machine``, or a slot's ``Name``) and give its API (``ApiAddress``). Output is
condor_drain's: ``Sent request to drain the startd <ADDR> with MACHINE. This only affects
the single startd; any other startds running on the same host will not be drained.``
(``-verbose`` adds the request id) and ``Sent request to cancel draining on MACHINE``; a
refusal is ``Attempt to send DRAIN_JOBS to startd <ADDR> failed: REASON`` on one line
(condor_drain puts the reason on a second line) and exit status 1.
"""

from __future__ import annotations

import click

from ..daemons.client import SyncApi
from ..daemons.errors import ApiError, NotFound
from .remote import collector, refusals
from .selection import literal

__all__ = ["drain"]


@click.command(context_settings={"help_option_names": ["-help", "--help", "-h"]})
@click.argument("machine")
@click.option(
    "-graceful", "how", flag_value="graceful", default=True, help="Let jobs finish (the default)."
)
@click.option("-quick", "how", flag_value="quick", help="Honor MaxVacateTime only.")
@click.option("-fast", "how", flag_value="fast", help="Honor neither retirement nor vacate time.")
@click.option("-cancel", is_flag=True, help="Stop draining.")
@click.option("-request-id", "request_id", default=None, metavar="ID", help="The drain to cancel.")
@click.option("-start", "start", default=None, metavar="EXPR", help="START while draining.")
@click.option("-check", "check", default=None, metavar="EXPR", help="Must hold for every slot.")
@click.option("-reason", default=None, metavar="TEXT", help="Why, advertised while draining.")
@click.option("-verbose", is_flag=True, help="Print the request id.")
@click.option("--pool", "-pool", "pool", default=None, metavar="URL", help="The pool's address.")
def drain(
    machine: str,
    how: str,
    cancel: bool,
    request_id: str | None,
    start: str | None,
    check: str | None,
    reason: str | None,
    verbose: bool,
    pool: str | None,
) -> None:
    """Drain a machine's slots, or stop draining them (HTCondor's condor_drain)."""
    if request_id is not None and not cancel:
        raise click.UsageError("-request-id may only be used with -cancel")
    if cancel and (check is not None or reason is not None):
        raise click.UsageError("-check and -reason may not be used with -cancel")
    with refusals():
        api, address = _startd(machine, pool)
    command = "CANCEL_DRAIN_JOBS" if cancel else "DRAIN_JOBS"
    try:
        if cancel:
            api.post("/cancel-drain", {"request_id": request_id})
            click.echo(f"Sent request to cancel draining on {machine}")
            return
        body = {"how": how, "start": start, "check": check, "reason": reason}
        reply = api.post("/drain", body)
    except ApiError as err:
        click.echo(f"Attempt to send {command} to startd {address} failed: {err}", err=True)
        raise SystemExit(1) from None
    click.echo(
        f"Sent request to drain the startd {address} with {machine}. This only affects the "
        "single startd; any other startds running on the same host will not be drained."
    )
    if verbose and reply.get("request_id"):
        click.echo(f"\tRequest id: {reply['request_id']}")


def _startd(machine: str, pool: str | None) -> tuple[SyncApi, str]:
    """The API and address of the startd whose slots are on ``machine``."""
    name = literal(machine)
    found = collector(pool).get(
        "/ads",
        type="Machine",
        constraint=f"Machine == {name} || Name == {name}",
        projection="ApiAddress,MyAddress",
    )["ads"]
    startds = {(ad["ApiAddress"], ad.get("MyAddress", "")) for ad in found if "ApiAddress" in ad}
    if not startds:
        raise NotFound(f"no startd on {machine} in the pool")
    if len(startds) > 1:
        raise NotFound(f"several startds on {machine}: name one of its slots")
    url, address = startds.pop()
    return SyncApi(url), address or f"<{url.split('://')[-1].split('/')[0]}>"
