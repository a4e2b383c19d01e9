#!/usr/bin/env bash
# Make real runs with the JavaScript ZOdyssey pipeline's own scripts.
# usage: generate.sh PIPELINE_CHECKOUT OUT_DIR
# Every state change goes through the pipeline's scripts (scaffold, set-phase,
# record-momus-artifact, record-review, record-todo, record-verify,
# record-final-artifact, record-final-wave, consult) and its pre/post-tool
# hooks (which mint the review and final-wave nonces). The only steps done by
# hand are the ones a tampering agent would do: they are marked TAMPER.
set -euo pipefail
JS=$(cd "$1" && pwd)/skills/odyssey
OUT=$2
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
S=$JS/scripts
export HOME=$OUT/home ZODYSSEY_EVAL_LANE=synthetic ZODYSSEY_NO_AUTO_COMPACT=1
export ZODYSSEY_RUN_KEY_PATH=$OUT/home/run-key GIT_AUTHOR_DATE=2026-03-01T10:00:00Z
export GIT_COMMITTER_DATE=2026-03-01T10:00:00Z
mkdir -p "$HOME" "$OUT/staging"
# The external auditor consult.mjs spawns: a stub that answers a fixed verdict.
cat > "$OUT/auditor.sh" <<'STUB'
#!/bin/sh
cat > /dev/null
if [ "${AUDITOR_VERDICT:-ACCEPT}" = ACCEPT ]; then
  printf '%s' '{"result":"{\"verdict\":\"ACCEPT\",\"summary\":\"matches the task\",\"gaps\":[],\"advisories\":[]}"}'
else
  printf '%s' '{"result":"{\"verdict\":\"REJECT\",\"summary\":\"README not updated\",\"gaps\":[{\"severity\":\"high\",\"kind\":\"compliance\",\"detail\":\"README.md does not mention the greeting\"}],\"advisories\":[]}"}'
fi
STUB
chmod +x "$OUT/auditor.sh"
export CLAUDE_CLI=$OUT/auditor.sh

node_() { node "$@"; }
hook() {  # hook REPO TOOL_JSON : the pre-tool hook, as the host calls it
  CLAUDE_PROJECT_DIR=$1 ZODYSSEY_UNGATE_BASH= node "$JS/hooks/pre-tool.mjs" <<<"$2" >/dev/null 2>&1 || true
}
post_hook() {
  CLAUDE_PROJECT_DIR=$1 ZODYSSEY_UNGATE_BASH= node "$JS/hooks/post-tool.mjs" <<<"$2" >/dev/null 2>&1 || true
}
state() { node -e "const s=JSON.parse(require('fs').readFileSync('$1/.zcode/state/$2.json','utf8'));console.log($3)"; }

PLAN_STD='# Add a greeting

## Capability routing
- `generic: a two-file text change needs no specialised skill`

## Todos

- [ ] 1. Write the greeting
  - Files: [`greeting.txt`]
  - Acceptance criteria:
    - `test -f greeting.txt` exits 0
    - `grep -q hello greeting.txt` exits 0
    - `node --test test/` exits 0
- [ ] 2. Document it
  - Files: [`README.md`]
  - Acceptance criteria:
    - `grep -q greeting README.md` exits 0
    - `node --test test/` exits 0

## Final verification wave
- [ ] F1. Plan compliance audit
'

new_run() {  # new_run NAME SLUG PLAN_TEXT : repo + scaffold + plan + review OKAY
  local name=$1 slug=$2 plan=$3 repo=$OUT/$1
  rm -rf "$repo"; mkdir -p "$repo"
  git -C "$repo" init -q
  git -C "$repo" config user.email fixture@example.invalid
  git -C "$repo" config user.name fixture
  printf 'project\n' > "$repo/README.md"
  mkdir -p "$repo/test"
  printf '%s\n' 'import { test } from "node:test";' 'import { existsSync } from "node:fs";' \
    'test("readme", () => { if (!existsSync("README.md")) throw new Error("no README"); });' \
    > "$repo/test/readme.test.mjs"
  git -C "$repo" add -A; git -C "$repo" commit -qm baseline
  node_ "$S/scaffold.mjs" "$repo" "$slug" "Add a greeting" standard "add a greeting file and document it" >/dev/null
  printf '%s' "$plan" > "$repo/.zcode/plans/$slug.md"
  node_ "$S/parse-plan.mjs" "$repo/.zcode/plans/$slug.md" --lint >/dev/null
  # the routing declaration `generic:` is honoured by loading find-skills (F5)
  hook "$repo" '{"tool_name":"Skill","tool_input":{"skill":"find-skills"}}'
  post_hook "$repo" '{"tool_name":"Skill","tool_input":{"skill":"find-skills"},"tool_response":{"ok":true}}'
  node_ "$S/set-phase.mjs" "$repo" "$slug" review >/dev/null
  hook "$repo" '{"tool_name":"Task","tool_input":{"subagent_type":"zodyssey:momus","prompt":"review the plan"}}'
  local nonce; nonce=$(state "$repo" "$slug" "s.review.pending_nonce.nonce")
  printf '{"verdict":"OKAY","blockers":[],"notes":"executable criteria, scope declared"}' > "$OUT/staging/$name-momus.json"
  local art; art=$(node_ "$S/record-momus-artifact.mjs" "$repo" "$slug" --nonce "$nonce" --from "$OUT/staging/$name-momus.json" | tail -1)
  local sha; sha=$(sha256sum "$repo/.zcode/plans/$slug.md" | cut -d' ' -f1)
  node_ "$S/record-review.mjs" "$repo" "$slug" OKAY --momus-artifact "$art" --plan-sha "$sha" >/dev/null
}
verify() {  # verify REPO SLUG TODO N CMD : exit status of record-verify is returned
  node_ "$S/record-verify.mjs" "$1" "$2" "$3" --criterion "$5" --n "$4" >/dev/null 2>&1 || return $?
}
todo() { node_ "$S/record-todo.mjs" "$@" >/dev/null 2>&1 || return $?; }
phase() { node_ "$S/set-phase.mjs" "$@" >/dev/null 2>&1 || return $?; }
final_wave() {  # final_wave REPO SLUG [extra args] : F2/F4 reviewers approve
  local repo=$1 slug=$2; shift 2
  hook "$repo" '{"tool_name":"Task","tool_input":{"subagent_type":"feature-dev:code-reviewer","prompt":"review"}}'
  hook "$repo" '{"tool_name":"Task","tool_input":{"subagent_type":"zodyssey:oracle","prompt":"scope"}}'
  local n2 n4; n2=$(state "$repo" "$slug" "s.final_f2.pending_nonce.nonce"); n4=$(state "$repo" "$slug" "s.final_f4.pending_nonce.nonce")
  printf '{"verdict":"APPROVE","findings":[]}' > "$OUT/staging/f2.json"
  printf '{"verdict":"APPROVE","scope":"matches plan"}' > "$OUT/staging/f4.json"
  local a2 a4; a2=$(node_ "$S/record-final-artifact.mjs" "$repo" "$slug" F2 --nonce "$n2" --from "$OUT/staging/f2.json" | tail -1)
  a4=$(node_ "$S/record-final-artifact.mjs" "$repo" "$slug" F4 --nonce "$n4" --from "$OUT/staging/f4.json" | tail -1)
  mkdir -p "$repo/.zcode/verify"; printf -- '- [x] greeting reads well\n' > "$repo/.zcode/verify/qa-$slug.md"
  node_ "$S/record-final-wave.mjs" "$repo" "$slug" --f2-artifact "$a2" --f2-nonce "$n2" \
    --f3-checklist "$repo/.zcode/verify/qa-$slug.md" --f4-artifact "$a4" --f4-nonce "$n4" "$@" >/dev/null 2>&1 || return $?
}
work_all() { printf 'hello\n' > "$1/greeting.txt"; printf 'project with a greeting\n' > "$1/README.md"; }
verify_all() {  # the honest verify of PLAN_STD
  local repo=$1 slug=$2
  todo "$repo" "$slug" 1 in_flight --session exec-1
  printf 'hello\n' > "$repo/greeting.txt"
  phase "$repo" "$slug" verify
  verify "$repo" "$slug" 1 1 'test -f greeting.txt'
  verify "$repo" "$slug" 1 2 'grep -q hello greeting.txt'
  verify "$repo" "$slug" 1 3 'node --test test/'
  todo "$repo" "$slug" 1 done --session exec-1
  phase "$repo" "$slug" execute
  todo "$repo" "$slug" 2 in_flight --session exec-1
  printf 'project with a greeting\n' > "$repo/README.md"
  phase "$repo" "$slug" verify
  verify "$repo" "$slug" 2 1 'grep -q greeting README.md'
  verify "$repo" "$slug" 2 2 'node --test test/'
  todo "$repo" "$slug" 2 done --session exec-1
}
finish() { phase "$1" "$2" final; final_wave "$1" "$2"; phase "$1" "$2" done; }
