"""Find a run's artifacts and load them with the loader of the pipeline that wrote them."""

from __future__ import annotations

from pathlib import Path

from zodyssey.audit.artifacts import ArtifactMissing, as_dict, as_str, read_required_json
from zodyssey.audit.model import AuditedRun
from zodyssey.core import paths
from zodyssey.core.vocabulary import ARCHIVE, STATE, is_slug
from zodyssey.errors import UsageError


def locate(target: str, repo: str | None) -> tuple[Path, str, Path]:
    """(repository root, slug, state file) for `SLUG` or `STATE_FILE`."""
    root = Path(repo) if repo else None
    if root is not None and not root.is_dir():
        raise UsageError(f"--repo {repo}: not a directory")
    looks_like_file = target.endswith(".json") or "/" in target or target.startswith(".")
    if looks_like_file:
        state_file = Path(target)
        if root is None:
            # .zcode/state/<slug>.json: the repository is three levels up.
            parents = state_file.resolve().parents
            inferred = len(parents) >= 3 and parents[1].name + "/" + parents[0].name == STATE
            # .zcode/archive/<slug>-<started>/<slug>.json (a run `run start` archived): four.
            archived = len(parents) >= 4 and parents[2].name + "/" + parents[1].name == ARCHIVE
            root = parents[2] if inferred else parents[3] if archived else Path.cwd()
        slug = state_file.name.removesuffix(".json")
        if not is_slug(slug):
            raise UsageError(f"state file name {state_file.name!r} does not name a run slug")
        return root, slug, state_file
    if not is_slug(target):
        raise UsageError(f"invalid run slug {target!r}: use lowercase letters, digits and '-'")
    root = root or Path.cwd()
    return root, target, paths.state_path(root, target)


def load_run(target: str, repo: str | None) -> AuditedRun:
    root, slug, state_file = locate(target, repo)
    if not state_file.exists() and not paths.zcode_dir(root).is_dir():
        raise ArtifactMissing(f"run state {state_file} does not exist (no .zcode/ under {root})")
    state = read_required_json(state_file, "run state")
    named = as_str(as_dict(state).get("slug"))
    if named is not None and named != slug:
        raise ArtifactMissing(f"run state {state_file} is for run {named[:80]!r}, not {slug!r}")
    from zodyssey.audit import load_js, load_ours

    if load_ours.is_ours(state, root, slug):
        return load_ours.load(root, slug, state, state_file)
    return load_js.load(root, slug, state, state_file)
