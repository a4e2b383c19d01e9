"""The HTML report in a real headless browser: it renders, and injected artifact text stays inert."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.audit.test_audit_cli import injected_run
from tests.helpers.audit import OursRun, audit_cli

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
]


def chromium() -> str:
    for candidate in (
        os.environ.get("ZODYSSEY_CHROMIUM"),
        "/usr/bin/chromium",
        "chromium",
        "chromium-browser",
        "google-chrome",
    ):
        if candidate and (found := shutil.which(candidate)):
            return found
    pytest.skip(
        "no headless chromium: install Debian's `chromium` (apt-get install -y chromium) "
        "or set ZODYSSEY_CHROMIUM to run the browser check of the HTML report"
    )


def dump_dom(browser: str, page: Path, home: Path) -> str:
    result = subprocess.run(
        [browser, *CHROMIUM_FLAGS, "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "HOME": str(home)},  # chromium writes its profile under HOME
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_report_renders_in_a_browser(tmp_path: Path) -> None:
    browser = chromium()
    run = OursRun(tmp_path / "repo").honest()
    page = tmp_path / "audit.html"
    assert audit_cli(run.root, run.slug, "--format", "html", "-o", str(page)).returncode == 0
    dom = dump_dom(browser, page, tmp_path)
    assert re.search(r'id="status" class="badge passed" data-exit="0">passed<', dom)
    assert dom.count('class="crit-row"') == 3
    assert 'id="timeline"' in dom and 'class="mark okay"' in dom


def test_injected_text_is_inert_in_a_browser(tmp_path: Path) -> None:
    browser = chromium()
    root = tmp_path / "repo"
    injected_run(root)
    page = tmp_path / "audit.html"
    result = audit_cli(root, "greet", "--format", "html", "-o", str(page))
    assert result.returncode == 1
    dom = dump_dom(browser, page, tmp_path)
    # Scripts did not run (they would have renamed the document) and no element was injected.
    assert "<title>zodyssey audit: greet</title>" in dom
    assert "pwned" not in dom.split("<body", 1)[0]
    body = dom.split("<body", 1)[1].lower()
    assert "<script" not in body and "<img" not in body
    # The text is still there for a person to read, as text.
    assert dom.count("&lt;script&gt;") >= 3
    assert '&lt;script&gt;document.title="pwned"&lt;/script&gt;' in dom
    assert 'id="status" class="badge failed"' in dom


def test_timeline_in_a_browser_names_phases_and_keeps_overlaps_apart(tmp_path: Path) -> None:
    from tests.audit.test_audit_verdicts import overlapping

    browser = chromium()
    run = overlapping(tmp_path / "repo")
    page = tmp_path / "audit.html"
    assert audit_cli(run.root, run.slug, "--format", "html", "-o", str(page)).returncode == 0
    dom = dump_dom(browser, page, tmp_path)
    labels = re.findall(r'<span class="plabel(?: end)?" style="[^"]*">([^<]+)</span>', dom)
    assert labels == ["plan", "execute", "done", "audited"]
    rows = re.findall(r'class="mark okay" data-row="(\d)" style="[^"]*top: (\d+)px', dom)
    assert ("1", "23") in rows  # the second window, one row down


def test_failed_js_run_in_a_browser_has_a_red_badge(tmp_path: Path) -> None:
    from tests.audit.test_audit_js_runs import materialize

    browser = chromium()
    root = materialize("done-todo-inflight", tmp_path)
    page = tmp_path / "audit.html"
    assert audit_cli(root, "greet", "--format", "html", "-o", str(page)).returncode == 1
    dom = dump_dom(browser, page, tmp_path)
    assert 'id="status" class="badge failed"' in dom
    assert 'id="final-verdict"' in dom and "done-with-open-todos" in dom
