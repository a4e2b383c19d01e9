"""Configuration advice works when followed, and one file holds one spelling (issue 36).

The hidden-folder hint used to print `[tool.zodyssey.anchors] include = [...]`
whatever the file in use; appended to the `.zodyssey.toml` that `zodyssey init`
writes, it made the loader read that table alone and silently drop every
top-level key (`documents`, `lock`, ...). These tests follow the advice as a
user would: copy what it says into the file it names, and check again.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.helpers import make_repo, run_zodyssey, write

ADVICE = re.compile(r"add (include = \[[^\]]*\]) under \[([\w.]+)\] in (\S+?)\)?$", re.MULTILINE)
FILES = {
    "src/a.py": "x = 1\ny = 2\n",
    ".notes/plan.md": "See src/a.py:1.\n",
    # Outside `documents`: scanned only if the setting were lost.
    "other/x.md": "See src/a.py:2.\n",
}


def _follow_the_hint(repo: Path) -> dict[str, object]:
    """Run the check, paste the hint's table and key into the file it names, check again."""
    first = run_zodyssey("anchors", "check", cwd=repo, env={"NO_COLOR": "1"})
    assert first.returncode == 0, first.stdout + first.stderr
    found = ADVICE.search(first.stdout)
    assert found, first.stdout
    line, table, name = found.groups()
    with (repo / name).open("a", encoding="utf-8") as config:
        config.write(f"\n[{table}]\n{line}\n")
    after = run_zodyssey("anchors", "check", "--json", cwd=repo, env={"NO_COLOR": "1"})
    assert after.returncode in (0, 9), after.stdout + after.stderr
    payload: dict[str, object] = json.loads(after.stdout)
    return {"table": table, "file": name, **payload}


def test_the_hint_followed_in_init_s_dot_zodyssey_toml_keeps_its_keys(tmp_path: Path) -> None:
    """Fails on the old code: the hint said [tool.zodyssey.anchors]; pasted into
    .zodyssey.toml, `documents` was dropped and other/x.md scanned too."""
    repo = make_repo(tmp_path / "repo", FILES, commit=False)
    assert run_zodyssey("init", cwd=repo).returncode == 0
    config = repo / ".zodyssey.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        re.sub(r"^documents = .*$", 'documents = ["docs/*.md", ".notes/*.md"]', text, flags=re.M),
        encoding="utf-8",
    )
    result = _follow_the_hint(repo)
    assert (result["table"], result["file"]) == ("anchors", ".zodyssey.toml")
    # The starter page and the hidden plan, not other/x.md: `documents` still holds.
    assert result["documents"] == 2
    assert [p["key"] for p in result["problems"]] == ["src/a.py:1"]  # type: ignore[attr-defined]
    assert result["left_out"]["documents"] == []  # type: ignore[index]


def test_the_hint_followed_in_pyproject_toml_keeps_its_keys(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {
            **FILES,
            "pyproject.toml": '[project]\nname = "demo"\n\n[tool.zodyssey]\n'
            'documents = ["docs/*.md", ".notes/*.md"]\n',
            "docs/guide.md": "See src/a.py:2.\n",
        },
    )
    assert run_zodyssey("anchors", "check", "--update", cwd=repo).returncode == 0
    result = _follow_the_hint(repo)
    assert (result["table"], result["file"]) == ("tool.zodyssey.anchors", "pyproject.toml")
    assert result["documents"] == 2
    assert [p["key"] for p in result["problems"]] == ["src/a.py:1"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", [("anchors", "check"), ("check",), ("claims", "check")])
def test_a_file_mixing_spellings_is_refused_naming_what_it_would_drop(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """Fails on the old code: the [tool.zodyssey] table was read alone, exit 0."""
    repo = make_repo(tmp_path / "repo", FILES, commit=False)
    write(
        repo,
        ".zodyssey.toml",
        'documents = ["docs/*.md"]\nlock = "anchors/anchors.lock.json"\n\n'
        '[tool.zodyssey.anchors]\ninclude = [".notes"]\n',
    )
    done = run_zodyssey(*command, cwd=repo, env={"NO_COLOR": "1"})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "mixes two spellings" in done.stderr
    assert "documents, lock dropped" in done.stderr


def test_one_spelling_either_way_is_read(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES, commit=False)
    for text in (
        'documents = [".notes/*.md"]\n\n[anchors]\ninclude = [".notes"]\n',
        '[tool.zodyssey]\ndocuments = [".notes/*.md"]\n\n[tool.zodyssey.anchors]\n'
        'include = [".notes"]\n',
    ):
        write(repo, ".zodyssey.toml", text)
        done = run_zodyssey("anchors", "check", "--json", cwd=repo)
        assert done.returncode == 9, done.stderr  # the plan's citation is not pinned yet
        assert json.loads(done.stdout)["documents"] == 1
