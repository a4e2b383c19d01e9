"""A citation checker written to the floor, the reference of bench/bench_anchors.py.

`python bench/floor_anchors.py ROOT` checks ROOT's documents (`docs/**/*.md`,
as the benchmark's repositories configure) against `anchors/anchors.lock.json`
doing only the work any checker must do, the cheapest way Python does it:

- one `os.scandir` walk (hidden folders and the usual build folders skipped);
- documents read as bytes, one regular-expression search per document as a
  prefilter (`:N` or `#L`), and only lines that pass are parsed;
- the forms the benchmark writes: path forms (in a code span or not), ranges,
  `,` and `/` chains, bare continuations, Markdown links with a line fragment;
- resolution through dictionaries built once (exact path, `/`-suffix, unique
  basename suffix), never a scan per citation;
- each cited file read once, its lines normalised and hashed as the lock does
  (whitespace runs to one space, trimmed, joined with `\\n`, SHA-256, 12 hex).

It is not a product: it knows no configuration, no other form, no evidence,
and reports only a count. `--sites` prints every (document, line, key) and
every key's hash, so the benchmark can check that ours finds the same sites
and hashes (`same_as_ours`). Exit 0 when every key matches the lock, 9 if not.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import sys

SKIP = frozenset(("node_modules", "dist", "build", "coverage", "venv", "__pycache__"))
JS_EXTENSIONS = (".mjs", ".md", ".json", ".jsonl", ".js", ".cjs", ".yml", ".yaml", ".sh", ".py")
JS_EXTENSIONS += (".toml", ".ts")
PREFILTER = re.compile(rb":L?[0-9]|#L")
PATH = re.compile(
    r"(?<![\w/.\-])(`)?(\.?\w[\w./\-]*)(?(1)`|):L?([0-9]+)(?:[ \t]*[-\u2013][ \t]*L?([0-9]+))?"
)
CHAIN = re.compile(r"[ \t]*[,/][ \t]*:?[ \t]*L?([0-9]+)(?:[ \t]*[-\u2013][ \t]*L?([0-9]+))?")
BARE = re.compile(r"(?<![\w.\-]):L?([0-9]+)(?:[ \t]*[-\u2013][ \t]*L?([0-9]+))?")
LINK = re.compile(r"\]\(([^()\s#]+)#L([0-9]+)(?:-L?([0-9]+))?\)")
SPACE = re.compile(r"[\s\ufeff]+")


def walk(root: str) -> list[str]:
    out: list[str] = []
    stack = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if entry.is_dir(follow_symlinks=False):
                    if name[0] != "." and name not in SKIP:
                        stack.append((entry.path, prefix + name + "/"))
                elif entry.is_file(follow_symlinks=False):
                    out.append(prefix + name)
    return out


class Index:
    """Exact, `/`-suffix and basename-suffix lookups, built once."""

    def __init__(self, files: list[str]) -> None:
        self.exact = set(files)
        self.suffix: dict[str, list[str]] = {}
        for path in files:
            cut = path.find("/")
            while cut != -1:
                self.suffix.setdefault(path[cut + 1 :], []).append(path)
                cut = path.find("/", cut + 1)
        self.names = [(p[p.rfind("/") + 1 :], p) for p in files]
        self.memo: dict[str, str | None] = {}

    def resolve(self, cited: str, doc: str) -> str | None:
        if cited.startswith(("./", "../")):
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(doc), cited))
            return joined if joined in self.exact else None
        if cited in self.exact:
            return cited
        found = self.memo.get(cited, "")
        if found != "":
            return found
        hits = self.suffix.get(cited, ())
        result = hits[0] if len(hits) == 1 else None
        if not hits and "/" not in cited:
            names = [p for name, p in self.names if name.endswith(cited) and name[0] != "."]
            result = names[0] if len(names) == 1 else None
        self.memo[cited] = result
        return result


def sites_of(root: str, docs: list[str], index: Index) -> list[tuple[str, int, str]]:
    """(document, line, key) of every citation, in document order."""
    out: list[tuple[str, int, str]] = []
    for doc in docs:
        with open(f"{root}/{doc}", "rb") as handle:
            data = handle.read()
        if PREFILTER.search(data) is None:
            continue
        for number, line in enumerate(data.decode("utf-8", "replace").split("\n"), 1):
            if ":" in line or "#L" in line:
                _line(doc, number, line, index, out)
    return out


def _key(path: str, a: int, b: str | None) -> str:
    return f"{path}:{a}" if b is None else f"{path}:{a}-{b}"


def _line(doc: str, number: int, line: str, index: Index, out: list[tuple[str, int, str]]) -> None:
    anchors: list[tuple[int, int, str | None]] = []
    pos = 0
    while (m := PATH.search(line, pos)) is not None:
        cited = m.group(2)
        path = index.resolve(cited, doc)
        if path is None and not cited.endswith(JS_EXTENSIONS):
            pos = line.index(":", m.end(2)) + 1
            continue
        target = path or "?" + cited
        out.append((doc, number, _key(target, int(m.group(3)), m.group(4))))
        end = m.end()
        while (c := CHAIN.match(line, end)) is not None:
            out.append((doc, number, _key(target, int(c.group(1)), c.group(2))))
            end = c.end()
        anchors.append((m.start(), end, target))
        pos = end
    if anchors:
        pos = 0
        while (m := BARE.search(line, pos)) is not None:
            pos = m.end()
            before = [a for a in anchors if a[0] < m.start()]
            if not before or m.start() < before[-1][1]:
                continue
            target = before[-1][2]
            out.append((doc, number, _key(str(target), int(m.group(1)), m.group(2))))
            end = m.end()
            while (c := CHAIN.match(line, end)) is not None:
                out.append((doc, number, _key(str(target), int(c.group(1)), c.group(2))))
                end = c.end()
            pos = end
    if "](" in line:
        for m in LINK.finditer(line):
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(doc), m.group(1)))
            target = joined if joined in index.exact else "?" + m.group(1)
            out.append((doc, number, _key(target, int(m.group(2)), m.group(3))))


def hashes(root: str, keys: set[str]) -> dict[str, str]:
    """Each key's fingerprint; each cited file read once."""
    by_file: dict[str, list[str]] = {}
    for key in keys:
        if not key.startswith("?"):
            by_file.setdefault(key.rpartition(":")[0], []).append(key)
    out: dict[str, str] = {}
    for path, wanted in by_file.items():
        with open(f"{root}/{path}", "rb") as handle:
            lines = handle.read().decode("utf-8", "replace").split("\n")
        for key in wanted:
            numbers = key.rpartition(":")[2]
            a, _, b = numbers.partition("-")
            span = lines[int(a) - 1 : int(b or a)]
            text = "\n".join(SPACE.sub(" ", s).strip() for s in span)
            out[key] = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    return out


def check(root: str) -> tuple[list[tuple[str, int, str]], dict[str, str], int]:
    files = walk(root)
    docs = sorted(f for f in files if f.startswith("docs/") and f.endswith(".md"))
    index = Index(files)
    sites = sites_of(root, docs, index)
    found = hashes(root, {key for _, _, key in sites})
    with open(f"{root}/anchors/anchors.lock.json", "rb") as handle:
        pinned = json.loads(handle.read())["citations"]
    bad = sum(1 for key, value in found.items() if pinned.get(key) != value)
    bad += sum(1 for _, _, key in sites if key.startswith("?"))
    return sites, found, bad


def main(argv: list[str]) -> int:
    root = argv[0]
    sites, found, bad = check(root)
    if "--sites" in argv:
        json.dump({"sites": sites, "hashes": found}, sys.stdout)
        return 0
    print(f"floor: {len(sites)} sites, {len(found)} spans, {bad} problem(s)")
    return 9 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
