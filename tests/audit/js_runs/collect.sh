#!/usr/bin/env bash
# usage: collect.sh OUT_DIR FIXTURE_DIR PIPELINE_CHECKOUT : copy what cases.sh made into
# the fixtures, with the pipeline's own parse of each plan (parse-plan.json).
# Per case: the work tree and .zcode/ (not .git, not the hook's find-run cache);
# once: baseline/, the tree of the baseline commit every case starts from.
set -euo pipefail
OUT=$1 DEST=$2 JS=$3
rm -rf "$DEST/baseline"; mkdir -p "$DEST/baseline"
first=$(ls -d "$OUT"/*/.git | head -1); first=${first%/.git}
git -C "$first" archive HEAD | tar -x -C "$DEST/baseline"
for repo in "$OUT"/*/; do
  repo=${repo%/}; name=$(basename "$repo")
  [ -d "$repo/.git" ] || continue
  rm -rf "${DEST:?}/$name"; mkdir -p "$DEST/$name"
  (cd "$repo" && tar -c --exclude=.git --exclude=.zcode/state/.find-active-run.cache .) | tar -x -C "$DEST/$name"
  node "$JS/skills/odyssey/scripts/parse-plan.mjs" "$repo/.zcode/plans/greet.md" > "$DEST/$name/parse-plan.json"
done
