"""Honest wording, one count, advice once per kind; exemptions and markers exactly where written."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.helpers.anchors import SOURCE, check_json, commit, kinds, make_repo, run_cli, write


def exempt(repo: Path, *entries: str) -> None:
    path = repo / "anchors/anchors.lock.json"
    lock = json.loads(path.read_text())
    lock["exempt"] = list(entries)
    path.write_text(json.dumps(lock, indent=2) + "\n")


def test_exempt_hides_only_the_citation_written_that_way(repo: Path) -> None:
    write(repo, "docs/template.md", "Write citations like app.py:2 in your docs.\n")
    write(repo, "docs/real.md", "The second step is src/app.py:2.\n")
    assert run_cli(repo, "--update").returncode == 0
    exempt(repo, "app.py:2")
    write(repo, "src/app.py", SOURCE.replace("return 2\n", "return -2\n"))
    code, payload = check_json(repo)
    assert code == 9, "the real citation in another document is still checked"
    assert kinds(payload) == {"drift": ["src/app.py:2"]}
    assert payload["problems"][0]["sites"] == [
        {"doc": "docs/real.md", "line": 1, "cited_as": "src/app.py:2"}
    ]


def test_never_all_match_when_something_was_not_checked(repo: Path) -> None:
    write(repo, "docs/a.md", "Real src/app.py:3; example nowhere.py:9.\n")
    write(repo, "docs/skip.md", "<!-- anchor-lock: ignore -->\nsrc/app.py:4\n")
    assert run_cli(repo, "--update").returncode == 9  # nowhere.py cannot be pinned
    exempt(repo, "nowhere.py:9")
    done = run_cli(repo)
    assert done.returncode == 0, done.stdout
    assert "all resolve and match the lock" not in done.stdout
    assert "1 exempt" in done.stdout and "1 document(s) skipped" in done.stdout


def test_one_count_across_text_json_and_junit(repo: Path) -> None:
    write(repo, "docs/a.md", "src/app.py:3 and app.py:3 and src/app.py:4-5, gone.py:2\n")
    write(repo, "docs/b.md", "again src/app.py:3 and missing.py:1\n")
    run_cli(repo, "--update")
    assert check_json(repo)[0] == 9
    payload = check_json(repo)[1]
    checked = payload["checked"]
    assert checked == 4  # src/app.py:3, src/app.py:4-5, ?gone.py:2, ?missing.py:1
    text = run_cli(repo)
    assert f"across 6 citation sites ({checked} spans) in 2 of 2 documents" in text.stdout
    assert payload["tally"] == {"sites": 6, "spans": checked, "documents": 2, "scanned": 2}
    junit = run_cli(repo, "--format", "junit")
    suite = ET.fromstring(junit.stdout).find("testsuite")
    assert suite is not None
    cases = [c for c in suite.iter("testcase") if c.get("classname") == "zodyssey.anchors"]
    assert len(cases) == checked
    sarif = json.loads(run_cli(repo, "--format", "sarif").stdout)
    assert sarif["runs"][0]["properties"]["checked"] == checked


def test_advice_once_per_kind(repo: Path) -> None:
    write(repo, "docs/a.md", "src/app.py:3 src/app.py:5 src/app.py:7 src/app.py:9\n")
    assert run_cli(repo, "--update").returncode == 0
    write(repo, "src/app.py", "# new first line\n" + SOURCE)
    done = run_cli(repo)
    assert done.returncode == 9
    assert done.stdout.count("--fix") == 1, done.stdout
    assert "--update" not in done.stdout, "re-pinning is not the advice for moved citations"


def test_no_lock_advises_seeding_from_history(repo: Path) -> None:
    write(repo, "docs/a.md", "src/app.py:3\n")
    done = run_cli(repo)
    assert done.returncode == 9
    assert "--update --from-history" in done.stdout


def test_no_control_bytes_from_binary_files(repo: Path) -> None:
    (repo / "src/blob.py").write_bytes(b"ok = 1\n\x1b[31mred\x07bell\x00nul\n")
    write(repo, "docs/a.md", "src/blob.py:2\n")
    assert run_cli(repo, "--update").returncode == 0
    (repo / "src/blob.py").write_bytes(b"ok = 1\n\x1b[32mgreen\x08\x00\n")
    for args in ((), ("--json",), ("--format", "sarif"), ("--format", "github")):
        done = run_cli(repo, *args)
        assert done.returncode == 9
        assert not any(ch in done.stdout for ch in "\x1b\x07\x08\x00"), args


def test_ignore_line_applies_where_the_comment_stands(tmp_path: Path) -> None:
    doc = (
        "Mark a line with `<!-- anchor-lock: ignore-line -->` to skip it,\n"
        "so src/app.py:3 here is a real citation,\n"
        "and this one is skipped: src/app.py:99 <!-- anchor-lock: ignore-line -->\n"
    )
    repo = make_repo(tmp_path / "repo", {"src/app.py": SOURCE, "docs/a.md": doc})
    assert run_cli(repo, "--update").returncode == 0
    code, payload = check_json(repo)
    assert code == 0, payload["problems"]
    assert payload["checked"] == 1
    lock = json.loads((repo / "anchors/anchors.lock.json").read_text())
    assert list(lock["citations"]) == ["src/app.py:3"]


def test_unclosed_ignore_region_is_an_error(repo: Path) -> None:
    write(
        repo,
        "docs/a.md",
        "src/app.py:3\n\n<!-- anchor-lock: ignore-begin -->\nexample.py:1\n\nsrc/app.py:99\n",
    )
    done = run_cli(repo)
    assert done.returncode == 2
    assert "docs/a.md:3" in done.stderr and "ignore-end" in done.stderr
    assert "Traceback" not in done.stderr


def test_stale_note_says_which_document_still_writes_it(repo: Path) -> None:
    write(repo, "docs/a.md", "src/app.py:3\n\nsrc/app.py:4\n")
    assert run_cli(repo, "--update").returncode == 0
    write(repo, "docs/a.md", "src/app.py:3\n\n<!-- src/app.py:4 -->\n")
    done = run_cli(repo)
    assert done.returncode == 0
    assert "stale src/app.py:4 is still written at docs/a.md:3" in done.stdout
    strict = run_cli(repo, "--strict")
    assert strict.returncode == 9 and "docs/a.md:3" in strict.stdout
    update = run_cli(repo, "--update")
    assert "docs/a.md:3 still writes it" in update.stdout


def test_history_counts_as_the_check_does(repo: Path) -> None:
    # One wording of counts in every mode: sites (each citation as written), the
    # spans they name, documents citing of documents read; `--history` once said
    # "44 citations in 9 documents" where the check said "40 in 77".
    write(repo, "docs/a.md", "src/app.py:3 and app.py:3 and src/app.py:4-5\n")
    write(repo, "docs/b.md", "again src/app.py:3\n")
    write(repo, "docs/c.md", "no citations here\n")
    run_cli(repo, "--update")
    commit(repo, "docs")
    check = check_json(repo)[1]
    history = check_json(repo, "--history")[1]
    assert (
        check["tally"]
        == history["tally"]
        == {
            "sites": 4,
            "spans": 2,
            "documents": 2,
            "scanned": 3,
        }
    )
    assert (check["checked"], check["documents"]) == (history["checked"], history["documents"])
    words = "4 citation sites (2 spans) in 2 of 3 documents"
    assert words in run_cli(repo).stdout
    assert words in run_cli(repo, "--history").stdout
