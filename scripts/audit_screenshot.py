"""Screenshot of the audit's HTML report, for the docs.

    python scripts/audit_screenshot.py [-o docs/images/audit-report.png] [--html REPORT.html]

Without --html it makes a small demo run with the real `zodyssey run` commands
in a temporary git repository (one todo verified, one forced after a failing
criterion, an auditor that writes during its read-only window), audits it to
HTML, and photographs the page with headless chromium (Debian's `chromium`;
set ZODYSSEY_CHROMIUM to use another binary). Exit 2 when no browser is found.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PLAN = """\
# Add a greeting endpoint
## Todos
- [ ] 1. Write the greeting
  - Files: [`greeting.txt`]
  - Acceptance criteria:
    - `test -f greeting.txt` exits 0
    - `grep -q hello greeting.txt`
- [ ] 2. Document it
  - Files: [`README.md`]
  - Acceptance criteria:
    - `grep -q greeting README.md`
    - `grep -q endpoint README.md`
"""


def _run(args: list[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> None:
    result = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    if result.returncode not in ok:
        raise SystemExit(f"{' '.join(args)} failed ({result.returncode}): {result.stderr}")


def _zrun(root: Path, *args: str, ok: tuple[int, ...] = (0,)) -> None:
    _run(
        [sys.executable, "-m", "zodyssey", "run", args[0], "--repo", str(root), *args[1:]], root, ok
    )


def demo_report(folder: Path) -> Path:
    root = folder / "repo"
    root.mkdir()
    _run(["git", "init", "-q"], root)
    _run(["git", "config", "user.email", "demo@example.invalid"], root)
    _run(["git", "config", "user.name", "demo"], root)
    (root / "README.md").write_text("demo\n")
    (root / "plan.md").write_text(PLAN)
    _run(["git", "add", "."], root)
    _run(["git", "commit", "-qm", "init"], root)
    _zrun(root, "start", "greeting", "--plan", str(root / "plan.md"))
    _zrun(
        root,
        "review",
        "greeting",
        "--human",
        "REJECT",
        "--by",
        "Ada",
        "--comment",
        "criteria too vague",
    )
    _zrun(root, "review", "greeting", "--human", "OKAY", "--by", "Ada")
    (root / "greeting.txt").write_text("hello\n")
    (root / "README.md").write_text("the greeting\n")
    _zrun(root, "verify", "greeting", "1")
    _zrun(root, "todo", "greeting", "1", "done")
    _zrun(root, "verify", "greeting", "2", ok=(1,))
    _zrun(
        root,
        "todo",
        "greeting",
        "2",
        "done",
        "--force-done",
        "--reason",
        "endpoint wording agreed later",
    )
    _zrun(root, "window", "greeting", "--label", "external-audit", "--", "git", "status")
    _zrun(
        root,
        "window",
        "greeting",
        "--label",
        "second-auditor",
        "--",
        "sh",
        "-c",
        "echo note >> README.md",
        ok=(1,),
    )
    page = folder / "audit.html"
    _run(
        [
            sys.executable,
            "-m",
            "zodyssey",
            "audit",
            "--repo",
            str(root),
            "greeting",
            "--format",
            "html",
            "-o",
            str(page),
        ],
        root,
        ok=(0, 1),
    )
    return page


def browser() -> str | None:
    for candidate in (
        os.environ.get("ZODYSSEY_CHROMIUM"),
        "/usr/bin/chromium",
        "chromium",
        "chromium-browser",
        "google-chrome",
    ):
        if candidate and (found := shutil.which(candidate)):
            return found
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description="Screenshot the audit HTML report.")
    parser.add_argument("-o", "--output", default="docs/images/audit-report.png")
    parser.add_argument("--html", help="an existing report to photograph")
    parser.add_argument("--size", default="1280,1700", help="window size WIDTH,HEIGHT")
    args = parser.parse_args()
    binary = browser()
    if binary is None:
        print(
            "no chromium found: apt-get install -y chromium, or set ZODYSSEY_CHROMIUM",
            file=sys.stderr,
        )
        return 2
    output = Path(args.output).resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        page = Path(args.html).resolve() if args.html else demo_report(Path(folder))
        result = subprocess.run(
            [
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--no-first-run",
                "--hide-scrollbars",
                f"--window-size={args.size}",
                f"--screenshot={output}",
                page.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "HOME": folder},
        )
    if result.returncode != 0 or not output.is_file():
        print(f"chromium failed: {result.stderr[-1000:]}", file=sys.stderr)
        return 1
    print(json.dumps({"screenshot": str(output), "bytes": output.stat().st_size}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
