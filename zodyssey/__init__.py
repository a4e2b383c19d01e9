"""zodyssey: keep a repository honest in CI while AI coding agents work on it."""

# The one version source: pyproject.toml reads it ([tool.hatch.version]), the
# CI templates pin it (tests/ci/test_ci_release.py keeps them equal) and the
# release workflow tags it as v<version>.
__version__ = "0.1.0"

# The project's public home (pyproject.toml's [project.urls] say the same).
HOMEPAGE = "https://github.com/zodyssey/zodyssey"


def docs_url(page: str) -> str:
    """A page of docs/ as published for this version (the release tag's tree)."""
    return f"{HOMEPAGE}/blob/v{__version__}/docs/{page}"
