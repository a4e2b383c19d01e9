#!/usr/bin/env bash
# usage: cases.sh PIPELINE_CHECKOUT OUT_DIR  (generate.sh must sit next to this file)
# One directory per case under OUT_DIR; each is a git repository with the run under .zcode/.
source "$(dirname "$0")/generate.sh" "$@"

# 1. honest-done: every criterion executed and passing, final wave pass, phase done.
new_run honest-done greet "$PLAN_STD"
verify_all "$OUT/honest-done" greet
finish "$OUT/honest-done" greet

# 2. honest-audited: the same, then an external audit (consult.mjs) ACCEPTs; phase audited.
new_run honest-audited greet "$PLAN_STD"
verify_all "$OUT/honest-audited" greet
finish "$OUT/honest-audited" greet
AUDITOR_VERDICT=ACCEPT node "$S/consult.mjs" "$OUT/honest-audited" greet >/dev/null 2>&1
phase "$OUT/honest-audited" greet audited

# 3. audited-reject: the external auditor REJECTs, the run is set audited anyway.
new_run audited-reject greet "$PLAN_STD"
verify_all "$OUT/audited-reject" greet
finish "$OUT/audited-reject" greet
AUDITOR_VERDICT=REJECT node "$S/consult.mjs" "$OUT/audited-reject" greet >/dev/null 2>&1
phase "$OUT/audited-reject" greet audited

# 4. done-todo-inflight: todo 2 is still in flight with a failed criterion; the final wave
#    (which checks the diff, not the todos) passes and the run reaches done.
R=$OUT/done-todo-inflight
new_run done-todo-inflight greet "$PLAN_STD"
todo "$R" greet 1 in_flight --session exec-1
printf 'hello\n' > "$R/greeting.txt"
phase "$R" greet verify
verify "$R" greet 1 1 'test -f greeting.txt'
verify "$R" greet 1 2 'grep -q hello greeting.txt'
verify "$R" greet 1 3 'node --test test/'
todo "$R" greet 1 done --session exec-1
todo "$R" greet 2 in_flight --session exec-2
printf 'project, welcome text to follow\n' > "$R/README.md"
verify "$R" greet 2 1 'grep -q greeting README.md' || true   # fails: no "greeting" yet
verify "$R" greet 2 2 'node --test test/'
finish "$R" greet

# 5. final-fail: F1 finds an out-of-scope file; final.verdict fail; phase stays final.
R=$OUT/final-fail
new_run final-fail greet "$PLAN_STD"
verify_all "$R" greet
printf 'not in the plan\n' > "$R/notes.txt"
phase "$R" greet final
final_wave "$R" greet || true

# 6. final-waived: F2 and F4 skipped with a reason; done with --accept-waivers.
R=$OUT/final-waived
new_run final-waived greet "$PLAN_STD"
verify_all "$R" greet
phase "$R" greet final
mkdir -p "$R/.zcode/verify"; printf -- '- [x] greeting reads well\n' > "$R/.zcode/verify/qa-greet.md"
node "$S/record-final-wave.mjs" "$R" greet --f3-checklist "$R/.zcode/verify/qa-greet.md" \
  --skip F2,F4 --skip-reason "reviewers unavailable tonight" >/dev/null 2>&1
phase "$R" greet done --accept-waivers

# 7. plan-rebound: an honest run; afterwards the plan is widened and only the editable
#    state field review.plan_sha256 is updated to match (TAMPER).
R=$OUT/plan-rebound
new_run plan-rebound greet "$PLAN_STD"
verify_all "$R" greet
finish "$R" greet
python3 - "$R" <<'PY'
import hashlib, json, sys
root = sys.argv[1]
plan = f"{root}/.zcode/plans/greet.md"
text = open(plan).read().replace("[`README.md`]", "[`README.md`, `src/`]")
open(plan, "w").write(text)
state_file = f"{root}/.zcode/state/greet.json"
state = json.load(open(state_file))
state["review"]["plan_sha256"] = hashlib.sha256(text.encode()).hexdigest()  # TAMPER
json.dump(state, open(state_file, "w"), indent=2)
PY

# 8. multi-all / multi-subset: a criterion naming two commands. The honest run records both
#    (joined by &&); the other records only the first.
PLAN_MULTI=${PLAN_STD/'    - `grep -q hello greeting.txt` exits 0'/'    - `grep -q hello greeting.txt` and `grep -q world greeting.txt` both exit 0'}
for variant in all subset; do
  R=$OUT/multi-$variant
  new_run multi-$variant greet "$PLAN_MULTI"
  todo "$R" greet 1 in_flight --session exec-1
  printf 'hello\n' > "$R/greeting.txt"
  phase "$R" greet verify
  verify "$R" greet 1 1 'test -f greeting.txt'
  if [ $variant = all ]; then
    printf 'hello world\n' > "$R/greeting.txt"
    verify "$R" greet 1 2 'grep -q hello greeting.txt && grep -q world greeting.txt'
  else
    verify "$R" greet 1 2 'grep -q hello greeting.txt'
  fi
  verify "$R" greet 1 3 'node --test test/'
  todo "$R" greet 1 done --session exec-1
  phase "$R" greet execute
  todo "$R" greet 2 in_flight --session exec-1
  printf 'project with a greeting\n' > "$R/README.md"
  phase "$R" greet verify
  verify "$R" greet 2 1 'grep -q greeting README.md'
  verify "$R" greet 2 2 'node --test test/'
  todo "$R" greet 2 done --session exec-1
  finish "$R" greet
done

# 9. column0: a criterion wrapped onto a column-0 line; two criteria follow it. The
#    pipeline's parser keeps all four; every one is executed.
PLAN_COL0='# Add a greeting

## Capability routing
- `generic: a two-file text change needs no specialised skill`

## Todos

- [ ] 1. Write the greeting
  - Files: [`greeting.txt`, `README.md`]
  - Acceptance criteria:
    - `test -f greeting.txt` exits 0, and the file is the one the
greeting feature reads (wrapped at column 0)
    - `grep -q hello greeting.txt` exits 0
    - `grep -q greeting README.md` exits 0
    - `node --test test/` exits 0

## Final verification wave
- [ ] F1. Plan compliance audit
'
R=$OUT/column0
new_run column0 greet "$PLAN_COL0"
todo "$R" greet 1 in_flight --session exec-1
work_all "$R"
phase "$R" greet verify
verify "$R" greet 1 1 'test -f greeting.txt'
verify "$R" greet 1 2 'grep -q hello greeting.txt'
verify "$R" greet 1 3 'grep -q greeting README.md'
verify "$R" greet 1 4 'node --test test/'
todo "$R" greet 1 done --session exec-1
finish "$R" greet

# 9b. column0-failed: the same plan; the third criterion (after the wrapped line) fails and
#     the todo is still in flight.
R=$OUT/column0-failed
new_run column0-failed greet "$PLAN_COL0"
todo "$R" greet 1 in_flight --session exec-1
printf 'hello\n' > "$R/greeting.txt"
phase "$R" greet verify
verify "$R" greet 1 1 'test -f greeting.txt'
verify "$R" greet 1 2 'grep -q hello greeting.txt'
verify "$R" greet 1 3 'grep -q greeting README.md' || true
verify "$R" greet 1 4 'node --test test/'

# 10. stale-tree: an honest done run; afterwards the work tree changes (a late edit).
R=$OUT/stale-tree
new_run stale-tree greet "$PLAN_STD"
verify_all "$R" greet
finish "$R" greet
printf 'hello, edited after verification\n' > "$R/greeting.txt"

# 11. edited-verify: criterion 2 of todo 1 fails; the agent edits its verify record (state
#     history and artifact) into a pass and marks the todo done by hand (TAMPER). The
#     acceptance summary written with the failing record is left as it was.
R=$OUT/edited-verify
new_run edited-verify greet "$PLAN_STD"
todo "$R" greet 1 in_flight --session exec-1
printf 'goodbye\n' > "$R/greeting.txt"
phase "$R" greet verify
verify "$R" greet 1 1 'test -f greeting.txt'
verify "$R" greet 1 3 'node --test test/'
verify "$R" greet 1 2 'grep -q hello greeting.txt' || true
python3 - "$R" <<'PY'
import json, sys
root = sys.argv[1]
state_file = f"{root}/.zcode/state/greet.json"
state = json.load(open(state_file))
for entry in state["verify"]["history"]:
    if entry["todo_id"] == "1" and entry["criterion_index"] == 2:
        entry.update(passed=True, status="passed", exit_code=0)  # TAMPER
state["todos"]["1"]["status"] = "done"  # TAMPER
json.dump(state, open(state_file, "w"), indent=2)
artifact = f"{root}/.zcode/verify/greet/1-2.json"
record = json.load(open(artifact))
record.update(passed=True, status="passed", exit_code=0, output=None)  # TAMPER
json.dump(record, open(artifact, "w"), indent=2)
PY

# 12. forced-failed: todo 1's criterion fails; record-todo refuses done, --force-done forces it.
R=$OUT/forced-failed
new_run forced-failed greet "$PLAN_STD"
todo "$R" greet 1 in_flight --session exec-1
printf 'goodbye\n' > "$R/greeting.txt"
phase "$R" greet verify
verify "$R" greet 1 1 'test -f greeting.txt'
verify "$R" greet 1 2 'grep -q hello greeting.txt' || true
verify "$R" greet 1 3 'node --test test/'
todo "$R" greet 1 done --session exec-1 --force-done
phase "$R" greet execute
todo "$R" greet 2 in_flight --session exec-1
printf 'project with a greeting\n' > "$R/README.md"
phase "$R" greet verify
verify "$R" greet 2 1 'grep -q greeting README.md'
verify "$R" greet 2 2 'node --test test/'
todo "$R" greet 2 done --session exec-1
finish "$R" greet
echo "made: $(ls "$OUT" | grep -v -e home -e staging -e auditor.sh | tr '\n' ' ')"
