"""Slots kept from one cycle to the next, for a caller that knows which slots changed (the
simulator's pool, which logs every slot it claims, releases, carves, adds or removes).

A cycle reads every slot (``fetch_slots``), but in a big, busy pool most of them are
claimed and nothing a cycle does can take them: they only count. The ledger keeps, per
slot, the ``Slot`` the fetch makes, and calls a slot *standing* when it is held (Claimed or
Preempting) and no cycle can match it:

* ``trim`` drops it (``NEGOTIATOR_CONSIDER_PREEMPTION`` false, or a claimed partitionable
  slot that does not want matching); or
* it is a static or dynamic slot that neither kind of preemption can take: priority
  preemption is ruled out by a constant ``PREEMPTION_REQUIREMENTS`` that is not true, and
  rank preemption by a constant ``RANK`` that does not exceed the slot's ``CurrentRank``
  (candidates.classify decides the same way, slot by slot).

A standing slot only counts: its weight in the pie, its holder's usage, its concurrency
limits, the job attributes its expressions mention (autoclusters), its ``SlotID`` and user
for cross-slot priorities. The ledger keeps these as running totals, summed exactly (as
``Fraction``) so that the order in which slots come and go changes no bit of a figure,
and the cycle (``run_cycle`` with ``PoolSnapshot.standing``) negotiates over the other
slots only. One thing the busy slots still decide: a plain cycle that finds a job matching
another user's busy slot records ``PREEMPTION_REQUIREMENTS == False`` for it, and a
submitter rejected for that reason (rather than for its limit) gets no further spin of the
pie. So when a job is rejected, ``policy_blocks`` asks whether such a standing slot matches
it (one vector evaluation over the standing slots, only then), and the cycle records the
same reason and spins the pie the same way.

Free slots that are copies of one another (slot_copies.py) are kept the same way: a
cycle given its requests (``standing(now, requests)``) gets of each kind of copy only as
many as its idle jobs could take, the first in collector order, and the others as totals
(unless one of the jobs can tell the copies apart), so that a cycle's passes over its
candidates grow with its queue rather than with the pool's free slots.

What is kept must not move by itself: a slot is kept only when every value the fetch and
the totals read of it is a literal or an expression of the slot alone that does not read
the clock (classad/dependence.py); any other slot is read again at every cycle, and is
never standing. A change of configuration (another ``NegotiatorParams``) reads all again.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from operator import attrgetter

import numpy as np

from ..accounting.accountant import Usage
from ..classad import ClassAd, Expr
from ..classad.ad import to_python
from ..classad.dependence import own_only
from ..classad.match import rank, symmetric_match
from ..classad.scope import NOT_CONST
from ..classad.vector import SlotColumns, VectorMatch
from .autocluster import NameCollector
from .candidates import current_rank, priority_preemption_ruled_out
from .concurrency import held_limits
from .ephemeral import is_slot_annotation, may_read_job_annotations
from .params import NegotiatorParams
from .slot_copies import Copies, copies_key
from .slot_shapes import JOB, Move, Moves, alike, clone, shape_key
from .slots import (
    HELD_STATES,
    Slot,
    counted_in_pool,
    read_slot,
    slot_is_fetched,
    slot_size,
    trim,
    usage_from_slots,
)
from .submitters import SubmitterQueue
from .sums import Exact
from .vector_lists import satisfied_cells

__all__ = ["SlotLedger", "Standing"]

_NO_JOB = ClassAd()  # what a constant RANK is evaluated against
_SEQ = attrgetter("seq")  # an entry's collector order
_SHAPES = 50_000  # shapes kept at most (slot_shapes.py), and pairs of them
# What the totals do as one counted slot gives way to another: (slots, listed slots,
# (counter, key, one more or one less) for each count that moves)
_Delta = tuple[int, int, tuple[tuple[Counter, object, int], ...]]

# What the fetch, the trim, the totals and classify read of a slot ad.
_READ = tuple(
    n.lower()
    for n in (
        "MyType",
        "Name",
        "State",
        "Activity",
        "AccountingGroup",
        "RemoteUser",
        "PreemptingAccountingGroup",
        "PreemptingUser",
        "PartitionableSlot",
        "SlotWeight",
        "Cpus",
        "WantMatching",
        "RetirementTimeRemaining",
        "ConcurrencyLimits",
        "PreemptingConcurrencyLimits",
        "Machine",
        "SlotID",
        "Rank",
        "CurrentRank",
    )
)


@dataclass(frozen=True)
class Standing:
    """The slots a cycle is not given because none of them can be matched (see the
    module docstring), as totals; ``slots`` are all the others, fetched."""

    slots: list[Slot]
    count: int
    listed: int  # how many of them a plain cycle would list as candidates (never taken)
    usage: dict[str, tuple[int, Exact]]  # holder -> (slots, exact weight)
    weight: Exact  # in the pie (NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT applied)
    effective: Exact  # effective_pool_size
    min_weight: float | None
    limits: dict[str, Exact]  # concurrency limits in use
    mentions: frozenset[str]  # job attributes their Requirements and Rank reach
    users_on: Mapping[object, Mapping[str, tuple[int, int, str]]]  # Machine -> slot -> ...
    policy_blocks: Callable[..., bool] | None = None  # SlotLedger.policy_blocks
    job_annotations_read: bool = True  # some slot may read what a cycle sets on a job

    def on_machine(self, machine: object) -> list[tuple[int, int, str]]:
        """(collector order, SlotID, remote user) of the standing slots of ``machine``."""
        return list(self.users_on.get(machine, {}).values())


@dataclass(eq=False)
class _Entry:
    seq: int
    ad: ClassAd
    slot: Slot | None  # the fetched slot (None: the fetch drops it); kept when fixed
    fixed: bool
    standing: bool = False
    counted: bool = True
    effective: float = 1.0
    limits: tuple[tuple[str, float], ...] = ()
    mentions: frozenset[str] = frozenset()
    slot_id: int | None = None
    blocked: bool = False  # busy, and PREEMPTION_REQUIREMENTS is what keeps it
    listed: bool = False  # a candidate of the plain cycle (trim keeps it), never taken
    free: bool = False  # a free static slot: one of some copies
    notes: bool = True  # its expressions may read what a cycle sets on a job
    kind: tuple | None = None  # its copies' key, when its shape decides it
    copies: Copies | None = None  # the copies it is one of

    def like(self, ad: ClassAd, seq: int, was: Slot | None = None) -> _Entry:
        """This entry's reading for another ad of the same shape (SlotLedger._entry);
        ``was``: that ad's slot before a move, whose name and machine are still its."""
        twin = clone(self)
        twin.ad, twin.seq, twin.copies = ad, seq, None
        if self.slot is not None:
            slot = twin.slot = clone(self.slot)
            slot.ad, slot.index = ad, seq
            if was is not None:
                slot.name, slot.machine = was.name, was.machine
            else:
                slot.name = to_python(ad._exprs["name"].const)
                machine = ad._exprs.get("machine")
                slot.machine = None if machine is None else to_python(machine.const)
            slot.mentions, slot.consumption, slot.shape = None, None, self
            slot._taken, slot.board, slot.row = False, None, -1
        return twin


class SlotLedger:
    """Fetched slots and standing totals, brought up to date from the slots that changed."""

    probe = 16  # standing slots policy_blocks tries one at a time before a vector evaluation

    def __init__(self) -> None:
        self.params: NegotiatorParams | None = None
        self._reset()

    def _reset(self) -> None:
        """Forget every slot (a new configuration reads them all again)."""
        self.entries: dict[str, _Entry] = {}
        self.active: dict[str, _Entry] = {}  # entries that are not standing nor copies
        self._copies: dict[tuple, Copies] = {}  # free slots by kind (slot_copies.py)
        self._shapes: dict[tuple, _Entry] = {}  # an entry read for each shape of ad
        self._moves = Moves()  # where the pool's moves take each of them
        self._order: list[_Entry] | None = None  # the active entries in collector order
        self._every: list[_Entry] | None = None  # they and every copy, in that order
        self._noting = 0  # slots whose expressions may read a job's annotations
        self.collector = NameCollector()
        self._count = 0
        self._listed = 0
        self._held: dict[str, Counter[float]] = {}  # holder -> weight -> slots
        self._weights: Counter[float] = Counter()  # every standing weight (min weight)
        self._pie: Counter[float] = Counter()
        self._effective: Counter[float] = Counter()
        self._limits: dict[str, Counter[float]] = {}
        self._mentions: Counter[frozenset[str]] = Counter()  # slots share their sets
        self._deltas: dict[tuple, _Delta] = {}  # (shape, shape) -> what the totals do
        self._users: dict[object, dict[str, tuple[int, int, str]]] = {}
        self._blocked: dict[str, _Entry] = {}
        self._columns = SlotColumns([])  # of the blocked slots, for policy_blocks
        self._columns.track()
        self._view: tuple[list[_Entry], list[str], np.ndarray, bool] | None = None
        self._view_now = 0.0

    # -- keeping up ----------------------------------------------------------------------
    def update(
        self,
        ads: Mapping[str, ClassAd],
        sequence: Mapping[str, int],
        changed: Iterable[str],
        params: NegotiatorParams,
        now: float,
        moves: Mapping[str, Move | None] | None = None,
    ) -> None:
        """Read again the slots named in ``changed`` (all of them when ``params`` is not
        the configuration last seen); ``sequence`` gives each slot's collector order,
        ``moves`` the one move (slot_shapes.py) that changed a slot since it was last
        read, where the caller knows it."""
        if params is not self.params:
            self._reset()
            self.params = params
            changed = list(ads)
        changed = list(changed)
        if len(changed) * 8 > len(self.active):  # many: sort them all again when asked
            self._order = None
        if changed:
            self._every = None
        moves = moves or {}
        for name in changed:
            old = self.entries.pop(name, None)
            ad = ads.get(name)
            if ad is None:
                new = None
            else:
                move = moves.get(name)
                was = old.slot if move and old is not None else None
                new = self._entry(ad, sequence[name], params, now, was, move)
            self._recount(old, new)
            if old is not None:
                self._leave(name, old)
            if new is not None:
                self._join(name, new)

    def _join(self, name: str, entry: _Entry) -> None:
        """A slot read afresh takes its place: among its copies (free, counted as
        standing, listed as a cycle's queue needs), standing, or active."""
        self.entries[name] = entry
        self._noting += entry.notes
        if entry.free:
            key = entry.kind or copies_key(
                entry.ad, entry.slot.weight, entry.counted, entry.effective
            )
            entry.copies = self._copies.get(key) or self._copies.setdefault(key, Copies(key))
            entry.copies.add(entry)
        elif not entry.standing:
            self._activate(name, entry)

    def _entry(
        self,
        ad: ClassAd,
        seq: int,
        params: NegotiatorParams,
        now: float,
        was: Slot | None = None,
        move: Move | None = None,
    ) -> _Entry:
        """What the ledger reads of a slot ad: from the ad's shape when an ad of that
        shape was read before (slot_shapes.py), else read; the shape found from the
        shape of the ad's slot as it ``was`` and the ``move`` since, once that move was
        seen from that shape."""
        shape = was.shape if was is not None else None
        if shape is not None:
            template = self._moves.after(shape, move)
            if template is not None:
                return template.like(ad, seq, was)
        key = shape_key(ad)
        if key is None:
            return self._read(ad, seq, params, now)
        template = self._shapes.get(key)
        if template is not None:
            if shape is not None:
                self._moves.learn(shape, move, template)
            return template.like(ad, seq)
        entry = self._read(ad, seq, params, now)
        read = (*_READ, *self.collector.trace(ad).looked)
        if entry.fixed and entry.slot is not None and alike(ad, read, _slot_exprs(params)):
            if len(self._shapes) >= _SHAPES:
                self._shapes.clear()
                self._moves = Moves()
            template = self._shapes[key] = entry.like(ad, seq)
            if entry.free and not JOB.intersection(key[0]):  # the shape is the kind
                template.kind = copies_key(ad, entry.slot.weight, entry.counted, entry.effective)
        return entry

    def _read(self, ad: ClassAd, seq: int, params: NegotiatorParams, now: float) -> _Entry:
        """The fetch, the trim and the totals' reading of a slot ad, and which kind of
        entry it makes: active (every cycle gets it), free (a copy) or standing."""
        fixed = _fixed(ad, params)
        slot = read_slot(ad, seq, params, now) if slot_is_fetched(ad, params, now) else None
        entry = _Entry(seq, ad, slot, fixed)
        entry.notes = may_read_job_annotations(ad._exprs.values())
        if not fixed or slot is None or entry.notes:
            # read at every cycle; so is a slot that may read what a cycle sets on the job
            # (SubmitterUserResourcesInUse grows within a turn): the plain cycle reads it
            # as it stands at each turn's first job of an autocluster, standing totals can't
            return entry
        entry.free = _copyable(slot)
        if not entry.free and not _standing(slot, params):
            return entry
        entry.counted = counted_in_pool(slot, params, now)
        entry.effective = slot_size(slot)
        entry.mentions = self.collector.reach(ad)
        if entry.free:
            entry.listed = True
            return entry
        entry.standing = True
        entry.limits = tuple(held_limits(ad))
        slot_id = ad.eval("SlotID")
        entry.slot_id = slot_id if type(slot_id) is int else None
        entry.listed = bool(trim([slot], params))  # a static or dynamic slot, then
        entry.blocked = entry.listed and slot.remote_user is not None and not slot.claimed_idle
        return entry

    def _activate(self, name: str, entry: _Entry) -> None:
        """An entry every cycle is given."""
        self.active[name] = entry
        if self._order is not None:  # a few changed: kept in order, one by one
            self._place(entry)

    def _leave(self, name: str, entry: _Entry) -> None:
        """A slot leaves its place (it changed, or it is gone)."""
        self._noting -= entry.notes
        if entry.copies is not None:
            entry.copies.remove(entry)
            if not entry.copies.members:
                del self._copies[entry.copies.key]
        elif not entry.standing:
            del self.active[name]
            if self._order is not None:
                self._unplace(entry)

    def _place(self, entry: _Entry) -> None:
        """Put an entry that became active into the kept collector order."""
        order = self._order
        assert order is not None
        at = bisect.bisect_left(order, entry.seq, key=_SEQ)
        if at < len(order) and order[at].seq == entry.seq:
            self._order = None  # orders not all distinct: sorted again when asked
            return
        order.insert(at, entry)

    def _unplace(self, entry: _Entry) -> None:
        order = self._order
        assert order is not None
        at = bisect.bisect_left(order, entry.seq, key=_SEQ)
        if at < len(order) and order[at] is entry:
            del order[at]
        else:
            self._order = None

    def _recount(self, old: _Entry | None, new: _Entry | None) -> None:
        """The totals as ``old`` gives way to ``new`` (either may be missing, or active:
        not counted), changed only where they differ: a claimed or released slot
        changes its holder's usage and little else."""
        a = old if old is not None and (old.standing or old.free) else None
        b = new if new is not None and (new.standing or new.free) else None
        if a is None and b is None:
            return
        if a is not None:
            self._per_slot(a, -1)
        if b is not None:
            self._per_slot(b, 1)
        pair = (a.slot.shape if a else None), (b.slot.shape if b else None)
        known = (a is None or pair[0] is not None) and (b is None or pair[1] is not None)
        delta = self._deltas.get(pair) if known else None
        if delta is None:
            delta = self._delta(a, b)
            if known:
                if len(self._deltas) >= _SHAPES:
                    self._deltas.clear()
                self._deltas[pair] = delta
        count, listed, bumps = delta
        self._count += count
        self._listed += listed
        for counter, key, sign in bumps:
            _bump(counter, key, sign)

    def _delta(self, a: _Entry | None, b: _Entry | None) -> _Delta:
        """What the totals do as counted entry ``a`` gives way to counted entry ``b``
        (either may be None): only what an entry's shape decides, so kept per pair of
        shapes (``_deltas``)."""
        bumps: list[tuple[Counter, object, int]] = []
        old_slot, new_slot = (a.slot if a else None), (b.slot if b else None)
        held = _holding(old_slot), _holding(new_slot)
        if held[0] != held[1]:
            for (holder, weight), sign in zip(held, (-1, 1), strict=True):
                if holder is not None:
                    counter = self._held.get(holder)
                    if counter is None:
                        counter = self._held[holder] = Counter()
                    bumps.append((counter, weight, sign))
        for counter, before, after in (
            (self._weights, *(s.weight if s else _NOTHING for s in (old_slot, new_slot))),
            (self._pie, *(e.slot.weight if e and e.counted else _NOTHING for e in (a, b))),
            (self._effective, *(e.effective if e else _NOTHING for e in (a, b))),
            (self._mentions, *(e.mentions if e else _NOTHING for e in (a, b))),
        ):
            if before != after:
                moved = ((before, -1), (after, 1))
                bumps += [(counter, v, sign) for v, sign in moved if v is not _NOTHING]
        limits = (a.limits if a else ()), (b.limits if b else ())
        if limits[0] != limits[1]:
            for held_limits_, sign in zip(limits, (-1, 1), strict=True):
                for limit, amount in held_limits_:
                    bumps.append((self._limits.setdefault(limit, Counter()), amount, sign))
        count = (b is not None) - (a is not None)
        listed = (b is not None and b.listed) - (a is not None and a.listed)
        return count, listed, tuple(bumps)

    def _per_slot(self, entry: _Entry, sign: int) -> None:
        """What is kept slot by slot: the blocked slots, and the users of each machine."""
        slot = entry.slot
        assert slot is not None
        if entry.blocked:
            self._columns.mark((slot.name,))
            self._view = None
            if sign > 0:
                self._blocked[slot.name] = entry
            else:
                self._blocked.pop(slot.name, None)
        if entry.slot_id is not None and slot.remote_user is not None:
            on_machine = self._users.get(slot.machine)
            if on_machine is None:
                on_machine = self._users[slot.machine] = {}
            if sign > 0:
                on_machine[slot.name] = (entry.seq, entry.slot_id, slot.remote_user)
            else:
                on_machine.pop(slot.name, None)

    # -- what a cycle is given -----------------------------------------------------------
    def slots(self, now: float, entries: Iterable[_Entry] | None = None) -> list[Slot]:
        """The slots of ``entries`` (the active ones when not given), fetched, in
        collector order (kept slots are handed out again with this cycle's marks
        cleared)."""
        params = self.params
        assert params is not None
        slots = []
        for entry in self._ordered() if entries is None else entries:
            slot = entry.slot
            if not entry.fixed:
                fetched = slot_is_fetched(entry.ad, params, now)
                slot = read_slot(entry.ad, entry.seq, params, now) if fetched else None
            if slot is None:
                continue
            slot._taken, slot.board, slot.row = False, None, -1
            slots.append(slot)
        return slots

    def _ordered(self) -> list[_Entry]:
        """The active entries in collector order (sorted again after a change)."""
        if self._order is None:
            self._order = sorted(self.active.values(), key=_SEQ)
        return self._order

    def mention_sets(self) -> Iterable[frozenset[str]]:
        """What every slot's Requirements and Rank reach, as sets (slots share them): the
        significant attributes come from these."""
        yield from self._mentions
        for entry in self._ordered():
            yield self.collector.reach(entry.ad)

    def standing(
        self, now: float, requests: Mapping[str, SubmitterQueue] | None = None
    ) -> Standing:
        """What a cycle is given; with the cycle's ``requests``, of each kind of free copy
        only as many as their idle jobs could take (all of them without)."""
        most = None if requests is None else sum(q.idle_jobs for q in requests.values())
        given: list[_Entry] = []
        shown: Counter[tuple[float, bool, float]] = Counter()  # copies given, by what counts
        every = True  # every copy is given
        for copies in self._copies.values():
            members = copies.members
            take = len(members) if most is None else min(most, len(members))
            if take < len(members) and copies.told_apart(_idle_jobs(requests), self.params):
                take = len(members)
            given += members[:take]
            every = every and take == len(members)
            if take:
                entry = members[0]
                shown[(entry.slot.weight, entry.counted, entry.effective)] += take
        if given and every:  # sorted again only after a change (a queue nothing matches)
            if self._every is None:
                self._every = sorted([*self._ordered(), *given], key=_SEQ)
            given = self._every
        elif given:
            given = sorted([*self._ordered(), *given], key=_SEQ)
        pie, effective = self._pie.copy(), self._effective.copy()
        for (weight, counted, size), n in shown.items():
            if counted:
                _bump(pie, weight, -n)
            _bump(effective, size, -n)
        listed = sum(shown.values())
        return Standing(
            slots=self.slots(now, given or None),
            count=self._count - listed,
            listed=self._listed - listed,
            usage={h: (sum(c.values()), _exact(c)) for h, c in self._held.items() if c},
            weight=_exact(pie),
            effective=_exact(effective),
            min_weight=min(self._weights) if self._weights else None,
            limits={name: _exact(c) for name, c in self._limits.items() if c},
            mentions=frozenset().union(*self._mentions),
            users_on=self._users,
            policy_blocks=self.policy_blocks if self._blocked else None,
            job_annotations_read=self._noting > 0,
        )

    def usage(self, now: float) -> dict[str, Usage]:
        """Every holder's usage (standing slots and the others), as a cycle measures it."""
        standing = self.standing(now, {})  # free copies hold nothing
        return usage_from_slots(standing.slots, standing.usage)

    def policy_blocks(
        self,
        job: ClassAd,
        submitter: str,
        eup: float,
        eup_of: Callable[[str], float],
        now: float,
        annotate: Callable[[list[Slot]], None],
    ) -> bool:
        """Whether ``job`` matches a standing slot held by someone other than
        ``submitter`` that PREEMPTION_REQUIREMENTS keeps it from (whose user's EUP is
        worse than ``eup``, with PREEMPT_ON_BETTER_PRIORITY_ONLY): what makes a plain
        cycle record ``PREEMPTION_REQUIREMENTS == False`` (candidates.classify).
        ``annotate``: the cycle's remote-user attributes, put on the slots when the match
        reads them."""
        params = self.params
        assert params is not None
        entries, users, codes, annotated = self._blocked_view(now)
        wanted = [
            code
            for code, user in enumerate(users)
            if user != submitter
            and (not params.preempt_on_better_priority_only or eup < eup_of(user))
        ]
        rows = np.flatnonzero(np.isin(codes, wanted))
        if len(rows) == 0:
            return False
        if annotated or any(is_slot_annotation(name) for name in self.collector.reach(job)):
            slots = [entries[r].slot for r in rows]
            annotate(slots)
            return any(symmetric_match(job, slot.ad, now=now) for slot in slots if slot)
        # the first slots one at a time: a busy pool's slots mostly match alike and one
        # match answers, for a small part of what a vector evaluation costs
        if any(symmetric_match(job, entries[r].ad, now=now) for r in rows[: self.probe].tolist()):
            return True
        rows = rows[self.probe :]
        if len(rows) == 0:
            return False
        vm = VectorMatch(self._columns, job, now=now)
        ok = satisfied_cells(vm.attribute("requirements", rows, my_is_slot=False), len(rows))
        rows = rows[ok]
        ok = satisfied_cells(vm.attribute("requirements", rows, my_is_slot=True), len(rows))
        return bool(ok.any())

    def _blocked_view(self, now: float) -> tuple[list[_Entry], list[str], np.ndarray, bool]:
        """The blocked slots as rows of their columns: (entries, users, each row's user
        code, whether some row's Requirements or Rank reach a cycle's annotation), built
        again only after they change; the columns' kept values are dropped each cycle."""
        if self._view is None:
            entries = list(self._blocked.values())
            held = [e.slot.remote_user if e.slot else None for e in entries]
            users = sorted({user for user in held if user})
            code = {user: k for k, user in enumerate(users)}
            codes = np.array([code.get(user or "", -1) for user in held], np.int64)
            annotated = any(is_slot_annotation(name) for e in entries for name in e.mentions)
            self._columns.sync([e.ad for e in entries])
            self._view = (entries, users, codes, annotated)
        elif now != self._view_now:
            self._columns.memo.clear()
            self._columns.memo_cells = 0
        self._view_now = now
        return self._view

    def free_slot(self, now: float) -> bool:
        """Whether some slot could be matched without preempting."""
        if self._copies:
            return True
        for entry in self._ordered():
            if not entry.fixed:  # a slot read anew: read them all as a cycle would
                return any(_free(slot) for slot in self.slots(now))
            if entry.slot is not None and _free(entry.slot):
                return True
        return False


def _slot_exprs(params: NegotiatorParams) -> tuple[Expr | None, ...]:
    """The negotiator's expressions the ledger evaluates in a slot ad alone."""
    return (params.slot_weight, params.slot_constraint, params.slot_poolsize_constraint)


def _exact(counts: Counter) -> Exact:
    """The exact sum of the counted values (whole ones in integers: Fractions are slow,
    and a pool's weights are mostly whole cores); an int when they are all whole."""
    whole, parts = 0, []
    for value, n in counts.items():
        if type(value) is int or (type(value) is float and value.is_integer()):
            whole += int(value) * n
        else:
            parts.append(Fraction(value) * n)
    return sum(parts, Fraction(whole)) if parts else whole


_NOTHING = object()  # no part in a total


def _holding(slot: Slot | None) -> tuple[str | None, float]:
    """(holder, weight) of a counted slot; (None, 0.0) when nobody holds it."""
    if slot is None or slot.holder is None:
        return None, 0.0
    return slot.holder, slot.weight


def _bump(counter: Counter, key: object, sign: int) -> None:
    counter[key] += sign
    if counter[key] == 0:
        del counter[key]


def _fixed(ad: ClassAd, params: NegotiatorParams) -> bool:
    """Whether nothing the ledger reads of ``ad`` can change while the ad does not."""
    exprs = ad._exprs
    for lname in _READ:
        expr = exprs.get(lname)
        if (
            expr is not None
            and expr.const is NOT_CONST
            and not own_only(expr.node, ad, other=False, clock=True)
        ):
            return False
    for expr in (params.slot_constraint, params.slot_weight, params.slot_poolsize_constraint):
        if expr is not None and not own_only(expr.node, ad, other=False, clock=True):
            return False
    return True


def _standing(slot: Slot, params: NegotiatorParams) -> bool:
    """Held, and no cycle can match it (see the module docstring)."""
    if slot.state not in HELD_STATES:
        return False
    if not trim([slot], params):
        return True  # no cycle lists it
    if slot.partitionable or not priority_preemption_ruled_out(params):
        return False  # claimed whole and matched as such, or priority preemption may take it
    rank_expr = slot.ad._exprs.get("rank")
    if rank_expr is not None and rank_expr.const is NOT_CONST:
        return False  # a job may rank above the one running
    return not rank(slot.ad, _NO_JOB, now=0.0) > current_rank(slot.ad)


def _copyable(slot: Slot) -> bool:
    """A free static slot: one that may have copies (slot_copies.py)."""
    return slot.state not in HELD_STATES and not slot.partitionable


def _idle_jobs(requests: Mapping[str, SubmitterQueue] | None) -> Iterable[ClassAd]:
    """Every idle job of the requests, or the one that stands for a request's count."""
    for queue in (requests or {}).values():
        for request in queue.requests:
            if request.members is None:
                yield from request.jobs[:1] if request.count is not None else request.jobs
            else:
                for k in range(request.next, len(request.members)):
                    yield request.members[k]


def _free(slot: Slot) -> bool:
    if slot.state in HELD_STATES:
        return False
    if slot.partitionable:
        cpus = slot.ad.eval("Cpus")
        return type(cpus) not in (int, float) or cpus > 0
    return True
