"""`--json` on `init` and `claims update` (issue 36 item 7): one JSON object on
stdout that a script can read, the same facts the text gives. Both fail on the
old code (no such option: exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import make_repo, run_zodyssey

README = "# Demo\n\nThe answer is kept. <!-- claim: answer-kept -->\n"
TEST = "import pytest\n\n@pytest.mark.claim('answer-kept')\ndef test_answer():\n    pass\n"


def test_init_json_lists_every_file_it_wrote(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"src/a.py": "x = 1\n"}, commit=False)
    done = run_zodyssey("init", "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["root"] == str(repo.resolve())
    paths = {f["path"]: f["action"] for f in document["files"]}
    assert paths[".zodyssey.toml"] == "wrote"
    assert paths["anchors/anchors.lock.json"] == "wrote"
    for path in paths:
        assert (repo / path).is_file()
    again = json.loads(run_zodyssey("init", "--json", cwd=repo).stdout)
    assert {f["action"] for f in again["files"]} == {"kept"}
    assert isinstance(document["unpinned"], int)


def test_claims_update_json_says_what_it_wrote(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {
            "README.md": README,
            "tests/test_a.py": TEST,
            "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        },
        commit=False,
    )
    dry = run_zodyssey("claims", "update", "--json", "--dry-run", cwd=repo)
    assert dry.returncode == 0, dry.stderr
    document = json.loads(dry.stdout)
    assert (document["written"], document["dry_run"], document["claims"]) == (False, True, 1)
    assert document["changes"] and not (repo / document["ledger"]).exists()
    done = run_zodyssey("claims", "update", "--json", cwd=repo)
    document = json.loads(done.stdout)
    assert document["written"] is True and (repo / document["ledger"]).is_file()
    again = json.loads(run_zodyssey("claims", "update", "--json", cwd=repo).stdout)
    assert (again["written"], again["changes"]) == (False, [])
