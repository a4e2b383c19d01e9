"""A run's evidence as in-toto attestations, and the check of such a file against a repository.

`zodyssey audit SLUG --format in-toto` writes an attestation bundle: JSON Lines,
one DSSE envelope per line, each holding one in-toto Statement (v1):

- one per executed criterion, predicate `test-result` (v0.1): the result of
  its latest execution (PASSED / FAILED), the command and exit code, the
  evidence record it comes from (path:line and the sha256 of that line), and
  as subject the digest of the work tree it ran on (the fingerprint `zodyssey
  run verify` recorded; a record without one is its own subject);
- one for the audit's verdict, predicate `verification_summary` (SLSA VSA v1):
  the result, the run's artifact files with their sha256 as input, the audit
  page as policy, and as subjects the work tree's fingerprint and HEAD now.
  It also binds the bundle: every other statement is one of its input
  attestations (uri `zodyssey-bundle:<place>/<count>`, the sha256 of its
  payload), so the bundle verifies only whole.

`--sign-key FILE` signs every envelope over DSSE's pre-authentication
encoding: an OpenSSH private key signs with `ssh-keygen -Y sign` (namespace
`zodyssey-dsse`), any other file is a shared secret for HMAC-SHA256.

`zodyssey audit --verify-attestation FILE` checks every envelope (payload
type, statement type, predicate type), every signature, and every digest
against the repository: each evidence record still has the digest it was
attested with and still names the attested work tree, each input file still
has its digest, and the work tree and HEAD are the attested ones. The bundle
must hold exactly one verification summary, and exactly the envelopes it
binds: one cut out, added or repeated fails, although each is signed alone.
Anything that does not hold fails (exit 1); nothing is skipped silently.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from zodyssey import HOMEPAGE, __version__, docs_url
from zodyssey.core.files import NotRegularFile, read_regular
from zodyssey.errors import UsageError

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
TEST_RESULT = "https://in-toto.io/attestation/test-result/v0.1"
VSA = "https://slsa.dev/verification_summary/v1"
SSH_NAMESPACE = "zodyssey-dsse"
VERIFIER_ID = f"{HOMEPAGE}/audit"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def pae(payload_type: str, body: bytes) -> bytes:
    """DSSE's pre-authentication encoding: what a signature covers."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(body), body)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ----------------------------------------------------------------------------- signing


@dataclass(frozen=True)
class Signer:
    kind: str  # "ssh" or "hmac"
    path: Path
    keyid: str

    def sign(self, data: bytes) -> bytes:
        if self.kind == "hmac":
            return hmac.new(_key_bytes(self.path), data, hashlib.sha256).digest()
        done = subprocess.run(
            ["ssh-keygen", "-q", "-Y", "sign", "-f", str(self.path), "-n", SSH_NAMESPACE],
            input=data,
            capture_output=True,
            timeout=60,
            check=False,
        )
        if done.returncode != 0:
            reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise UsageError(
                f"ssh-keygen could not sign with {self.path}: {' '.join(reason)[:300]}"
            )
        return done.stdout


def _ssh(*args: str, data: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["ssh-keygen", *args], input=data, capture_output=True, timeout=60, check=False
        )
    except FileNotFoundError as exc:
        raise UsageError("ssh-keygen is not installed: it signs and checks ssh signatures") from exc


def _key_bytes(path: Path) -> bytes:
    """The key file's bytes (a FIFO or device is refused, exit 2, never waited on)."""
    try:
        return read_regular(path, "key")
    except OSError as exc:
        raise UsageError(f"cannot read key {path}: {exc.strerror}") from exc


def _repository_bytes(path: Path) -> bytes | None:
    """A repository file's bytes; None when it is missing, unreadable or not a regular file."""
    try:
        return read_regular(path, "file")
    except (OSError, NotRegularFile):
        return None


def _is_ssh_private(path: Path) -> bool:
    head = _key_bytes(path)[:64]
    return head.startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----")


def signer(path: str) -> Signer:
    key = Path(path)
    if not key.is_file():
        raise UsageError(f"--sign-key {path}: not a file")
    if _is_ssh_private(key):
        done = _ssh("-l", "-E", "sha256", "-f", str(key))
        fields = done.stdout.decode("utf-8", "replace").split()
        if done.returncode != 0 or len(fields) < 2:
            raise UsageError(f"--sign-key {path}: ssh-keygen cannot read this key")
        return Signer("ssh", key, fields[1])
    secret = _key_bytes(key)
    if len(secret) < 16:
        raise UsageError(f"--sign-key {path}: a shared key needs at least 16 bytes")
    return Signer("hmac", key, "hmac-sha256:" + _sha256(secret)[:16])


def payload(statement: dict[str, Any]) -> bytes:
    """The bytes an envelope carries (and a signature covers) for `statement`."""
    return json.dumps(statement, sort_keys=True, separators=(",", ":")).encode("utf-8")


def envelope(statement: dict[str, Any], sign: Signer | None) -> dict[str, Any]:
    body = payload(statement)
    signatures = []
    if sign is not None:
        signature = sign.sign(pae(PAYLOAD_TYPE, body))
        signatures.append({"keyid": sign.keyid, "sig": base64.b64encode(signature).decode()})
    return {
        "payloadType": PAYLOAD_TYPE,
        "payload": base64.b64encode(body).decode(),
        "signatures": signatures,
    }


# ----------------------------------------------------------------------------- statements


def _evidence_line(root: Path, where: str) -> tuple[str, int, bytes] | None:
    """(path, line, raw bytes) of the JSONL evidence record `where` names."""
    path, _, number = where.rpartition(":")
    if not path or not number.isdigit():
        return None
    data = _repository_bytes(root / path)
    if data is None:
        return None
    lines = data.split(b"\n")
    index = int(number) - 1
    if not 0 <= index < len(lines):
        return None
    return path, int(number), lines[index]


def _tree_of(raw: bytes) -> str | None:
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    tree = record.get("tree_before") if isinstance(record, dict) else None
    return tree if isinstance(tree, str) and _HEX64.match(tree) else None


def criterion_statement(root: Path, result: Any) -> dict[str, Any] | None:
    record = result.record
    if record is None or not record.executed:
        return None
    evidence = _evidence_line(root, record.where)
    name = f"{result.todo}.{result.index} {result.text}"
    annotations: dict[str, Any] = {
        "todo": result.todo,
        "criterion": result.index,
        "command": record.command or "",
        "exitCode": record.exit_code,
        "status": record.status,
        "attempts": result.attempts,
        "startedOn": record.started_at,
        "finishedOn": record.finished_at,
    }
    configuration: dict[str, Any] = {"name": record.where, "annotations": annotations}
    if evidence is not None:
        configuration["digest"] = {"sha256": _sha256(evidence[2])}
    tree = _tree_of(evidence[2]) if evidence else None
    if tree is not None:
        subject = {"name": "worktree", "digest": {"sha256": tree}}
    elif evidence is not None:
        subject = {"name": record.where, "digest": {"sha256": _sha256(evidence[2])}}
    else:
        return None  # nothing to name as subject: the verdict statement still counts it
    predicate: dict[str, Any] = {
        "result": "PASSED" if record.passed else "FAILED",
        "configuration": [configuration],
        ("passedTests" if record.passed else "failedTests"): [name],
    }
    return {
        "_type": STATEMENT_TYPE,
        "subject": [subject],
        "predicateType": TEST_RESULT,
        "predicate": predicate,
    }


def _inputs(root: Path, outcome: Any) -> list[dict[str, Any]]:
    """The run's artifact files the audit read, each with its sha256."""
    names = {Path(outcome.run.state_path)}
    for record in outcome.run.criteria:
        names.add(Path(record.where.rpartition(":")[0] or record.where))
    out = []
    for name in sorted(names):
        path = name if name.is_absolute() else root / name
        data = _repository_bytes(path)
        if data is None:
            continue
        digest = _sha256(data)
        try:
            shown = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            shown = str(path)
        out.append({"uri": shown, "digest": {"sha256": digest}})
    return out


def worktree_subjects(root: Path) -> list[dict[str, Any]]:
    from zodyssey.runs.worktree import snapshot

    snap = snapshot(root)
    if not snap.get("ok"):
        raise UsageError(f"cannot take the work tree's digest: {snap.get('error')}")
    subjects: list[dict[str, Any]] = [
        {"name": "worktree", "digest": {"sha256": snap["fingerprint"]}}
    ]
    if snap.get("head"):
        subjects.append({"name": "HEAD", "digest": {"gitCommit": snap["head"]}})
    return subjects


# The input attestations of the verification summary that are the bundle's other
# statements, `zodyssey-bundle:<place>/<count>` (the rest are the run's files).
BUNDLE_URI = "zodyssey-bundle:"


def _bound(others: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The summary's binding of the bundle's other statements: each by the sha256
    of its payload, with its place and how many there are."""
    count = len(others)
    return [
        {"uri": f"{BUNDLE_URI}{index}/{count}", "digest": {"sha256": _sha256(payload(statement))}}
        for index, statement in enumerate(others, start=1)
    ]


def _is_bound(item: Any) -> bool:
    return isinstance(item, dict) and str(item.get("uri", "")).startswith(BUNDLE_URI)


def verdict_statement(
    root: Path, outcome: Any, others: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    passed = outcome.verdict == "passed"
    plan_sha = outcome.run.plan_sha256_on_disk
    policy: dict[str, Any] = {"uri": docs_url("audit.md")}
    if plan_sha and _HEX64.match(plan_sha):
        policy["digest"] = {"sha256": plan_sha}
    predicate: dict[str, Any] = {
        "verifier": {"id": VERIFIER_ID},
        "timeVerified": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "resourceUri": f"zodyssey-run:{outcome.run.slug}",
        "policy": policy,
        "inputAttestations": _inputs(root, outcome) + _bound(others or []),
        "verificationResult": "PASSED" if passed else "FAILED",
        "verifiedLevels": [f"ZODYSSEY_AUDIT_{__version__}"] if passed else [],
    }
    return {
        "_type": STATEMENT_TYPE,
        "subject": worktree_subjects(root),
        "predicateType": VSA,
        "predicate": predicate,
    }


def statements(root: Path, outcome: Any) -> list[dict[str, Any]]:
    found = [criterion_statement(root, result) for result in outcome.criteria]
    others = [s for s in found if s is not None]
    return [*others, verdict_statement(root, outcome, others)]


def bundle(root: Path, outcome: Any, sign_key: str | None) -> str:
    """The attestation bundle: one DSSE envelope per line."""
    sign = signer(sign_key) if sign_key else None
    return "".join(
        json.dumps(envelope(s, sign), sort_keys=True) + "\n" for s in statements(root, outcome)
    )


# ----------------------------------------------------------------------------- verification


@dataclass
class Verified:
    problems: list[str]
    notes: list[str]
    statements: int = 0
    # (where, sha256 of the payload) of each statement that is not a summary
    payloads: list[tuple[str, str]] = field(default_factory=list)
    # (where, the summary's predicate) of each verification summary
    summaries: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def _check_signatures(
    env: dict[str, Any], body: bytes, key: Path | None, where: str, out: Verified
) -> None:
    signatures = env.get("signatures")
    if not isinstance(signatures, list) or not signatures:
        out.problems.append(
            f"{where}: unsigned: nothing proves who wrote it (sign with --sign-key)"
        )
        return
    message = pae(PAYLOAD_TYPE, body)
    for signature in signatures:
        keyid = str(signature.get("keyid", "")) if isinstance(signature, dict) else ""
        try:
            sig = base64.b64decode(str(signature.get("sig", "")), validate=True)
        except (ValueError, AttributeError):
            out.problems.append(f"{where}: a signature is not base64")
            continue
        if keyid.startswith("hmac-sha256:"):
            if key is None or _is_ssh_private(key) or key.suffix == ".pub":
                out.problems.append(
                    f"{where}: signed with a shared key ({keyid}): give it as --verify-key"
                )
                continue
            expected = hmac.new(_key_bytes(key), message, hashlib.sha256).digest()
            if not hmac.compare_digest(expected, sig):
                out.problems.append(f"{where}: the signature does not match the payload ({keyid})")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            sig_file = Path(tmp) / "sig"
            sig_file.write_bytes(sig)
            if key is None:
                done = _ssh(
                    "-Y", "check-novalidate", "-n", SSH_NAMESPACE, "-s", str(sig_file), data=message
                )
                if done.returncode == 0:
                    out.notes.append(
                        f"{where}: ssh signature by {keyid} is intact; give --verify-key to check "
                        "that it is a key you trust"
                    )
            else:
                allowed = Path(tmp) / "allowed_signers"
                public = _key_bytes(key).decode("utf-8").strip().splitlines()[0]
                allowed.write_text(f"zodyssey {public}\n", encoding="utf-8")
                done = _ssh(
                    *("-Y", "verify", "-f", str(allowed), "-I", "zodyssey"),
                    *("-n", SSH_NAMESPACE, "-s", str(sig_file)),
                    data=message,
                )
            if done.returncode != 0:
                out.problems.append(
                    f"{where}: the ssh signature ({keyid}) does not verify"
                    + (" with --verify-key" if key is not None else "")
                )


def _check_statement(statement: Any, root: Path, where: str, out: Verified) -> None:
    if not isinstance(statement, dict) or statement.get("_type") != STATEMENT_TYPE:
        out.problems.append(f"{where}: not an in-toto Statement v1")
        return
    kind = statement.get("predicateType")
    predicate = statement.get("predicate")
    subjects = statement.get("subject")
    if not isinstance(predicate, dict) or not isinstance(subjects, list) or not subjects:
        out.problems.append(f"{where}: a statement needs a subject and a predicate")
        return
    check = _PREDICATE_CHECKS.get(kind) if isinstance(kind, str) else None
    if check is None:
        out.problems.append(f"{where}: unknown predicate type {str(kind)[:120]!r}")
    elif check(predicate, subjects, root, where, out):
        out.statements += 1


def _check_test_result(
    predicate: dict[str, Any], subjects: list[Any], root: Path, where: str, out: Verified
) -> bool:
    """Each evidence record still has its attested digest and names the attested tree."""
    for config in predicate.get("configuration") or []:
        name = str(config.get("name", ""))
        evidence = _evidence_line(root, name)
        want = (config.get("digest") or {}).get("sha256")
        if evidence is None:
            out.problems.append(f"{where}: evidence record {name} is not in the repository")
            continue
        if want != _sha256(evidence[2]):
            out.problems.append(f"{where}: evidence record {name} changed since it was attested")
        tree = _tree_of(evidence[2])
        subject = subjects[0].get("digest", {}).get("sha256")
        if tree is not None and subject != tree:
            out.problems.append(f"{where}: the subject is not the work tree {name} ran on")
    return True


def _check_vsa(
    predicate: dict[str, Any], subjects: list[Any], root: Path, where: str, out: Verified
) -> bool:
    """Each input file still has its digest; the work tree and HEAD are the attested ones
    (False: the work tree could not be read, the statement is not counted)."""
    out.summaries.append((where, predicate))
    for item in predicate.get("inputAttestations") or []:
        if _is_bound(item):
            continue  # a statement of the bundle: `_check_whole`
        uri = str(item.get("uri", "")) if isinstance(item, dict) else ""
        data = _repository_bytes(root / uri)
        if data is None:
            out.problems.append(f"{where}: input {uri} is not in the repository")
        elif _sha256(data) != (item.get("digest") or {}).get("sha256"):
            out.problems.append(f"{where}: input {uri} changed since it was attested")
    try:
        now = {s["name"]: s["digest"] for s in worktree_subjects(root)}
    except UsageError as exc:
        out.problems.append(f"{where}: {exc.message}")
        return False
    for subject in subjects:
        name = subject.get("name")
        if now.get(name) != subject.get("digest"):
            out.problems.append(
                f"{where}: the repository's {name} is not the attested one "
                f"({json.dumps(subject.get('digest'))})"
            )
    out.notes.append(f"{where}: audit verdict {predicate.get('verificationResult')}")
    return True


_PREDICATE_CHECKS = {TEST_RESULT: _check_test_result, VSA: _check_vsa}


def verify(path: str, root: Path, verify_key: str | None) -> Verified:
    """Check the bundle at `path` against the repository at `root`."""
    key = Path(verify_key) if verify_key else None
    if key is not None and not key.is_file():
        raise UsageError(f"--verify-key {verify_key}: not a file")
    try:
        text = read_regular(path, "attestation").decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read attestation {path}: {exc}") from exc
    out = Verified([], [])
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        out.problems.append(f"{path}: no envelope (an empty attestation proves nothing)")
    for number, line in enumerate(lines, start=1):
        where = f"{path}:{number}"
        try:
            env = json.loads(line)
        except ValueError:
            out.problems.append(f"{where}: not a JSON DSSE envelope")
            continue
        if not isinstance(env, dict) or env.get("payloadType") != PAYLOAD_TYPE:
            out.problems.append(f"{where}: not a DSSE envelope of an in-toto statement")
            continue
        try:
            body = base64.b64decode(str(env.get("payload", "")), validate=True)
            statement = json.loads(body)
        except ValueError:
            out.problems.append(f"{where}: the payload is not a base64 JSON statement")
            continue
        _check_signatures(env, body, key, where, out)
        if not (isinstance(statement, dict) and statement.get("predicateType") == VSA):
            out.payloads.append((where, _sha256(body)))
        _check_statement(statement, root, where, out)
    if lines:
        _check_whole(path, out)
    return out


def _check_whole(path: str, out: Verified) -> None:
    """The bundle holds one verification summary and exactly the statements it binds."""
    if not out.summaries:
        out.problems.append(
            f"{path}: no verification summary: the audit's verdict is not in the bundle "
            "(cut out?), so nothing says these statements are all there is"
        )
        return
    if len(out.summaries) > 1:
        shown = ", ".join(where for where, _ in out.summaries)
        out.problems.append(f"{path}: more than one verification summary ({shown})")
        return
    where, predicate = out.summaries[0]
    items = predicate.get("inputAttestations")
    bound = [item for item in (items if isinstance(items, list) else []) if _is_bound(item)]
    places = [str(item["uri"])[len(BUNDLE_URI) :] for item in bound]
    expected = [f"{index}/{len(bound)}" for index in range(1, len(bound) + 1)]
    if places != expected or len(bound) != len(out.payloads):
        out.problems.append(
            f"{where}: the verification summary binds {len(bound)} envelope(s), "
            f"the bundle holds {len(out.payloads)} besides it"
        )
    left: dict[str, list[str]] = {}
    for place, digest in out.payloads:
        left.setdefault(digest, []).append(place)
    for index, item in enumerate(bound, start=1):
        digest = str((item.get("digest") or {}).get("sha256", ""))
        if left.get(digest):
            left[digest].pop(0)
        else:
            out.problems.append(
                f"{where}: statement {index} of {len(bound)} it binds (sha256 {digest[:12]}) "
                "is missing from the bundle"
            )
    for places in left.values():
        out.problems.extend(
            f"{place}: not bound by the verification summary (an envelope added to the bundle)"
            for place in places
        )
