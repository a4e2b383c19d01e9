"""Carry out what an allowed call takes: dispatch slots, the pending reviewer
dispatch, file locks and the ungated-shell record.

All writes go through `zodyssey.core.store` (fcntl lock, re-read, atomic
replace). Each effect re-checks its condition under the lock, because the
policy decided on a snapshot and another hook process may have run since:
that is what makes "50 simultaneous dispatches against cap 4 admit 4" hold.
"""

import os

from zodyssey.core import paths, store
from zodyssey.gate.context import RunContext
from zodyssey.gate.policy import (
    DISPATCH_TTL_SECONDS,
    Decision,
    live_lock,
    parse_time,
    same_session,
    slots_held,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hook works on path strings: no typing or pathlib at run time
    from collections.abc import Sequence
    from typing import Any


class Refused(Exception):
    """An effect's condition no longer holds under the lock."""


def apply(decision: "Decision", ctx: "RunContext") -> "Decision":
    """Apply the effects of an allowing decision; a refused effect turns it into a block."""
    root = ctx.root
    taken_slot: str | None = None
    try:
        for effect in decision.effects:
            handler = _HANDLERS.get(effect.kind)
            if handler is None:
                raise Refused(f"unknown effect {effect.kind}")
            taken = handler(root, ctx, effect.data)
            taken_slot = taken if effect.kind == "slot" else taken_slot
    except Refused as exc:
        if taken_slot is not None:
            release_slot(root, ctx.slug, taken_slot)
        return Decision(False, str(exc), "effect")
    except BaseException:
        if taken_slot is not None:
            release_slot(root, ctx.slug, taken_slot)
        raise
    return decision


def _slot(root: str, ctx: "RunContext", data: "Any") -> str:
    key, weight = data if isinstance(data, tuple) else (data, 1)
    return _take_slot(root, ctx, str(key or ""), weight)


def _review(root: str, ctx: "RunContext", data: "Any") -> None:
    key, agent, harness = data
    _pend_review(root, ctx, key, agent, harness)


def _locks(root: str, ctx: "RunContext", data: "Any") -> None:
    owner, wanted, session = data
    _take_locks(root, ctx, owner, wanted, session)


def _ungated(root: str, ctx: "RunContext", data: "Any") -> None:
    record = dict(data)
    record["at"] = store.now_iso()
    store.append_jsonl(paths.ungated_path(root, ctx.slug), record)


def _take_slot(root: str, ctx: "RunContext", tool_use_id: str, weight: int = 1) -> str:
    if tool_use_id.startswith("anon-"):
        slot_id = f"{tool_use_id}-{os.urandom(4).hex()}"  # released by its key (anon_key)
    else:
        slot_id = tool_use_id or f"anon-{os.getpid()}-{os.urandom(4).hex()}"

    def reserve(ledger: "Any") -> None:
        if not isinstance(ledger, list):
            raise Refused("the dispatch ledger is not a JSON list")
        live = [
            e
            for e in ledger
            if isinstance(e, dict)
            and ((at := parse_time(e.get("at"))) is None or ctx.now - at < DISPATCH_TTL_SECONDS)
        ]
        if any(e.get("id") == slot_id for e in live):
            ledger[:] = live
            return  # the same call asked twice: it already holds its slot
        held = slots_held(live)  # a Workflow's entry holds its whole fan-out
        if held + weight > ctx.cap:
            raise Refused(
                f"{held} subagents are already in flight (cap {ctx.cap}, "
                "ZODYSSEY_PARALLEL_CAP); wait for one to finish"
            )
        entry: dict[str, Any] = {"id": slot_id, "at": store.now_iso()}
        if weight > 1:
            entry["weight"] = weight
        live.append(entry)
        ledger[:] = live

    store.update_json(paths.inflight_path(root, ctx.slug), reserve, list)
    return slot_id


def _held_by(entry: "Any", tool_use_id: str) -> bool:
    """The ledger entry is the slot `tool_use_id` took: its id, or for an `anon-KEY`
    key one of the `anon-KEY-RANDOM` ids taken under it."""
    if not isinstance(entry, dict):
        return False
    if tool_use_id.startswith("anon-"):
        return str(entry.get("id", "")).startswith(tool_use_id + "-")
    return bool(entry.get("id") == tool_use_id)


def _update_ledger(root: "str | os.PathLike[str]", slug: str, change: "Any") -> bool:
    """`change(ledger)` on the run's dispatch ledger, under its lock; False when there
    is no ledger or it is not a list, else what `change` returns."""
    path = paths.inflight_path(os.fspath(root), slug)
    if not os.path.exists(path):
        return False
    return bool(
        store.update_json(path, lambda ledger: isinstance(ledger, list) and change(ledger), list)
    )


def release_slot(root: "str | os.PathLike[str]", slug: str, tool_use_id: str) -> bool:
    """Remove one ledger entry (post-tool); True when it was there.

    An `anon-KEY` id (a dispatch whose harness sent no tool_use_id) releases
    the oldest entry taken under that key: the same agent and prompt.
    """

    def remove(ledger: "list[Any]") -> bool:
        before = len(ledger)
        if tool_use_id.startswith("anon-"):
            for index, entry in enumerate(ledger):
                if _held_by(entry, tool_use_id):
                    del ledger[index]
                    return True
            return False
        ledger[:] = [e for e in ledger if not _held_by(e, tool_use_id)]
        return len(ledger) != before

    return _update_ledger(root, slug, remove)


def agent_slot(agent_id: str) -> str:
    """The ledger id of a dispatch running in the background as agent `agent_id`
    (Claude Code's `agentId`): a digest, so nothing in the ledger names the agent."""
    import hashlib

    raw = f"zodyssey-slot-agent\x00{agent_id}".encode("utf-8", "surrogatepass")
    return "agent-" + hashlib.sha256(raw).hexdigest()[:32]


def rebind_slot(root: "str | os.PathLike[str]", slug: str, tool_use_id: str, agent_id: str) -> bool:
    """A dispatch the harness started in the background returned at once: its slot
    stays taken, now under the agent's id, until that agent stops (SubagentStop,
    `release_slot(..., agent_slot(agent_id))`) or the entry expires
    (DISPATCH_TTL_SECONDS). True when the entry was there."""
    new_id = agent_slot(agent_id)

    def rename(ledger: "list[Any]") -> bool:
        if any(_stopped_mark(e, new_id) for e in ledger):
            # That agent stopped before its launch was reported: nothing is in flight.
            ledger[:] = [e for e in ledger if not (_held_by(e, tool_use_id) or _held_by(e, new_id))]
            return True
        for entry in ledger:
            if _held_by(entry, tool_use_id):
                entry["id"] = new_id
                return True
        return False

    return _update_ledger(root, slug, rename)


def _stopped_mark(entry: "Any", slot_id: str) -> bool:
    """The entry is the mark of agent slot `slot_id` stopped before its launch report."""
    return isinstance(entry, dict) and entry.get("id") == slot_id and entry.get("stopped") is True


# The most stopped-agent marks the ledger keeps (each also expires with DISPATCH_TTL_SECONDS).
MAX_STOPPED_MARKS = 64


def stop_agent(root: "str | os.PathLike[str]", slug: str, agent_id: str) -> bool:
    """Agent `agent_id` stopped (SubagentStop): free the background slot it holds. When
    none is held yet (the harness ran the stop's hook before the launch report's), mark
    it stopped, a mark that holds no slot, so `rebind_slot` frees the dispatch's slot
    instead of re-keying it. True when a slot was freed."""
    slot_id = agent_slot(agent_id)

    def release_or_mark(ledger: "list[Any]") -> bool:
        before = len(ledger)
        ledger[:] = [e for e in ledger if not _held_by(e, slot_id) or _stopped_mark(e, slot_id)]
        if len(ledger) != before:
            return True
        if any(_stopped_mark(e, slot_id) for e in ledger):
            return False  # the same stop again: marked once
        marks = [e for e in ledger if isinstance(e, dict) and e.get("stopped")]
        for old in marks[: max(0, len(marks) + 1 - MAX_STOPPED_MARKS)]:
            ledger.remove(old)
        ledger.append({"id": slot_id, "stopped": True, "at": store.now_iso()})
        return False

    return _update_ledger(root, slug, release_or_mark)


def _pend_review(root: str, ctx: "RunContext", key: str, agent: str, harness: str) -> None:
    """Record the reviewer dispatch whose reported answer will be the round's verdict.

    The state keeps a digest of the dispatch's id (the harness's tool_use_id,
    else the key of its owner, agent and prompt), the plan hash the reviewer
    is about to read, and when: nothing the agent could hand back to open the
    gate. Only the post-tool hook the harness runs for this very dispatch
    records its verdict (`zodyssey.runs.review.record_reported`).
    """
    from zodyssey.runs.review import dispatch_digest

    pending = {
        "sha256": dispatch_digest(key),
        "agent": agent,
        "harness": harness,
        "plan_sha256": ctx.plan().sha256,
        "at": store.now_iso(),
    }

    def put(state: "dict[str, Any]") -> None:
        review = state.get("review")
        if not isinstance(review, dict):
            review = {}
            state["review"] = review
        review["pending_dispatch"] = pending
        review["pending_nonce"] = None

    store.RunStore(root, ctx.slug).update(put)


def _take_locks(
    root: str,
    ctx: "RunContext",
    owner: str,
    wanted: "Sequence[tuple[str, str | None]]",
    session: str = "",
) -> None:
    def take(state: "dict[str, Any]") -> None:
        locks = state.get("file_locks")
        if not isinstance(locks, dict):
            locks = {}
            state["file_locks"] = locks
        # Re-check against the state as it is now, not the snapshot.
        view = RunContext(ctx.layout, ctx.slug, state, plan=ctx.plan, now=ctx.now)
        for rel, _ in wanted:
            holder = live_lock(locks.get(rel), view)
            if holder is not None and not same_session(locks.get(rel), holder, owner, session):
                raise Refused(f"{rel} is locked by {holder}; wait for its todo to finish")
        stamp = store.now_iso()
        for rel, todo in wanted:
            held = locks.get(rel)
            if live_lock(held, view) not in (None, owner):
                continue  # the same session's lock stays its holder's
            locks[rel] = {"session": owner, "todo": todo, "acquired_at": stamp}
            if session:
                locks[rel]["session_id"] = session
        active = state.get("active_todos")
        todos = {todo for _, todo in wanted if todo is not None}
        if len(todos) == 1:
            if not isinstance(active, dict):
                active = {}
                state["active_todos"] = active
            active.setdefault(owner, next(iter(todos)))

    store.RunStore(root, ctx.slug).update(take)


# Each effect kind and what carries it out (a slot's handler returns the slot taken).
_HANDLERS = {"slot": _slot, "review": _review, "locks": _locks, "ungated": _ungated}
