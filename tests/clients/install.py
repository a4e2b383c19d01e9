"""Install the pinned clients from npm into a cache folder outside the repository.

The cache is `$ZODYSSEY_CLIENTS_CACHE`, else `$XDG_CACHE_HOME/zodyssey/clients`,
else `~/.cache/zodyssey/clients`; each client gets `<name>-<version>/` with its
own `node_modules`, and a `.installed` marker written (atomically) after npm
succeeded, so a finished install is reused and an interrupted one is redone.
A file lock keeps two test workers from installing the same client at once.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

from zodyssey.core.atomic import write_atomic

VERSIONS = Path(__file__).with_name("versions.toml")
NPM_TIMEOUT = 600


class InstallError(Exception):
    """The client cannot be installed; the message says why."""


@dataclass(frozen=True)
class Pin:
    name: str
    package: str
    version: str
    bin: str


def pins() -> dict[str, Pin]:
    data = tomllib.loads(VERSIONS.read_text(encoding="utf-8"))
    # `harness@version` tables drive a harness once more, at another version.
    return {
        key: Pin(key.split("@", 1)[0], str(t["package"]), str(t["version"]), str(t["bin"]))
        for key, t in data.items()
    }


def cache_dir() -> Path:
    explicit = os.environ.get("ZODYSSEY_CLIENTS_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "zodyssey" / "clients"


def installed_bin(pin: Pin) -> Path:
    """The client's executable, installing it first when the cache lacks it."""
    folder = cache_dir() / f"{pin.name}-{pin.version}"
    binary = folder / "node_modules" / ".bin" / pin.bin
    marker = folder / ".installed"
    if marker.is_file() and binary.exists():
        return binary
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError(f"npm is not on PATH; it installs {pin.package}@{pin.version}")
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f".{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.is_file() and binary.exists():
            return binary
        marker.unlink(missing_ok=True)
        done = subprocess.run(
            [
                npm,
                "install",
                "--no-audit",
                "--no-fund",
                "--no-save",
                "--prefix",
                str(folder),
                f"{pin.package}@{pin.version}",
            ],
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT,
            check=False,
            env={**os.environ, "npm_config_update_notifier": "false"},
        )
        if done.returncode != 0 or not binary.exists():
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            raise InstallError(
                f"npm install {pin.package}@{pin.version} into {folder} failed "
                f"(exit {done.returncode}): " + " | ".join(tail)
            )
        write_atomic(marker, f"{pin.package}@{pin.version}\n")
    return binary
