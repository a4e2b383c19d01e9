"""Benchmark: `check-anchors --history` on a repository with a long history.

Builds (with `git fast-import`, in a second or two) a repository of 2,000+
commits in which source files grow, get edited, renamed and deleted while
documents gain a few hundred citations over time; then times the history
check with one process and with `--jobs 2`.

Baseline, measured in the same run: one plain `git blame --porcelain` per
document, one after another: the git work no history check can avoid. The
ratio says what the tracing adds on top of it. Target: under 30 s.

    python bench/bench_history.py [--commits 2200] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 30.0


class HistoryBuilder:
    """Simulates a project's history in memory and writes it as a fast-import stream."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.files: dict[str, list[str]] = {}
        self.docs: dict[str, list[str]] = {}
        self.serial = 0
        self.citations = 0

    def _line(self, tag: str) -> str:
        self.serial += 1
        return f"    value_{self.serial} = compute('{tag}', {self.serial})  # step {self.serial}"

    def _new_source(self, path: str) -> None:
        self.files[path] = [
            f"def {path.replace('/', '_')[:-3]}_{n}():" if n % 12 == 0 else self._line(path)
            for n in range(self.rng.randint(120, 260))
        ]

    def _cite(self) -> str:
        path = self.rng.choice(sorted(self.files))
        size = len(self.files[path])
        start = self.rng.randint(1, size - 3)
        width = self.rng.choice((0, 0, 1, 2))
        self.citations += 1
        span = str(start) if width == 0 else f"{start}-{start + width}"
        return f"The step at {path}:{span} explains case {self.citations}."

    def commits(
        self, count: int, documents: int, target_citations: int
    ) -> list[dict[str, str | None]]:
        """Each commit: the changed paths and their new text (None: deleted)."""
        out: list[dict[str, str | None]] = []
        first: dict[str, str | None] = {}
        for n in range(60):
            path = f"src/pkg{n % 6}/module_{n}.py"
            self._new_source(path)
            first[path] = "\n".join(self.files[path]) + "\n"
        for n in range(documents):
            doc = f"docs/guide_{n}.md"
            self.docs[doc] = [f"# Guide {n}", ""]
            first[doc] = "\n".join(self.docs[doc]) + "\n"
        out.append(first)
        cite_every = max(1, (count - 1) // max(1, target_citations))
        for index in range(1, count):
            change: dict[str, str | None] = {}
            path = self.rng.choice(sorted(self.files))
            lines = self.files[path]
            roll = self.rng.random()
            if roll < 0.45:  # insert lines: later citations below shift (moved)
                at = self.rng.randint(0, len(lines))
                lines[at:at] = [self._line("ins") for _ in range(self.rng.randint(1, 4))]
            elif roll < 0.85:  # edit one line (drift when cited)
                lines[self.rng.randrange(len(lines))] = self._line("edit")
            elif roll < 0.93 and len(lines) > 40:  # remove a few lines
                at = self.rng.randrange(len(lines) - 5)
                del lines[at : at + self.rng.randint(1, 3)]
            elif roll < 0.99:  # rename (git mv)
                new = path.replace(".py", f"_r{index}.py")
                self.files[new] = self.files.pop(path)
                change[path] = None
                path = new
            else:  # delete and replace by a new module
                del self.files[path]
                change[path] = None
                path = f"src/pkg{index % 6}/fresh_{index}.py"
                self._new_source(path)
            change[path] = "\n".join(self.files[path]) + "\n"
            if index % cite_every == 0 and self.citations < target_citations:
                doc = f"docs/guide_{(index // cite_every) % documents}.md"
                self.docs[doc] += [self._cite(), ""]
                change[doc] = "\n".join(self.docs[doc]) + "\n"
            if self.rng.random() < 0.3:  # prose edits keep blame busy
                doc = self.rng.choice(sorted(self.docs))
                text = self.docs[doc]
                text.insert(self.rng.randint(2, len(text)), f"Prose added in commit {index}.")
                change[doc] = "\n".join(text) + "\n"
            out.append(change)
        return out


def fast_import_stream(changes: list[dict[str, str | None]]) -> bytes:
    parts: list[bytes] = []
    when = 1_600_000_000
    for number, change in enumerate(changes, start=1):
        message = f"commit {number}\n".encode()
        parts.append(b"commit refs/heads/main\n")
        parts.append(f"mark :{number}\n".encode())
        parts.append(f"committer Bench <bench@example.com> {when + number * 60} +0000\n".encode())
        parts.append(f"data {len(message)}\n".encode() + message)
        if number > 1:
            parts.append(f"from :{number - 1}\n".encode())
        for path, text in change.items():
            if text is None:
                parts.append(f"D {path}\n".encode())
            else:
                body = text.encode()
                parts.append(f"M 644 inline {path}\ndata {len(body)}\n".encode() + body + b"\n")
        parts.append(b"\n")
    return b"".join(parts)


def git(repo: Path, *args: str, stdin: bytes | None = None) -> str:
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1")
    proc = subprocess.run(
        ["git", *args], cwd=repo, input=stdin, capture_output=True, env=env, check=True
    )
    return proc.stdout.decode()


def build_repository(repo: Path, commits: int) -> float:
    began = time.perf_counter()
    builder = HistoryBuilder(seed=7)
    changes = builder.commits(commits, documents=30, target_citations=360)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "fast-import", "--quiet", stdin=fast_import_stream(changes))
    git(repo, "reset", "-q", "--hard", "main")
    return time.perf_counter() - began


def size_of(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=2200)
    parser.add_argument("--keep", type=Path, help="build the repository here and keep it")
    args = parser.parse_args()

    from zodyssey.anchors.discover import collect_citations
    from zodyssey.anchors.history import history_report
    from zodyssey.config import Config

    scratch = Path(tempfile.mkdtemp(prefix="zodyssey-bench-history-"))
    repo = args.keep if args.keep else scratch / "repo"
    repo.mkdir(parents=True, exist_ok=True)
    try:
        build_seconds = build_repository(repo, args.commits)
        config = Config(root=repo, documents=["docs/**/*.md"])
        citations = collect_citations(repo, config)
        documents = sorted({c.site.doc for c in citations})
        count = int(git(repo, "rev-list", "--count", "HEAD"))
        files = len(git(repo, "ls-files").splitlines())
        print(
            f"repository: {count} commits, {files} files, "
            f"{size_of(repo / '.git') / 1e6:.1f} MB .git, "
            f"{size_of(repo) / 1e6 - size_of(repo / '.git') / 1e6:.1f} MB work tree "
            f"(built in {build_seconds:.1f} s with git fast-import)"
        )
        print(f"citations: {len(citations)} in {len(documents)} documents")

        began = time.perf_counter()
        for doc in documents:
            git(repo, "blame", "--porcelain", "--", doc)
        baseline = time.perf_counter() - began
        print(f"baseline  plain git blame of every document, sequential: {baseline:6.2f} s")

        results: dict[int, float] = {}
        counts: dict[str, int] = {}
        for jobs in (1, 2):
            began = time.perf_counter()
            report, code = history_report(
                repo, config, citations, jobs=jobs, fix=False, dry_run=False
            )
            results[jobs] = time.perf_counter() - began
            counts = report.payload["counts"] if report.payload else {}
            print(
                f"history   --jobs {jobs}: {results[jobs]:6.2f} s  "
                f"({results[jobs] / baseline:.2f}x baseline, exit {code})"
            )
        print("verdicts: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        best = min(results.values())
        verdict = "PASS" if best < TARGET_SECONDS else "FAIL"
        print(
            f"target: under {TARGET_SECONDS:.0f} s on {count} commits / {len(citations)} "
            f"citations: {verdict} (best {best:.2f} s, {best / TARGET_SECONDS:.2f} of target)"
        )
        return 0 if verdict == "PASS" else 1
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
