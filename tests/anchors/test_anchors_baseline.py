"""The adoption baseline: `check-anchors --update --baseline` on a repository whose
documents cite what cannot be pinned, as real repositories do (ambiguous bare names
such as `mod.rs:3`, blank or comment-only lines, lines past the end, deleted files).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers import run_zodyssey
from tests.helpers.anchors import check_json, commit, git, make_repo, run_cli, write

RUST_A = "pub mod net;\n\npub fn connect() -> u32 {\n    7\n}\n"
RUST_B = "pub mod db;\n"
GO = "package x\n\n//\nfunc Run() int {\n\treturn 1\n}\n"

DOC = """# Design

The connection starts in mod.rs:3 and returns src/a/mod.rs:4.
The blank line src/app.go:2 and the marker src/app.go:3 carry nothing.
Past the end: src/app.go:40. The old engine was legacy/engine.go:5.
A brace-only line has content to pin: src/app.go:6.
"""


def adopt_repo(tmp_path: Path) -> Path:
    """A repository as one meets it: citations written long ago, some unpinnable."""
    repo = make_repo(
        tmp_path / "repo",
        {
            "src/a/mod.rs": RUST_A,
            "src/b/mod.rs": RUST_B,
            "src/app.go": GO,
            "legacy/engine.go": "package legacy\n\n\n\nfunc Old() {}\n",
            "docs/design.md": DOC,
        },
    )
    git(repo, "rm", "-q", "legacy/engine.go")
    commit(repo, "drop the old engine")
    return repo


def baseline_of(repo: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((repo / "anchors/anchors.baseline.json").read_text())
    return data


def test_update_baseline_reaches_green_and_records_each_site(tmp_path: Path) -> None:
    repo = adopt_repo(tmp_path)
    # Before: --update cannot reach green (the state issue 36 describes).
    assert run_cli(repo, "--update").returncode == 9
    done = run_cli(repo, "--update", "--baseline")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "anchors/anchors.baseline.json" in done.stdout
    entries = {(e["cited_as"], e["kind"]) for e in baseline_of(repo)["entries"]}
    assert entries == {
        ("mod.rs:3", "ambiguous"),
        ("src/app.go:2", "contentless"),
        ("src/app.go:3", "contentless"),
        ("src/app.go:40", "out-of-range"),
        ("legacy/engine.go:5", "gone"),
    }
    assert all(e["doc"] == "docs/design.md" and e["line"] > 0 for e in baseline_of(repo)["entries"])
    code, payload = check_json(repo)
    assert code == 0, payload
    assert payload["baseline"]["remaining"] == 5
    assert payload["baseline"]["fixed"] == []
    text = run_cli(repo)
    assert text.returncode == 0
    assert "5 baselined problem(s) remain" in text.stdout
    # zodyssey check (the CI command) agrees.
    whole = run_zodyssey("check", "--root", str(repo), cwd=repo, env={"NO_COLOR": "1"})
    assert whole.returncode == 0, whole.stdout + whole.stderr


def test_new_broken_citation_still_fails(tmp_path: Path) -> None:
    repo = adopt_repo(tmp_path)
    assert run_cli(repo, "--update", "--baseline").returncode == 0
    write(repo, "docs/new.md", "Also src/app.go:99 and src/b/mod.rs:1.\n")
    code, payload = check_json(repo)
    assert code == 9
    kinds = {(p["kind"], p["cited_as"]) for p in payload["problems"]}
    assert kinds == {("out-of-range", "src/app.go:99"), ("unlocked", "src/b/mod.rs:1")}
    # The same broken spelling in another document is not covered by the first one's entry.
    write(repo, "docs/new.md", "Again mod.rs:3.\n")
    code, payload = check_json(repo)
    assert code == 9
    assert [p["kind"] for p in payload["problems"]] == ["ambiguous"]


def test_edits_above_a_baselined_citation_keep_it_matched(tmp_path: Path) -> None:
    repo = adopt_repo(tmp_path)
    assert run_cli(repo, "--update", "--baseline").returncode == 0
    doc = repo / "docs/design.md"
    doc.write_text("Intro.\n\n" + doc.read_text())
    code, payload = check_json(repo)
    assert code == 0, payload


def test_fixed_entry_warns_and_update_baseline_drops_it(tmp_path: Path) -> None:
    repo = adopt_repo(tmp_path)
    assert run_cli(repo, "--update", "--baseline").returncode == 0
    doc = repo / "docs/design.md"
    doc.write_text(doc.read_text().replace("src/app.go:40", "src/app.go:5"))
    assert run_cli(repo, "--update").returncode == 0  # pins the corrected citation
    text = run_cli(repo)
    assert text.returncode == 0, text.stdout
    assert "warning: 1 baseline entry is fixed now" in text.stdout
    assert "`src/app.go:40`" in text.stdout
    code, payload = check_json(repo)
    assert code == 0
    assert [e["cited_as"] for e in payload["baseline"]["fixed"]] == ["src/app.go:40"]
    assert run_cli(repo, "--update", "--baseline").returncode == 0
    assert "src/app.go:40" not in {e["cited_as"] for e in baseline_of(repo)["entries"]}
    assert "fixed now" not in run_cli(repo).stdout


def test_entry_whose_citation_changed_fails(tmp_path: Path) -> None:
    repo = adopt_repo(tmp_path)
    assert run_cli(repo, "--update", "--baseline").returncode == 0
    # The cited file grew: line 40 holds content now, so the citation is checkable again.
    write(repo, "src/app.go", GO + "".join(f"// {i}\nvar v{i} = {i}\n" for i in range(20)))
    code, payload = check_json(repo)
    assert code == 9, payload
    [problem] = payload["problems"]
    assert (problem["kind"], problem["cited_as"]) == ("unlocked", "src/app.go:40")
    assert "its citation changed" in problem["detail"]
    assert [e["cited_as"] for e in payload["baseline"]["changed"]] == ["src/app.go:40"]


def test_gone_and_unresolved_are_one_kind(tmp_path: Path) -> None:
    """A shallow clone cannot name a deleting commit: the entry must still match there."""
    repo = adopt_repo(tmp_path)
    assert run_cli(repo, "--update", "--baseline").returncode == 0
    commit(repo, "adopt")
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    code, payload = check_json(shallow)
    assert code == 0, payload
    assert payload["baseline"]["changed"] == []


def shallow_clone(repo: Path, tmp_path: Path) -> Path:
    commit(repo, "adopt")
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    return shallow


def test_shallow_clone_still_reads_a_deleted_files_bare_name(tmp_path: Path) -> None:
    """Only history makes `engine.go:5` a citation once its file is deleted; the baseline
    names the file, so a shallow clone (CI's default) reads it too, and passes."""
    repo = adopt_repo(tmp_path)
    write(repo, "docs/old.md", "The old loop was engine.go:5.\n")
    assert run_cli(repo, "--update", "--baseline").returncode == 0
    [entry] = [e for e in baseline_of(repo)["entries"] if e["cited_as"] == "engine.go:5"]
    assert (entry["kind"], entry["target"]) == ("gone", "legacy/engine.go")
    shallow = shallow_clone(repo, tmp_path)
    code, payload = check_json(shallow)
    assert code == 0, payload
    assert payload["baseline"]["fixed"] == []
    assert payload["baseline"]["remaining"] == 6


def test_shallow_clone_never_guesses_another_file_for_a_gone_name(tmp_path: Path) -> None:
    """Without history `retry.go:2` would resolve to the only file whose name ends with
    it (`task_retry.go`): an `unlocked` citation, a changed entry, a red CI."""
    repo = make_repo(
        tmp_path / "repo",
        {
            "legacy/retry.go": "package legacy\n\nfunc Retry() {}\n",
            "api/task_retry.go": "package api\n\nfunc TaskRetry() {}\n",
            "docs/a.md": "Retries: retry.go:3.\n",
        },
    )
    git(repo, "rm", "-q", "legacy/retry.go")
    commit(repo, "drop legacy")
    assert run_cli(repo, "--update", "--baseline").returncode == 0
    assert [(e["cited_as"], e["kind"]) for e in baseline_of(repo)["entries"]] == [
        ("retry.go:3", "gone")
    ]
    shallow = shallow_clone(repo, tmp_path)
    code, payload = check_json(shallow)
    assert code == 0, payload
    assert payload["baseline"]["changed"] == []


def test_entry_still_written_but_unread_is_kept_not_fixed(tmp_path: Path) -> None:
    """A baseline without `target` (hand-written, or older): in a shallow clone the bare
    name is prose; the entry is still written, so it is kept, never a warning."""
    repo = adopt_repo(tmp_path)
    write(repo, "docs/old.md", "The old loop was engine.go:5.\n")
    assert run_cli(repo, "--update", "--baseline").returncode == 0
    path = repo / "anchors/anchors.baseline.json"
    data = json.loads(path.read_text())
    for entry in data["entries"]:
        entry.pop("target", None)
    path.write_text(json.dumps(data, indent=2) + "\n")
    shallow = shallow_clone(repo, tmp_path)
    code, payload = check_json(shallow)
    assert code == 0, payload
    assert payload["baseline"]["fixed"] == []
    assert [e["cited_as"] for e in payload["baseline"]["unread"]] == ["engine.go:5"]
    text = run_cli(shallow)
    assert "fixed now" not in text.stdout
    assert "not read as a citation here" in text.stdout
    # Removed from the document, the entry is fixed (a warning) in the shallow clone too.
    write(shallow, "docs/old.md", "The old loop is gone.\n")
    code, payload = check_json(shallow)
    assert [e["cited_as"] for e in payload["baseline"]["fixed"]] == ["engine.go:5"]


def test_json_sites_carry_each_spelling(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {"src/app.go": GO, "docs/a.md": "See app.go:2 and src/app.go:2.\n"},
    )
    code, payload = check_json(repo)
    assert code == 9
    [problem] = payload["problems"]
    assert {s["cited_as"] for s in problem["sites"]} == {"app.go:2", "src/app.go:2"}


def test_fix_respects_the_baseline(tmp_path: Path) -> None:
    repo = adopt_repo(tmp_path)
    write(repo, "src/run.go", GO)
    write(repo, "docs/more.md", "Run: src/run.go:4.\n")
    assert run_cli(repo, "--update", "--baseline").returncode == 0
    commit(repo, "adopt")
    write(repo, "src/run.go", "// header\n" + GO)
    done = run_cli(repo, "--fix")
    assert done.returncode == 0, done.stdout
    assert "rewrote 1 moved citation(s)" in done.stdout
    assert "5 baselined problem(s) remain" in done.stdout


def test_baseline_only_with_update(tmp_path: Path) -> None:
    repo = adopt_repo(tmp_path)
    proc = run_cli(repo, "--baseline")
    assert proc.returncode == 2
    assert "--baseline only applies to --update" in proc.stderr


def test_malformed_baseline_is_exit_2(tmp_path: Path) -> None:
    repo = adopt_repo(tmp_path)
    assert run_cli(repo, "--update", "--baseline").returncode == 0
    (repo / "anchors/anchors.baseline.json").write_text('{"entries": {}}\n')
    proc = run_cli(repo)
    assert proc.returncode == 2
    assert "no `entries` list" in proc.stderr


def test_moved_is_never_baselined(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {"src/app.go": GO, "docs/a.md": "Run starts at src/app.go:4.\n"},
    )
    assert run_cli(repo, "--update").returncode == 0
    commit(repo, "pin")
    write(repo, "src/app.go", "// header\n" + GO)
    done = run_cli(repo, "--update", "--baseline")
    assert done.returncode == 9, done.stdout
    assert "moved" in done.stdout
    assert not (repo / "anchors/anchors.baseline.json").exists()


# ---- ambiguous bare names: which file is meant -------------------------------------------


def test_suggests_the_candidate_that_has_those_lines(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {"src/a/mod.rs": RUST_A, "src/b/mod.rs": RUST_B, "docs/a.md": "Start: mod.rs:3.\n"},
        commit=False,  # no history to ask: what the files hold now decides
    )
    _code, payload = check_json(repo)
    [problem] = payload["problems"]
    assert problem["kind"] == "ambiguous"
    assert problem["suggestion"] == "src/a/mod.rs"
    assert "the only one that has those lines" in problem["detail"]


def test_suggests_the_folder_the_document_cites(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {
            "src/a/mod.rs": RUST_A,
            "src/b/mod.rs": RUST_A,
            "src/b/util.rs": "pub fn util() {}\n",
            "docs/a.md": "Start: mod.rs:3, helper src/b/util.rs:1.\n",
        },
        commit=False,
    )
    _code, payload = check_json(repo)
    [problem] = [p for p in payload["problems"] if p["kind"] == "ambiguous"]
    assert problem["suggestion"] == "src/b/mod.rs"
    assert "cites other files of its folder" in problem["detail"]


def test_history_outweighs_what_the_files_hold_now(tmp_path: Path) -> None:
    """The meant file has drifted (its line 3 is blank now); when the line was written,
    only it had content there. History decides, not today's content."""
    repo = make_repo(
        tmp_path / "repo",
        {"src/a/mod.rs": RUST_A, "src/b/mod.rs": "x\ny\n\n", "docs/a.md": "Start: mod.rs:3.\n"},
    )
    write(repo, "src/a/mod.rs", "pub mod net;\n\n\n" + RUST_A)
    write(repo, "src/b/mod.rs", RUST_A)
    commit(repo, "edits since")
    _code, payload = check_json(repo)
    [problem] = payload["problems"]
    assert problem["suggestion"] == "src/a/mod.rs", problem["detail"]


def test_suggests_from_history_when_the_line_was_written(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"src/a/mod.rs": RUST_A, "docs/a.md": "Start: mod.rs:3.\n"})
    write(repo, "src/b/mod.rs", RUST_A)  # the same shape, added after the citation
    commit(repo, "second module")
    _code, payload = check_json(repo)
    [problem] = payload["problems"]
    assert problem["suggestion"] == "src/a/mod.rs"
    assert "when the line was written" in problem["detail"]


def test_no_suggestion_when_nothing_decides(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {"src/a/mod.rs": RUST_A, "src/b/mod.rs": RUST_A, "docs/a.md": "Start: mod.rs:3.\n"},
    )
    _code, payload = check_json(repo)
    [problem] = payload["problems"]
    assert problem["suggestion"] is None
    assert "probably" not in problem["detail"]


def test_init_counts_what_can_and_cannot_be_pinned(tmp_path: Path) -> None:
    repo = adopt_repo(tmp_path)
    proc = run_zodyssey("init", "--root", str(repo), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "2 can be pinned, 5 cannot" in proc.stdout, proc.stdout
    assert "check-anchors --update --baseline" in proc.stdout
    assert run_cli(repo, "--update", "--baseline").returncode == 0
    whole = run_zodyssey("check", "--root", str(repo), cwd=repo)
    assert whole.returncode == 0, whole.stdout + whole.stderr
