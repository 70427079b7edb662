"""Match lists from the vector evaluator (``NEGOTIATOR_MATCH_EVALUATOR = vector``).

The same candidates, in the same order, as candidates.match_list, computed over slot
columns: both Requirements, the job's Rank, the negotiator's pre/post job ranks, and for
claimed slots the slot's RANK and PREEMPTION_RANK, one column operation over all free
slots. Consumption-policy slots change as they are matched and stay on the scalar path.

Within a cycle an autocluster's evaluation is kept and reused by later turns, only for
the slots still free (slots are never freed during a cycle), as long as the job being
matched has the same expression for every name the evaluation read from the job and
nothing it read is set per submitter (``Submitter*``) or beyond what names describe
(subscripts, ``eval``...). What depends on the turn (which submitter, its EUP, startd-rank
only, PREEMPTION_REQUIREMENTS) is decided again at every turn, as the scalar path does.
Candidates are made one at a time as ``find_slot`` pops them, best first. When few slots
are free (``VectorLists.scalar_rows``), the scalar path reads them one at a time instead: that costs
less than a vector evaluation's fixed cost, and gives the same list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat
from operator import attrgetter, eq
from typing import Any

import numpy as np

from ..classad import ClassAd, Expr
from ..classad.vector import SlotColumns, VectorMatch
from ..classad.vector.cells import INT, B, R, is_vec
from ..classad.vector.classes import RowClasses
from ..classad.vector.fallback import job_token
from .attribute import attribute
from .candidates import (
    FLT_MAX,
    LOWEST,
    NO_PREEMPTION,
    PRIORITY,
    RANK,
    REJECT_POLICY,
    Candidate,
    Turn,
    current_rank,
    match_list,
)
from .ephemeral import JOB_ANNOTATIONS
from .kept_values import WIDTH, KeptValues
from .params import NegotiatorParams
from .slots import Slot

__all__ = ["CandidateSlots", "VectorLists", "satisfied_cells"]

_NONE = -1
_UNSEEN = object()  # a name _Entry.seen does not have
_EMPTY = np.zeros(0, np.int64)
_TAKEN, _AD, _NAME = attrgetter("_taken"), attrgetter("ad"), attrgetter("name")
_STATE, _CLAIMED_IDLE = attrgetter("state", "activity"), ("Claimed", "Idle")
_CONSUMPTION = attrgetter("consumption")
_REMOTE_USER, _INDEX = attrgetter("remote_user"), attrgetter("index")
_SHAPE = attrgetter("shape")


class CandidateSlots(list):
    """The cycle's candidate slots; ``lists`` is the vector matcher over them (or None)."""

    lists: VectorLists | None = None


@dataclass(eq=False)
class _Entry:
    """One autocluster's evaluation: the slots it matched (in slot order) and their ranks."""

    read: dict[str, Any]
    rows: np.ndarray
    pre: np.ndarray
    job_rank: np.ndarray
    post: np.ndarray
    slot_rank: np.ndarray
    preempt: np.ndarray
    order: np.ndarray | None = None  # sorted positions, when no slot is claimed
    top: int = -1  # the last position of ``order`` that may not be taken yet this cycle
    seen: dict[str, Expr | None] = field(default_factory=dict)  # read, by these very exprs

    def holds_for(self, job: ClassAd) -> bool:
        """Whether this evaluation is the job's too: every name it read from the job has
        what it had (the very expression, or one alike: ``job_token``)."""
        exprs, seen = job._exprs, self.seen
        for name, token in self.read.items():
            if exprs.get(name) is not seen.get(name, _UNSEEN) and job_token(job, name) != token:
                return False
        return True

    @cached_property
    def unclaimed(self) -> np.ndarray:
        """Every row's state when none is claimed (``order``'s turns)."""
        return np.full(len(self.rows), NO_PREEMPTION)

    @cached_property
    def unordered(self) -> bool:
        """Whether a rank is NaN (asked at every turn; the ranks never change)."""
        keys = (self.pre, self.job_rank, self.post, self.preempt)
        return any(np.isnan(k).any() for k in keys)


def _numbers(value: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(is a number or boolean, its value as a real) for each cell."""
    if not is_vec(value):
        t = type(value)
        ok = t is int or t is float or t is bool
        return np.full(n, ok), np.full(n, float(value) if ok else 0.0)
    tag = value.tag
    ints = (tag == INT) | (tag == B)
    return ints | (tag == R), np.where(tag == R, value.f, value.i.astype(np.float64))


def satisfied_cells(value: Any, n: int) -> np.ndarray:
    ok, number = _numbers(value, n)
    return ok & (number != 0)


def _number_or_zero(value: Any, n: int) -> np.ndarray:
    """A rank: its value where it is a number or boolean, else 0.0."""
    ok, number = _numbers(value, n)
    return np.where(ok, number, 0.0)


class VectorLists:
    """Per cycle: the columns of the candidate slots and the autoclusters' evaluations."""

    scalar_rows = 16  # free slots at most that match_list reads one at a time (scalar path)

    def __init__(
        self,
        slots: list[Slot],
        params: NegotiatorParams,
        now: float,
        columns: SlotColumns | None = None,
    ) -> None:
        self.slots, self.params, self.now = slots, params, now
        n = len(slots)
        self.board = np.fromiter(map(_TAKEN, slots), bool, n)
        for row, slot in enumerate(slots):
            slot.board, slot.row = self.board, row
        ads = list(map(_AD, slots))
        self.kept: KeptValues | None = None  # values from earlier cycles, when columns are
        if columns is None:
            columns = SlotColumns(ads)
        else:
            columns.sync(ads, list(map(_NAME, slots)))
            self.kept = KeptValues.of(columns, params)
        self.columns = columns
        # Slot.claimed_idle and _slot_policy, with no Python call per slot
        self.skip = np.fromiter(map(eq, map(_STATE, slots), repeat(_CLAIMED_IDLE)), bool, n)
        policy = list(map(_CONSUMPTION, slots))
        if None in policy:  # slots read anew: found out once for each
            for k in [k for k, known in enumerate(policy) if known is None]:
                policy[k] = _slot_policy(slots[k])
        self.policy = np.fromiter(policy, bool, n)
        self.any_policy = bool(self.policy.any())  # consumption-policy rows, on the scalar path
        held = list(map(_REMOTE_USER, slots))
        users = set(held)
        users.discard(None)
        self.users = sorted(users)
        code = {u: k for k, u in enumerate(self.users)}
        self.user = np.fromiter(map(code.get, held, repeat(_NONE)), np.int64, n)
        self.index = np.fromiter(map(_INDEX, slots), np.int64, n)
        self.cache: dict[int, _Entry] = {}
        self.shapes = list(map(_SHAPE, slots))  # each row's shape, if the ledger read it so
        self.eligible = np.flatnonzero(~self.skip & ~self.policy)  # rows _evaluate reads
        self.classes: dict[str, RowClasses] = {}  # of the eligible rows, per expression
        self._current_rank: tuple[np.ndarray, np.ndarray] | None = None

    def match_list(
        self,
        job: ClassAd,
        autocluster: int,
        turn: Turn,
        eup_of: Any,
        reasons: set[str],
    ) -> _Lazy:
        """Every slot the job could take, best popped first (candidates.match_list)."""
        entry = self.cache.get(autocluster)
        if entry is None:
            free = self._free()
            if np.count_nonzero(free) <= self.scalar_rows:
                # a vector evaluation's fixed cost is that of dozens of slots one at a time
                found = self._scalar(job, np.flatnonzero(free), turn, eup_of, reasons)
                return _Lazy(self, None, _EMPTY, _EMPTY, found)
        if entry is None or not entry.holds_for(job):
            entry = self._evaluate(job, autocluster)
        found = []
        if self.any_policy:
            rows = np.flatnonzero(self.policy & self._free())
            found = self._scalar(job, rows, turn, eup_of, reasons) if len(rows) else []
        if entry.unordered or any(k != k for c in found for k in c.key):
            # NaN ranks: tuples with NaN sort by object identity in Python, which only
            # the scalar path reproduces; it decides this list on its own
            found = self._scalar(job, np.flatnonzero(self._free()), turn, eup_of, reasons)
            return _Lazy(self, entry, _EMPTY, _EMPTY, found)
        return self._ordered(job, entry, turn, eup_of, reasons, found)

    def _free(self) -> np.ndarray:
        """Rows not taken in this cycle nor claimed and idle."""
        return ~self.board & ~self.skip

    def _current(self, rows: np.ndarray) -> np.ndarray:
        """candidates.current_rank of each row: from the column where CurrentRank is a
        literal, by evaluation where it is an expression."""
        if self._current_rank is None:  # (each cycle's column: claimed rows only read it)
            column = self.columns.column("currentrank")
            number, value = _numbers(column.cells, len(self.slots))
            self._current_rank = np.where(number, value, 0.0), column.group >= 0
        ranks, dynamic = self._current_rank
        current = ranks[rows]
        for k in np.flatnonzero(dynamic[rows]):
            current[k] = current_rank(self.slots[rows[k]].ad)
        return current

    def _scalar(
        self, job: ClassAd, rows: np.ndarray, turn: Turn, eup_of: Any, reasons: set[str]
    ) -> list[Candidate]:
        slots = [self.slots[r] for r in rows]
        return match_list(job, slots, turn, self.params, eup_of, self.now, reasons)

    def _evaluate(self, job: ClassAd, autocluster: int) -> _Entry:
        """The autocluster's evaluation over the free slots: at unclaimed rows from the
        values kept from earlier cycles where they hold (kept_values.py), the other rows
        evaluated (``_stages``)."""
        rows = np.flatnonzero(self._free() & ~self.policy)
        claimed = self.user[rows] != _NONE
        if not self.params.consider_preemption:
            claimed[:] = False
        vm = VectorMatch(self.columns, job, now=self.now)
        if self.kept is None:  # columns made for this cycle: nothing kept, nothing to keep
            ok, ranks, slot_rank, preempt = self._stages(vm, rows, claimed)
            read = {name: job_token(job, name) for name in vm.read}
            entry = self._entry(job, read, rows[ok], ranks, claimed[ok], slot_rank, preempt)
            if not vm.dynamic and not (vm.read & JOB_ANNOTATIONS):
                self.cache[autocluster] = entry
            return entry
        table = np.zeros((len(rows), WIDTH))
        done = np.zeros(len(rows), bool)
        before = self.kept.find(autocluster, job, self.now)
        if before is not None:
            plain = np.flatnonzero(~claimed)
            found, values = before.lookup(self.columns, rows[plain], self.shapes)
            done[plain[found]] = True
            table[plain[found]] = values[found]
        todo = np.flatnonzero(~done)
        ok, ranks, slot_rank, preempt = self._stages(vm, rows[todo], claimed[todo])
        table[todo, 0] = ok
        table[todo[ok], 1:] = ranks
        met = table[:, 0] != 0
        read = {name: job_token(job, name) for name in vm.read}
        if before is not None:
            read = {**before.read, **read}
        entry = self._entry(job, read, rows[met], table[met, 1:], claimed[met], slot_rank, preempt)
        if not vm.dynamic and not (vm.read & JOB_ANNOTATIONS):
            self.cache[autocluster] = entry
            plain = np.flatnonzero(~claimed)
            evaluated = np.flatnonzero(~done[plain])
            when = self.now if vm.clock else None
            self.kept.keep(
                autocluster,
                self.columns,
                rows[plain],
                table[plain],
                evaluated,
                read,
                set(vm.slot_log),
                when,
                before,
                self.shapes,
            )
        return entry

    def _entry(
        self,
        job: ClassAd,
        read: dict[str, Any],
        rows: np.ndarray,
        ranks: np.ndarray,
        claimed: np.ndarray,
        slot_rank: np.ndarray,
        preempt: np.ndarray,
    ) -> _Entry:
        """``job``'s evaluation of the rows that meet both Requirements: ``ranks`` (pre,
        job, post) for each, slot RANK and PREEMPTION_RANK for those ``claimed``; what it
        ``read`` of the job, by token and (``_seen``) by expression."""
        n = len(rows)
        slot_ranks, preempts = np.zeros(n), np.full(n, -FLT_MAX)
        at = np.flatnonzero(claimed)
        slot_ranks[at], preempts[at] = slot_rank, preempt
        pre, job_rank, post = (np.ascontiguousarray(ranks[:, k]) for k in range(3))
        entry = _Entry(read, rows, pre, job_rank, post, slot_ranks, preempts, seen=_seen(job, read))
        if not len(at):
            entry.order = _sort(entry, entry.unclaimed, np.arange(n), self.index)
            entry.top = n - 1
        return entry

    def _stages(
        self, vm: VectorMatch, rows: np.ndarray, claimed: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Evaluate ``rows``: (which meet both Requirements, the pre, job and post ranks
        of those, the slot RANK and PREEMPTION_RANK of those of them ``claimed``); each
        expression at one row of each class of rows alike in what it reads, where there
        are such classes (classad/vector/classes.py: pools are made of copies of a few
        machines)."""
        params = self.params
        if not len(rows):
            return np.zeros(0, bool), np.zeros((0, 3)), np.zeros(0), np.zeros(0)
        ok = self._on(vm, "job requirements", rows, "requirements", False, satisfied_cells)
        at = np.flatnonzero(ok)
        met = self._on(vm, "requirements", rows[at], "requirements", True, satisfied_cells)
        ok[at[~met]] = False
        rows, claimed = rows[ok], claimed[ok]
        ranks = np.empty((len(rows), 3))
        ranks[:, 0] = self._negotiator_rank(vm, "pre", params.pre_job_rank, rows)
        ranks[:, 1] = self._on(vm, "job rank", rows, "rank", False, _number_or_zero)
        ranks[:, 2] = self._negotiator_rank(vm, "post", params.post_job_rank, rows)
        rows = rows[claimed]
        if not len(rows):
            return ok, ranks, np.zeros(0), np.zeros(0)
        slot_rank = self._on(vm, "rank", rows, "rank", True, _number_or_zero)
        preempt = self._negotiator_rank(vm, "preempt", params.preemption_rank, rows)
        return ok, ranks, slot_rank, preempt

    def _classes(self, stage: str) -> RowClasses:
        found = self.classes.get(stage)
        if found is None:
            found = self.classes[stage] = RowClasses(self.columns, self.eligible, stage)
        return found

    def _on(
        self,
        vm: VectorMatch,
        stage: str,
        rows: np.ndarray,
        name: str,
        my_is_slot: bool,
        convert: Callable[[Any, int], np.ndarray],
    ) -> np.ndarray:
        """Attribute ``name`` of the slot or the job at ``rows``, as ``convert`` reads it."""

        def compute(at: np.ndarray) -> np.ndarray:
            return convert(vm.attribute(name, at, my_is_slot=my_is_slot), len(at))

        return self._classes(stage).evaluate(vm, rows, compute)

    def _negotiator_rank(
        self, vm: VectorMatch, stage: str, expr: Expr | None, rows: np.ndarray
    ) -> np.ndarray:
        if expr is None:
            return np.full(len(rows), LOWEST)

        def compute(at: np.ndarray) -> np.ndarray:
            number, value = _numbers(vm.expression(expr, at, my_is_slot=True), len(at))
            with np.errstate(over="ignore"):
                single = value.astype(np.float32).astype(np.float64)
            return np.where(number, single, LOWEST)

        return self._classes(stage).evaluate(vm, rows, compute)

    def _ordered(
        self,
        job: ClassAd,
        entry: _Entry,
        turn: Turn,
        eup_of: Any,
        reasons: set[str],
        found: list[Candidate],
    ) -> _Lazy:
        if entry.order is not None:  # no slot claimed: every turn reads the one order
            if turn.rank_only:
                return _Lazy(self, entry, _EMPTY, _EMPTY, found)
            return _Lazy(self, entry, entry.unclaimed, entry.order, found, shared=True)
        live = ~self.board[entry.rows]
        state = self._classify(job, entry, live, turn, eup_of, reasons)
        keep = np.flatnonzero(live & (state != _NONE))
        return _Lazy(self, entry, state, _sort(entry, state, keep, self.index), found)

    def _classify(
        self,
        job: ClassAd,
        entry: _Entry,
        live: np.ndarray,
        turn: Turn,
        eup_of: Any,
        reasons: set[str],
    ) -> np.ndarray:
        """candidates.classify for every row at once."""
        params, rows = self.params, entry.rows
        user = self.user[rows]
        claimed = (user != _NONE) & params.consider_preemption
        state = np.full(len(rows), _NONE if turn.rank_only else NO_PREEMPTION)
        at = np.flatnonzero(claimed & live)
        state[np.flatnonzero(claimed)] = _NONE
        if not len(at):
            return state
        current = self._current(rows[at])
        better = entry.slot_rank[at] > current
        state[at[better]] = RANK
        rest = at[~better]
        if turn.rank_only:
            return state
        mine = self.users.index(turn.submitter) if turn.submitter in self.users else _NONE
        rest = rest[user[rest] != mine]
        if params.preempt_on_better_priority_only and len(rest):
            eups = np.array([eup_of(u) for u in self.users], np.float64)
            rest = rest[turn.eup < eups[user[rest]]]
        requirements = params.preemption_requirements
        if requirements is not None and len(rest):
            vm = VectorMatch(self.columns, job, now=self.now)

            def compute(at: np.ndarray) -> np.ndarray:
                value = vm.expression(requirements, at, my_is_slot=True)
                return satisfied_cells(value, len(at))

            allowed = self._classes("preemption requirements").evaluate(vm, rows[rest], compute)
            if not allowed.all():
                reasons.add(REJECT_POLICY)
            rest = rest[allowed]
        rest = rest[~(entry.slot_rank[rest] < self._current(rows[rest]))]
        state[rest] = PRIORITY
        return state


def _seen(job: ClassAd, read: dict[str, Any]) -> dict[str, Expr | None]:
    """The job's expressions of the names an evaluation read, where their tokens are the
    ones it read: a later job holding the very same expression needs no token made."""
    exprs = job._exprs
    return {name: exprs.get(name) for name, token in read.items() if job_token(job, name) == token}


def _sort(entry: _Entry, state: np.ndarray, keep: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Positions ``keep`` ordered by the rank tuple, worst first (candidates._key)."""
    preempt = np.where(state[keep] != NO_PREEMPTION, entry.preempt[keep], -FLT_MAX)
    slot_index = index[entry.rows[keep]]
    keys = (-slot_index, preempt, state[keep], entry.post[keep], entry.job_rank[keep])
    return keep[np.lexsort((*keys, entry.pre[keep]))]


def _key(entry: _Entry, state: np.ndarray, p: int, index: np.ndarray) -> tuple:
    s = int(state[p])
    return (
        float(entry.pre[p]),
        float(entry.job_rank[p]),
        float(entry.post[p]),
        s,
        float(entry.preempt[p]) if s != NO_PREEMPTION else -FLT_MAX,
        -int(index[entry.rows[p]]),
    )


class _Lazy:
    """A match list that makes each Candidate only when it is popped."""

    def __init__(
        self,
        lists: VectorLists,
        entry: _Entry | None,
        state: np.ndarray,
        order: np.ndarray,
        found: list[Candidate],
        shared: bool = False,
    ) -> None:
        self.lists, self.entry, self.state, self.order = lists, entry, state, order
        self.top = len(order) - 1
        self.found = found  # consumption-policy candidates, sorted worst first
        # ``order`` is the entry's own, read by every turn: rows taken since are passed
        # over here rather than filtered out at each turn, and the rows at its top taken
        # for good (in this cycle) are passed over once for all turns (``_Entry.top``)
        self.shared = shared
        if shared:
            assert entry is not None
            self.top = entry.top
            self._pass_taken()
            entry.top = self.top

    def _pass_taken(self) -> None:
        board, rows, order, top = self.lists.board, self.entry.rows, self.order, self.top
        while top >= 0 and board[rows[order[top]]]:
            top -= 1
        self.top = top

    def __bool__(self) -> bool:
        if self.shared:
            self._pass_taken()
        return self.top >= 0 or bool(self.found)

    def pop(self) -> Candidate:
        if self.shared:
            self._pass_taken()
        if self.top < 0:
            return self.found.pop()
        p = int(self.order[self.top])
        key = _key(self.entry, self.state, p, self.lists.index)
        if self.found and self.found[-1].key > key:
            return self.found.pop()
        self.top -= 1
        slot = self.lists.slots[int(self.entry.rows[p])]
        return Candidate(slot, int(self.state[p]), key, slot.weight)


def _slot_policy(slot: Slot) -> bool:
    if slot.consumption is None:
        slot.consumption = _has_policy(slot.ad)
    return slot.consumption


def _has_policy(ad: ClassAd) -> bool:
    """A partitionable slot with a consumption policy (consumption.consumption_of)."""
    if attribute(ad, "PartitionableSlot") is not True:
        return False
    resources = attribute(ad, "MachineResources")
    if not isinstance(resources, str):
        return False
    return any("Consumption" + r in ad for r in resources.replace(",", " ").split())
