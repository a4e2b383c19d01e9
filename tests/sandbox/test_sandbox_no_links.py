"""No sandboxed process can make a link where the harness's own write tools write
(issue 33, root cause 3).

The harness judges a native Write at pre-tool and writes it later, following
whatever link is there then. A background process left by an allowed wrapped
call could flip a declared path (or a bookkeeping file) between nothing and a
symlink to `.git/config` or run state. Under the sandbox it cannot: the
product's and bookkeeping's grants carry no right to make a symbolic link nor
to move anything in from another directory (a directory moved in would bring
its links along). Real kernel ruleset, real processes; on the old code every
link below was made.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.gate import make_run_repo
from tests.sandbox.test_sandbox_runner import needs_landlock, sandboxed

ATTEMPTS = (
    ("pkg/flip.py", "ln -s ../.git/config pkg/flip.py"),
    ("src/server_link.py", "ln -s ../.zcode/state/demo.json src/server_link.py"),
    (".zcode/staging/note", "ln -s ../state/demo.json .zcode/staging/note"),
    (".zcode/notepads/n.md", "ln -s ../../.git/config .zcode/notepads/n.md"),
    (
        "pkg/moved/x",
        "d=$(mktemp -d) && mkdir $d/moved && ln -s ../../.git/config $d/moved/x "
        "&& mv $d/moved pkg/moved",
    ),
)


@needs_landlock
def test_no_link_can_be_made_where_native_writes_land(tmp_path: Path) -> None:
    repo = make_run_repo(tmp_path)  # OKAY: pkg/ and src/server.py declared
    (repo.root / "pkg").mkdir()
    for rel, script in ATTEMPTS:
        done = sandboxed(repo, script)
        assert not (repo.root / rel).is_symlink(), (rel, done.returncode, done.stderr)
    # ordinary work there still runs: files written, replaced, moved within a folder
    done = sandboxed(
        repo,
        "echo a > pkg/a.py && echo b > pkg/b.tmp && mv pkg/b.tmp pkg/a.py "
        "&& mkdir pkg/sub && echo c > pkg/sub/c.py && echo y > src/server.py "
        "&& echo n >> .zcode/notepads/n.md",
    )
    assert done.returncode == 0, done.stderr
    assert (repo.root / "pkg" / "a.py").read_text() == "b\n"
    assert (repo.root / "src" / "server.py").read_text() == "y\n"
