"""The evidence chain detects edited, deleted, reordered and truncated records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers.runs import Repo
from zodyssey.core import paths
from zodyssey.core.vocabulary import GENESIS_HASH
from zodyssey.runs import evidence as chain


def build_chain(root: Path, count: int) -> list[dict[str, Any]]:
    return [
        chain.append_record(
            root,
            "demo",
            {
                "kind": "criterion",
                "slug": "demo",
                "todo": "1",
                "criterion_index": n,
                "command": f"echo {n}",
                "started_at": "2026-01-01T00:00:00Z",
                "finished_at": "2026-01-01T00:00:01Z",
                "duration_s": 1.0,
                "exit_code": 0,
                "passed": True,
            },
        )
        for n in range(1, count + 1)
    ]


def test_appended_chain_is_intact(tmp_path: Path) -> None:
    records = build_chain(tmp_path, 4)
    assert [r["seq"] for r in records] == [1, 2, 3, 4]
    assert records[0]["prev"] == GENESIS_HASH
    assert records[1]["prev"] == records[0]["hash"]
    read = chain.read_evidence(paths.evidence_path(tmp_path, "demo"))
    assert read.records == records
    assert (
        chain.verify_chain(read.records, expected_count=4, expected_head=records[-1]["hash"]) == []
    )


def test_edited_record_is_detected(tmp_path: Path) -> None:
    records = build_chain(tmp_path, 3)
    records[1]["exit_code"] = 1  # a failure rewritten ... or here a pass turned into a fail
    problems = chain.verify_chain(records)
    assert [p.seq for p in problems] == [2]
    assert "altered" in problems[0].message


def test_edited_record_with_recomputed_hash_breaks_the_next_link(tmp_path: Path) -> None:
    records = build_chain(tmp_path, 3)
    records[1]["exit_code"] = 1
    records[1]["hash"] = chain.record_hash(records[1])  # a careful forger
    problems = chain.verify_chain(records)
    assert [p.seq for p in problems] == [3]
    assert "does not follow" in problems[0].message


def test_deleted_record_is_detected(tmp_path: Path) -> None:
    records = build_chain(tmp_path, 4)
    del records[1]
    messages = [p.message for p in chain.verify_chain(records)]
    assert any("does not follow" in m for m in messages)
    assert any("has seq 3" in m for m in messages)


def test_reordered_records_are_detected(tmp_path: Path) -> None:
    records = build_chain(tmp_path, 4)
    records[1], records[2] = records[2], records[1]
    problems = chain.verify_chain(records)
    assert {p.seq for p in problems} >= {2, 3}


def test_truncated_tail_shows_against_the_state_head(tmp_path: Path) -> None:
    records = build_chain(tmp_path, 4)
    head = records[-1]["hash"]
    problems = chain.verify_chain(records[:3], expected_count=4, expected_head=head)
    assert problems and "recorded 4" in problems[0].message


def test_damaged_line_is_a_problem_not_an_exception(tmp_path: Path) -> None:
    build_chain(tmp_path, 2)
    path = paths.evidence_path(tmp_path, "demo")
    path.write_text(path.read_text() + "{half a record\n[]\n", encoding="utf-8")
    read = chain.read_evidence(path)
    assert len(read.records) == 2
    assert [p.line for p in read.problems] == [3, 4]


@settings(max_examples=60, deadline=None)
@given(
    count=st.integers(min_value=2, max_value=8),
    data=st.data(),
)
def test_any_single_tampering_is_detected(count: int, data: Any) -> None:
    records = chain.link_records(
        {
            "kind": "criterion",
            "todo": "1",
            "criterion_index": n,
            "command": f"echo {n}",
            "exit_code": 0,
            "duration_s": 0.5,
        }
        for n in range(1, count + 1)
    )
    action = data.draw(st.sampled_from(["edit", "delete", "swap", "duplicate"]))
    index = data.draw(st.integers(min_value=0, max_value=count - 1))
    tampered = [dict(r) for r in records]
    if action == "edit":
        key = data.draw(st.sampled_from(["exit_code", "command", "todo", "duration_s"]))
        old = tampered[index][key]
        replacement = data.draw(st.one_of(st.integers(), st.text(max_size=5), st.none()))
        if replacement == old:
            replacement = f"not {old!r}"
        tampered[index][key] = replacement
    elif action == "delete":
        del tampered[index]
    elif action == "swap":
        other = (index + 1) % count
        tampered[index], tampered[other] = tampered[other], tampered[index]
    else:
        tampered.insert(index, dict(tampered[index]))
    assert chain.verify_chain(tampered, expected_count=count, expected_head=records[-1]["hash"]), (
        action
    )


def test_cli_refuses_done_on_a_broken_chain(approved: Repo) -> None:
    repo = approved
    repo.write("greeting.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    path = paths.evidence_path(repo.root, "demo")
    lines = path.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[0])
    record["exit_code"] = 0
    record["criterion_text"] = "`true`"
    lines[0] = json.dumps(record, sort_keys=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = repo.run("todo", "demo", "1", "done")
    assert result.code == 11, result.text
    assert "evidence chain" in result.err and "altered" in result.err
    status = repo.run("status", "demo")
    assert "BROKEN" in status.out


@pytest.mark.parametrize("cut", ["delete-first", "truncate-last"])
def test_status_reports_a_cut_chain(approved: Repo, cut: str) -> None:
    repo = approved
    repo.write("greeting.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    path = paths.evidence_path(repo.root, "demo")
    lines = path.read_text(encoding="utf-8").splitlines()
    kept = lines[1:] if cut == "delete-first" else lines[:-1]
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    status = repo.run("status", "demo", "--json")
    summary = json.loads(status.out)["summary"]
    assert summary["chain_ok"] is False
    assert repo.run("todo", "demo", "1", "done").code == 11


def test_link_records_matches_append_record(tmp_path: Path) -> None:
    appended = build_chain(tmp_path, 3)
    bare = [{k: v for k, v in r.items() if k not in ("seq", "prev", "hash")} for r in appended]
    assert chain.link_records(bare) == appended
    path = paths.evidence_path(tmp_path, "demo")
    assert chain.dump_records(appended) == path.read_text(encoding="utf-8")
