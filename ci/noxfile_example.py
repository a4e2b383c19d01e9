"""nox sessions to copy into your own noxfile.py.

    nox -s anchors      # the citation lock: fails on a drifted citation
    nox -s claims       # the claims ledger: fails when a promise loses its test

Each session installs zodyssey in its own virtualenv: what pip installs is
ZODYSSEY_INSTALL (the setting the CI templates use; ZODYSSEY_SPEC, its older
name, still works), default the release this file was written for. Any pip
requirement works: a git URL ("zodyssey @ git+https://github.com/zodyssey/zodyssey@v0.1.0")
or a wheel.
"""

from __future__ import annotations

import os

import nox

ZODYSSEY = (
    os.environ.get("ZODYSSEY_INSTALL") or os.environ.get("ZODYSSEY_SPEC") or "zodyssey==0.1.0"
)


@nox.session
def anchors(session: nox.Session) -> None:
    """Check file:line citations in the docs against the lock."""
    session.install(ZODYSSEY)
    # Extra arguments pass through: `nox -s anchors -- --update` re-baselines.
    session.run("check-anchors", *session.posargs)


@nox.session
def claims(session: nox.Session) -> None:
    """Check that every claim marker in the docs is defended by a test."""
    # The claims check collects your tests with pytest: install what they import
    # too, e.g. `session.install("-e", ".[test]")` before this line.
    session.install(ZODYSSEY, "pytest")
    session.run("zodyssey", "claims", "check", *session.posargs)
