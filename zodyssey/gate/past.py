"""Past runs stay protected: with no active run, the record of every finished run.

A run that ended (`done`, `audited`, `abandoned`) leaves its state, evidence
chain and reviews (`.zcode/state|reviews|verify`) and its evidence anchor in
git (`refs/zodyssey/...` and their reflogs). Ending a run must not open them:
one plain shell call could otherwise rewrite the chain, its anchor and the
violation records, and the audit would pass. So while no run is active but
run state exists, the hook still judges each call's named targets against
these places, and only these: product work is never in the way (outside a run
the gate judges nothing else, and a call it cannot read is let through).

Hook-safe (core/__init__.py's rule): `os` at import, the classifier and the
path helpers when a call names targets.
"""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def anchor_dirs(root: str) -> "tuple[str, ...]":
    """Where git keeps the evidence anchors of `root`'s runs (refs and reflogs)."""
    from zodyssey.core.hermetic import git_dir

    base = os.path.realpath(git_dir(root))
    return (
        os.path.join(base, "refs", "zodyssey"),
        os.path.join(base, "logs", "refs", "zodyssey"),
    )


def _targets(call: "Any") -> "tuple[list[Any], str]":
    """(named targets, cwd) of a call that may write; none for a read."""
    if call.kind == "read" or call.error:
        return [], ""
    cwd = call.cwd or os.getcwd()
    if call.kind != "shell":
        return list(call.targets), cwd
    from zodyssey.gate.shell import classify
    from zodyssey.gate.toolcall import MAX_SHELL_COMMAND

    if len(call.command) > MAX_SHELL_COMMAND:
        return [], cwd
    analysis = classify(call.command)
    if not analysis.is_write:
        return [], cwd
    return [*analysis.targets, *analysis.linked], cwd


def judge(call: "Any", roots: "list[str]") -> "str | None":
    """Why the call is blocked (it names a finished run's record), or None."""
    targets, cwd = _targets(call)
    if not targets:
        return None
    from zodyssey.core.allowance import Layout, PathTooLong, resolve, within, written
    from zodyssey.gate.policy import _run_state_anywhere

    home = os.path.expanduser("~")
    layouts = [(Layout(root, home), anchor_dirs(root)) for root in roots]
    for target in targets:
        try:
            paths = (resolve(target.path, cwd, home), written(target.path, cwd, home))
        except PathTooLong as exc:
            return str(exc)
        for path in paths:
            for layout, anchors in layouts:
                where = layout.run_state(path) or _run_state_anywhere(path)
                where = where or next(
                    (a for a in anchors if within(a, path) or within(path, a)), None
                )
                if where is not None:
                    return (
                        f"{layout.show(path)} holds the record of finished runs "
                        f"({layout.show(where)}): run state, evidence, reviews and their git "
                        "anchors stay protected after a run ends; only `zodyssey run` writes "
                        "them (a person removes them in their own terminal)"
                    )
    return None
