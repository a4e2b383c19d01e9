"""docs/citation-lock.md's promises about symbol citations, through the real command."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

APP = (
    "import os\n\n\nclass Checker:\n    def run(self):\n        return 41\n\n"
    "    def other(self):\n        pass\n\n\ndef helper():\n    return 1\n"
)
README = "# Demo\n\n`src/app.py::Checker.run` answers; src/app.py::helper helps.\n"


def pinned_repo(lab: Any) -> Path:
    repo: Path = lab.repo()
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text(APP, encoding="utf-8")
    (repo / "README.md").write_text(README, encoding="utf-8")
    done = lab.zodyssey("anchors", "check", "--update", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    lab.commit(repo, "pinned")
    return repo


def check(lab: Any, repo: Path) -> tuple[int, dict[str, Any]]:
    done = lab.zodyssey("anchors", "check", "--json", cwd=repo)
    return done.returncode, json.loads(done.stdout)


def head(repo: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.mark.claim("symbol-moves-found")
def test_a_moved_symbol_is_found_where_it_is_now(lab: Any) -> None:
    repo = pinned_repo(lab)
    moved = "# inserted\n\n\n" + APP.replace(
        "    def run(self):\n        return 41\n\n    def other(self):\n        pass\n",
        "    def other(self):\n        pass\n\n    def run(self):\n        return 41\n",
    )
    (repo / "src" / "app.py").write_text(moved, encoding="utf-8")
    code, payload = check(lab, repo)
    assert code == 0 and payload["problems"] == [], payload
    assert (repo / "README.md").read_text(encoding="utf-8") == README
    # Control: the line citation of the same method, pinned the same way, is broken by it.
    (repo / "README.md").write_text(README + "Also src/app.py:5-6.\n", encoding="utf-8")
    (repo / "src" / "app.py").write_text(APP, encoding="utf-8")
    assert lab.zodyssey("anchors", "check", "--update", cwd=repo).returncode == 0
    (repo / "src" / "app.py").write_text(moved, encoding="utf-8")
    code, payload = check(lab, repo)
    assert code == 9 and {p["key"] for p in payload["problems"]} == {"src/app.py:5-6"}


@pytest.mark.claim("symbol-body-drift")
def test_a_changed_body_is_drift_with_the_diff(lab: Any) -> None:
    repo = pinned_repo(lab)
    pinned_at = head(repo)
    (repo / "src" / "app.py").write_text(APP.replace("return 41", "return 42"), encoding="utf-8")
    code, payload = check(lab, repo)
    assert code == 9
    [problem] = payload["problems"]
    assert (problem["kind"], problem["key"]) == ("drift", "src/app.py::Checker.run")
    assert "-        return 41" in problem["detail"] and "+        return 42" in problem["detail"]
    assert pinned_at[:12] in problem["detail"]


@pytest.mark.claim("symbol-gone-renamed")
def test_deleted_and_renamed_symbols_name_the_commit(lab: Any) -> None:
    repo = pinned_repo(lab)
    text = APP.replace("def helper():", "def assist():")
    text = text.replace("    def run(self):\n        return 41\n\n", "")
    (repo / "src" / "app.py").write_text(text, encoding="utf-8")
    lab.commit(repo, "rename helper, drop run")
    by = head(repo)
    code, payload = check(lab, repo)
    assert code == 9
    found = {p["key"]: p for p in payload["problems"]}
    assert found["src/app.py::Checker.run"]["kind"] == "gone"
    assert found["src/app.py::helper"]["kind"] == "unresolved"
    assert "`assist`" in found["src/app.py::helper"]["detail"]
    assert all(by[:12] in p["detail"] for p in found.values())
