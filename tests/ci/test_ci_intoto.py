"""The run's evidence as in-toto attestations, checked with the framework's own models.

A real run (`zodyssey run start/review/verify`) in a real repository; the
bundle `zodyssey audit --format in-toto` writes is parsed with the in-toto
attestation library's protobuf models (Statement v1, test-result v0.1,
verification summary v1; unknown fields are errors there), signed with a real
ssh key (`ssh-keygen`) and a shared key, and verified against the repository
after honest and dishonest changes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from in_toto_attestation.predicates.test_result.v0 import test_result_pb2
from in_toto_attestation.predicates.vsa.v1 import vsa_pb2
from in_toto_attestation.v1 import statement_pb2
from in_toto_attestation.v1.statement import Statement

from tests.helpers import run_zodyssey
from tests.helpers.runs import PLAN, Repo, make_repo
from zodyssey.audit.intoto import PAYLOAD_TYPE, TEST_RESULT, VSA, pae

BUNDLE = ".zcode/demo.intoto.jsonl"  # under .zcode/: not part of the work tree's digest


def finished_run(tmp_path: Path, *, fail_second: bool = False) -> Repo:
    repo = make_repo(tmp_path / "repo")
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN, encoding="utf-8")
    assert repo.run("start", "demo", "--plan", str(plan)).code == 0
    repo.approve()
    repo.write("greeting.txt", "bye\n" if fail_second else "hello\n")
    repo.write("docs/greeting.md", "the greeting\n")
    repo.commit("greeting")
    repo.run("verify", "demo", "1")
    repo.run("verify", "demo", "2")
    return repo


def envelopes(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def statement_of(envelope: dict[str, Any]) -> dict[str, Any]:
    assert envelope["payloadType"] == PAYLOAD_TYPE
    statement: dict[str, Any] = json.loads(base64.b64decode(envelope["payload"]))
    # The framework's own models: the Statement, then its predicate by type.
    parsed = json_format.ParseDict(statement, statement_pb2.Statement())
    Statement.copy_from_pb(parsed).validate()
    predicate = {
        TEST_RESULT: test_result_pb2.TestResult,
        VSA: vsa_pb2.VerificationSummary,
    }[statement["predicateType"]]
    body = dict(statement["predicate"])
    if predicate is vsa_pb2.VerificationSummary:
        # SLSA's VSA v1 makes verifiedLevels an array of strings; the library's v1
        # model (0.9) declares one string. The rest is checked by the model.
        levels = body.pop("verifiedLevels")
        assert isinstance(levels, list) and all(isinstance(x, str) for x in levels)
    json_format.ParseDict(body, predicate())
    return statement


def audit(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    return run_zodyssey("audit", *args, cwd=repo.root)


def test_one_statement_per_executed_criterion_and_one_for_the_verdict(tmp_path: Path) -> None:
    repo = finished_run(tmp_path, fail_second=True)
    done = audit(repo, "demo", "--format", "in-toto")
    assert done.returncode == 1, done.stderr  # a criterion failed: the audit's exit code
    statements = [statement_of(e) for e in envelopes(done.stdout)]
    kinds = [s["predicateType"] for s in statements]
    # The plan's three criteria (todo 1 has two), then the verdict.
    assert kinds == [TEST_RESULT, TEST_RESULT, TEST_RESULT, VSA], kinds
    first, second, third, verdict = statements
    results = [s["predicate"]["result"] for s in (first, second, third)]
    assert results == ["PASSED", "FAILED", "PASSED"]
    assert second["predicate"]["failedTests"] == ["1.2 `grep -q hello greeting.txt`"]
    config = second["predicate"]["configuration"][0]
    assert config["annotations"]["command"] == "grep -q hello greeting.txt"
    assert config["annotations"]["exitCode"] == 1
    assert config["name"].startswith(".zcode/verify/demo/evidence.jsonl:")
    # The subject is the work tree the criterion ran on, as `run verify` recorded it.
    evidence = (repo.root / ".zcode/verify/demo/evidence.jsonl").read_text().splitlines()
    record = json.loads(evidence[int(config["name"].rsplit(":", 1)[1]) - 1])
    assert second["subject"] == [{"name": "worktree", "digest": {"sha256": record["tree_before"]}}]
    assert verdict["predicate"]["verificationResult"] == "FAILED"
    head = repo.git("rev-parse", "HEAD").strip()
    assert {"name": "HEAD", "digest": {"gitCommit": head}} in verdict["subject"]
    uris = {i["uri"] for i in verdict["predicate"]["inputAttestations"]}
    assert {".zcode/state/demo.json", ".zcode/verify/demo/evidence.jsonl"} <= uris


def ssh_key(tmp_path: Path, name: str) -> Path:
    if shutil.which("ssh-keygen") is None:  # pragma: no cover - openssh-client is everywhere
        pytest.skip("ssh-keygen is not installed")
    key = tmp_path / name
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True
    )
    return key


def test_signed_with_ssh_and_verified_against_the_repository(tmp_path: Path) -> None:
    repo = finished_run(tmp_path)
    key = ssh_key(tmp_path, "signer")
    out = repo.root / BUNDLE
    done = audit(repo, "demo", "--format", "in-toto", "--sign-key", str(key), "-o", str(out))
    assert done.returncode == 0, done.stderr
    for envelope in envelopes(out.read_text()):
        statement_of(envelope)
        (signature,) = envelope["signatures"]
        assert signature["keyid"].startswith("SHA256:")
        # DSSE: the signature covers the pre-authentication encoding, checked by ssh-keygen.
        body = base64.b64decode(envelope["payload"])
        sig = tmp_path / "sig"
        sig.write_bytes(base64.b64decode(signature["sig"]))
        allowed = tmp_path / "allowed"
        allowed.write_text("me " + Path(f"{key}.pub").read_text())
        checked = subprocess.run(
            [
                "ssh-keygen",
                "-Y",
                "verify",
                "-f",
                str(allowed),
                "-I",
                "me",
                "-n",
                "zodyssey-dsse",
                "-s",
                str(sig),
            ],
            input=pae(PAYLOAD_TYPE, body),
            capture_output=True,
        )
        assert checked.returncode == 0, checked.stderr

    verify = ("--verify-attestation", str(out), "--verify-key", f"{key}.pub")
    ok = audit(repo, *verify)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "attestation verified: 4 statement(s), 0 problem(s)" in ok.stdout

    # Another key: the signature does not verify.
    other = ssh_key(tmp_path, "other")
    wrong = audit(repo, "--verify-attestation", str(out), "--verify-key", f"{other}.pub")
    assert wrong.returncode == 1 and "does not verify" in wrong.stdout

    # A payload edited after signing: the signature no longer covers it.
    lines = out.read_text().splitlines()
    tampered = json.loads(lines[0])
    statement = json.loads(base64.b64decode(tampered["payload"]))
    statement["predicate"]["result"] = (
        "PASSED" if statement["predicate"]["result"] == "FAILED" else "FAILED"
    )
    tampered["payload"] = base64.b64encode(json.dumps(statement).encode()).decode()
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join([json.dumps(tampered), *lines[1:]]) + "\n")
    bad = audit(repo, "--verify-attestation", str(forged), "--verify-key", f"{key}.pub")
    assert bad.returncode == 1 and "does not verify" in bad.stdout

    # The repository moved on: a new commit is not the attested HEAD or work tree.
    repo.write("greeting.txt", "hello again\n")
    repo.commit("later")
    moved = audit(repo, *verify)
    assert moved.returncode == 1
    assert "HEAD is not the attested one" in moved.stdout
    assert "worktree is not the attested one" in moved.stdout


def test_evidence_rewritten_after_attesting_fails_verification(tmp_path: Path) -> None:
    repo = finished_run(tmp_path)
    shared = tmp_path / "shared.key"
    shared.write_bytes(b"a shared secret of enough bytes\n")
    out = repo.root / BUNDLE
    done = audit(repo, "demo", "--format", "in-toto", "--sign-key", str(shared), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert (
        audit(repo, "--verify-attestation", str(out), "--verify-key", str(shared)).returncode == 0
    )
    # Without the shared key nothing proves the signature: not verified.
    unkeyed = audit(repo, "--verify-attestation", str(out))
    assert unkeyed.returncode == 1 and "give it as --verify-key" in unkeyed.stdout
    evidence = repo.root / ".zcode/verify/demo/evidence.jsonl"
    evidence.write_text(evidence.read_text().replace('"exit_code": 0', '"exit_code": 0 '))
    changed = audit(repo, "--verify-attestation", str(out), "--verify-key", str(shared))
    assert changed.returncode == 1
    assert "changed since it was attested" in changed.stdout


def test_unsigned_empty_or_garbage_is_never_verified(tmp_path: Path) -> None:
    repo = finished_run(tmp_path)
    out = repo.root / BUNDLE
    assert audit(repo, "demo", "--format", "in-toto", "-o", str(out)).returncode == 0
    unsigned = audit(repo, "--verify-attestation", str(out))
    assert unsigned.returncode == 1 and "unsigned" in unsigned.stdout
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert audit(repo, "--verify-attestation", str(empty)).returncode == 1
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("{not json\n")
    result = audit(repo, "--verify-attestation", str(garbage))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    missing = audit(repo, "--verify-attestation", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    both = audit(repo, "demo", "--verify-attestation", str(out))
    assert both.returncode == 2
    sign_other = audit(repo, "demo", "--sign-key", str(out))
    assert sign_other.returncode == 2 and "in-toto" in sign_other.stderr


def _verify(repo: Repo, path: Path, key: Path) -> subprocess.CompletedProcess[str]:
    return audit(repo, "--verify-attestation", str(path), "--verify-key", str(key))


def _kinds(lines: list[str]) -> list[str]:
    return [str(statement_of(json.loads(line))["predicateType"]) for line in lines]


def test_a_bundle_verifies_only_whole(tmp_path: Path) -> None:
    """The verification summary binds every other envelope (their digests and count):
    cutting the verdict and the failed criterion out, dropping one envelope, adding
    one or repeating one all fail, though every envelope left is signed alone."""
    repo = finished_run(tmp_path, fail_second=True)
    shared = tmp_path / "shared.key"
    shared.write_bytes(b"a shared secret of enough bytes\n")
    out = repo.root / BUNDLE
    done = audit(repo, "demo", "--format", "in-toto", "--sign-key", str(shared), "-o", str(out))
    assert done.returncode == 1, done.stderr  # the second criterion failed
    lines = out.read_text().splitlines()
    assert _kinds(lines) == [TEST_RESULT, TEST_RESULT, TEST_RESULT, VSA]
    whole = _verify(repo, out, shared)
    assert whole.returncode == 0, whole.stdout + whole.stderr

    def variant(name: str, kept: list[str]) -> subprocess.CompletedProcess[str]:
        path = tmp_path / name
        path.write_text("".join(line + "\n" for line in kept))
        return _verify(repo, path, shared)

    # The case: the verdict and the failed criterion cut out, the passing ones kept.
    cut = variant("cut.jsonl", [lines[0], lines[2]])
    assert cut.returncode == 1, cut.stdout
    assert "no verification summary" in cut.stdout
    # The failed criterion alone cut out: the summary names an envelope that is missing.
    dropped = variant("dropped.jsonl", [lines[0], lines[2], lines[3]])
    assert dropped.returncode == 1, dropped.stdout
    assert "missing from the bundle" in dropped.stdout
    assert "binds 3 envelope(s), the bundle holds 2" in dropped.stdout
    # An envelope the summary does not bind (one of another bundle, or repeated).
    repeated = variant("repeated.jsonl", [*lines, lines[0]])
    assert repeated.returncode == 1, repeated.stdout
    assert "not bound by the verification summary" in repeated.stdout
    other = finished_run(tmp_path / "other")
    foreign = repo.root / ".zcode/other.intoto.jsonl"
    made = audit(
        other, "demo", "--format", "in-toto", "--sign-key", str(shared), "-o", str(foreign)
    )
    assert made.returncode == 0, made.stderr
    stranger = foreign.read_text().splitlines()[0]
    extra = variant("extra.jsonl", [*lines, stranger])
    assert extra.returncode == 1, extra.stdout
    assert "not bound by the verification summary" in extra.stdout
    # Two summaries: which one decides is not for the verifier to pick.
    twice = variant("twice.jsonl", [*lines, lines[3]])
    assert twice.returncode == 1 and "more than one verification summary" in twice.stdout
    # The summary names each of the other statements by the digest of its payload.
    summary = statement_of(json.loads(lines[3]))
    bound = [
        item["digest"]["sha256"]
        for item in summary["predicate"]["inputAttestations"]
        if item["uri"].startswith("zodyssey-bundle:")
    ]
    payloads = [base64.b64decode(json.loads(line)["payload"]) for line in lines[:3]]
    assert bound == [hashlib.sha256(p).hexdigest() for p in payloads]
    places = [i["uri"] for i in summary["predicate"]["inputAttestations"]]
    assert places[-3:] == ["zodyssey-bundle:1/3", "zodyssey-bundle:2/3", "zodyssey-bundle:3/3"]
