"""ci/github/zodyssey-drill-matrix.yml: the drill split over a matrix and merged once."""

from __future__ import annotations

from pathlib import Path

import yaml

WORKFLOW = Path(__file__).resolve().parents[2] / "ci" / "github" / "zodyssey-drill-matrix.yml"


def test_every_shard_runs_its_part_and_one_job_merges_them() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    shards = int(workflow["env"]["SHARDS"])
    shard = workflow["jobs"]["shard"]
    assert shard["strategy"]["matrix"]["shard"] == list(range(1, shards + 1))
    assert shard["strategy"]["fail-fast"] is False
    runs = [step.get("run", "") for step in shard["steps"]]
    assert any('--shard "$SHARD/$SHARDS"' in r and "--format json" in r for r in runs)
    drill = workflow["jobs"]["drill"]
    assert drill["needs"] == "shard" and drill["if"] == "${{ !cancelled() }}"
    merge = [step["run"] for step in drill["steps"] if "run" in step and "--merge" in step["run"]]
    assert merge == ["zodyssey claims drill --format github --merge drill-reports/*.json"]
    # The merge step is the job's last: its exit code is the verdict.
    assert drill["steps"][-1]["run"] == merge[0]
