"""The `clients` session: the gate in the real Claude Code, Gemini CLI and Codex CLI.

These tests install the clients pinned in versions.toml from npm into a cache
folder outside the repository (tests/clients/install.py) and drive each with
our scripted model server (modelserver.py). They run with `nox -s clients`
(`pytest -m clients tests/clients`), which .ci/run calls after the README's
test command; the README's command itself does not collect them (they need
npm and take minutes), so this directory is collected only when the marker
expression names `clients` or `ZODYSSEY_CLIENTS=1` is set.

A client that cannot be installed skips its tests with npm's reason, and fails
them when `CI` is set: in CI the session exists to drive the real clients.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.clients.drivers import Client, make_client
from tests.clients.install import InstallError, pins

HERE = Path(__file__).parent
CLIENT_NAMES = tuple(pins())  # every pinned client, an older Claude Code beside the current


def _wanted(config: pytest.Config) -> bool:
    if os.environ.get("ZODYSSEY_CLIENTS") == "1":
        return True
    return "clients" in (config.getoption("markexpr", "") or "")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if collection_path.name.startswith("test_") and not _wanted(config):
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE not in Path(str(item.fspath)).parents:
            continue
        item.add_marker(pytest.mark.slow)
        item.add_marker(pytest.mark.clients)
        # One worker runs a client's sessions of one module: they share module fixtures.
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec is not None else {}
        name = params.get("client_name") or params.get("reviewed")
        item.add_marker(pytest.mark.xdist_group(f"{Path(str(item.fspath)).stem}:{name}"))


_INSTALLED: dict[str, Client | str] = {}


def installed(name: str) -> Client:
    """The client, installed (once per process); skip (or fail in CI) with npm's reason."""
    if name not in _INSTALLED:
        client = make_client(name)
        try:
            client.binary()
            _INSTALLED[name] = client
        except InstallError as exc:
            _INSTALLED[name] = str(exc)
    found = _INSTALLED[name]
    if isinstance(found, str):
        if os.environ.get("CI"):
            pytest.fail(f"{name} cannot be driven: {found}")
        pytest.skip(f"{name} cannot be driven: {found}")
    return found


@pytest.fixture(scope="module", params=CLIENT_NAMES)
def client_name(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture(scope="module")
def client(client_name: str) -> Client:
    return installed(client_name)


@pytest.fixture(scope="module")
def codex() -> Client:
    return installed("codex")


@pytest.fixture(scope="module")
def gemini() -> Client:
    return installed("gemini")


@pytest.fixture(scope="module")
def claude() -> Client:
    return installed("claude-code")
