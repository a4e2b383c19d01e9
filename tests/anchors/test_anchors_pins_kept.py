"""Pins that must not vanish with what surrounds them (issue 23, item 8).

A blob URL pinned while the remote was `old/proj` is still this repository's
citation after a transfer renames the remote, and in a copy of the tree
without `.git`; a CHANGELOG template inside an HTML comment or a `~~~` fence
does not end the scanned window; a Git LFS pointer is not content.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.helpers.anchors import (
    SOURCE,
    check_json,
    commit,
    git,
    kinds,
    make_repo,
    run_cli,
    write,
)

BLOB = "See https://github.com/old/proj/blob/main/src/a.py#L3 for the rule.\n"


def _pinned_blob(tmp_path: Path) -> Path:
    root = make_repo(
        tmp_path / "repo",
        {"src/a.py": SOURCE, "docs/a.md": BLOB},
        remote="https://github.com/old/proj.git",
    )
    assert run_cli(root, "--update").returncode == 0
    code, payload = check_json(root)
    assert code == 0 and payload["checked"] == 1, payload
    commit(root, "pin")
    return root


def _edit_cited_line(root: Path) -> None:
    write(root, "src/a.py", SOURCE.replace("return 3", "return 33"))


def test_a_blob_url_is_still_checked_after_the_remote_moved(tmp_path: Path) -> None:
    root = _pinned_blob(tmp_path)
    git(root, "remote", "set-url", "origin", "https://github.com/new-owner/proj.git")
    _edit_cited_line(root)
    code, payload = check_json(root)
    assert code == 9, payload
    assert kinds(payload) == {"drift": ["src/a.py:3"]}


def test_a_blob_url_is_still_checked_without_git(tmp_path: Path) -> None:
    root = _pinned_blob(tmp_path)
    copy = tmp_path / "export"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".git"))
    _edit_cited_line(copy)
    code, payload = check_json(copy)
    assert code == 9, payload
    assert kinds(payload) == {"drift": ["src/a.py:3"]}


def test_a_foreign_blob_url_never_pinned_stays_unread(tmp_path: Path) -> None:
    root = _pinned_blob(tmp_path)
    write(root, "docs/b.md", "Upstream: https://github.com/other/lib/blob/main/src/a.py#L5\n")
    code, payload = check_json(root)
    assert code == 0 and payload["checked"] == 1, payload


def _changelog(template: str) -> str:
    return (
        "# Changelog\n\n"
        + template
        + "\n## [Unreleased]\n- the rule is at src/a.py:3\n\n## [1.0.0]\n- old src/a.py:4\n"
    )


COMMENT = "<!--\nA release looks like this:\n## [x.y.z] - YYYY-MM-DD\n-->\n"
TILDES = "~~~markdown\n## [x.y.z] - YYYY-MM-DD\n~~~\n"
INLINE_COMMENT = "<!-- ## [x.y.z] - YYYY-MM-DD -->\n"


def test_a_changelog_template_in_a_comment_or_tilde_fence_does_not_end_the_window(
    tmp_path: Path,
) -> None:
    for number, template in enumerate((COMMENT, TILDES, INLINE_COMMENT)):
        root = make_repo(
            tmp_path / f"r{number}", {"src/a.py": SOURCE, "CHANGELOG.md": _changelog(template)}
        )
        assert run_cli(root, "--update").returncode == 0
        code, payload = check_json(root)
        assert payload["tally"]["sites"] == 1, (template, payload)
        _edit_cited_line(root)
        code, payload = check_json(root)
        assert code == 9, (template, payload)
        assert kinds(payload) == {"drift": ["src/a.py:3"]}


LFS = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    "size 12345\n"
)


def test_a_git_lfs_pointer_cited_by_line_is_not_pinned(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo", {"data/model.bin": LFS, "docs/a.md": "Weights: data/model.bin:2\n"}
    )
    update = run_cli(root, "--update")
    assert update.returncode == 9, update.stdout + update.stderr
    code, payload = check_json(root)
    assert code == 9, payload
    assert list(kinds(payload)) == ["unreadable"]
    assert "Git LFS pointer" in payload["problems"][0]["detail"]
