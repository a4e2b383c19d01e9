"""Second red-team round: the categories of issue 14, each with our own examples.

Rows are (command, class, targets, unknown), as in `test_gate_redteam.py`:
what bash and the tools' documentation say the command can do. The red team's
own corpus is kept apart; these examples vary each weakness (spelling,
position, quoting) so the fix has to be the general one.
"""

from __future__ import annotations

import pytest

from zodyssey.gate.shell import classify, classify_parsed

R = "read"
W = "write"

# options whose value is glued to the flag, and options whose value can only be glued
ATTACHED = [
    ("git grep -Ovim foo", W, [], True),
    ("git grep -nOvim foo", W, [], True),
    ("git grep -iO'less -R' foo", W, [], True),
    ("git grep -n -e x -Oed", W, [], True),
    ("git grep --open-files-in-pager=vim foo", W, [], True),
    ("git grep -n -A3 foo", R, [], False),
    ("git grep -e -O foo", R, [], False),  # -e takes `-O` as the pattern
    ("xargs -e rm -rf build", W, ["build"], True),
    ("xargs -eEND rm -rf build", W, ["build"], True),
    ("xargs --eof rm x", W, ["x"], True),
    ("xargs --max-lines rm x", W, ["x"], True),
    ("xargs -l rm x", W, ["x"], True),
    ("xargs -i rm {}", W, [], True),
    ("xargs --replace rm x", W, ["x"], True),
    ("xargs -e touch", W, [], True),
    ("xargs --eof rm", W, [], True),
    ("xargs --max-lines touch", W, [], True),
    ("xargs -l touch", W, [], True),
    ("xargs -e", R, [], False),
    ("xargs -E END cat", R, [], False),
    ("xargs -0 -n1 grep foo", R, [], False),
    ("xargs -Ifile grep x file", R, [], False),
    ("uniq --group in.txt out.txt", W, ["out.txt"], False),
    ("uniq --all-repeated in.txt out.txt", W, ["out.txt"], False),
    ("uniq --all-repeated=separate in.txt", R, [], False),
    ("mkdir --context a b", W, ["a", "b"], False),
    ("shred --remove secret other", W, ["secret", "other"], False),
    ("date -s2020-01-01", W, [], True),
    ("date -us '2020-01-01'", W, [], True),
    ("date -Iseconds", R, [], False),
    ("date -d yesterday +%F", R, [], False),
    ("hostname -F/etc/x", W, [], True),
    ("hostname -f", R, [], False),
    ("file -Cm magic", W, [], True),
    ("file -bi x.png", R, [], False),
]

SED_LABELS: list[tuple[str, str, list[str], bool]] = [
    ("sed ':a w f' in", W, [], True),
    ("sed -n 'b x; :x w g' in", W, [], True),
    ("sed -n 'bx;:x w h' in", W, [], True),
    ("sed -n 't end; :end W out' in", W, [], True),
    ("sed -n ':loop s/a/b/w out' in", W, [], True),
    ("sed -n 'T  skip ;:skip e date' in", W, [], True),
    ("sed -n '/x/b end\n:end w k' in", W, [], True),
    ("sed 'r other; w out' in", W, [], True),
    ("sed -e :a -e '$!N;s/\\n//;ta' in", R, [], False),
    ("sed ':a;N;$!ba;s/\\n/ /g' in", R, [], False),
    ("sed -n '/start/,/end/{p}' in", R, [], False),
    # text after `a\` is text on every sed (checked with GNU sed 4.9)
    ("sed 'a\\\nfoo\\\nw out' in", R, [], False),
    ("sed '1a\\\n  hello' in", R, [], False),
    ("sed 'a\\\nfoo\nw out' in", W, [], True),
    # a one-line `a text` ending in a backslash continues on GNU sed only
    ("sed 'a foo\\\nw out' in", W, [], True),
    # long scripts are followed to the end under every reading (no give-up)
    ("sed '" + "a text\\\n" * 5000 + "' in", R, [], False),
    ("sed '" + ":a;" * 20000 + "p' in", R, [], False),
    ("sed '" + ":a;" * 20000 + "w x' in", W, [], True),
]

TEST_REDIRECTS = [
    ('[ "$n" > 10 ]', W, ["10"], False),
    ("[ a > b ] && echo yes", W, ["b"], False),
    ('if [ "$x" > out ]; then :; fi', W, ["out"], False),
    ('[ -n "$a" -a "$b" > out ]', W, ["out"], False),
    ('[ "$n" >> log ]', W, ["log"], False),
    ('[ "$n" > "$f" ]', W, [], True),
    ('test "$a" \\> "$b"', R, [], False),
    ('[[ "$a" > "$b" ]]', R, [], False),
    ('[ "$a" -gt 10 ]', R, [], False),
    ('test "$n" > 10', W, ["10"], False),
]

SUBSTITUTIONS = [
    ("cat <<EOF\n$(rm -rf x)\nEOF", W, ["x"], False),
    ("cat <<-EOF\n\t$(rm -rf x)\n\tEOF", W, ["x"], False),
    ("cat <<EOF\n`rm c`\nEOF", W, ["c"], False),
    ("cat <<EOF\na $(ls) `rm y`\nEOF", W, ["y"], False),
    ('cat <<EOF\n"quoted" `rm z`\nEOF', W, ["z"], True),
    ("cat <<EOF\n${x:-`rm d`}\nEOF", W, ["d"], False),
    ("cat <<'EOF'\n$(rm -rf x) `rm y`\nEOF", R, [], False),
    ('cat <<"EOF"\n$(rm -rf x)\nEOF', R, [], False),
    ("cat <<\\EOF\n`rm y`\nEOF", R, [], False),
    # tree-sitter-bash cannot parse escaped substitutions in a body: unknown
    ("cat <<EOF\n\\$(not run) \\`nor this\\`\nEOF", W, [], True),
    ("cat <<EOF\ncost: \\$5\nEOF", R, [], False),
    ("cat <<EOF\n${PATH:=/tmp/evil}\nEOF", W, [], True),
    ('echo "${x:-`rm a`}"', W, ["a"], False),
    ("echo ${x:-$(rm a)}", W, ["a"], False),
    ("echo ${x#$(rm b)}", W, ["b"], False),
    ('echo "${x/`rm c`/d}"', W, ["c"], False),
    ("cat <<EOF\nplain $HOME text\nEOF", R, [], False),
]

ARITHMETIC: list[tuple[str, str, list[str], bool]] = [
    ("echo ${s:i}", W, [], True),
    ("echo ${s:i:n}", W, [], True),
    ("echo ${s:1:n}", W, [], True),
    ('echo "${@:i}"', W, [], True),
    ("echo ${s: -2}", R, [], False),
    ("echo ${s:1:2}", R, [], False),
    ("i=2; echo ${s:i}", R, [], False),
    ("echo ${s:-i}", R, [], False),
    ("[[ $x -eq 1 ]]", W, [], True),
    ("[[ -n a && x -lt 3 ]]", W, [], True),
    ("x=1; [[ $x -eq 1 ]]", R, [], False),
    ("echo $[x]", W, [], True),
]

VARIABLES: list[tuple[str, str, list[str], bool]] = [
    ("export 'PATH=/tmp/evil'; ls", W, [], True),
    ('export "PATH"=/tmp/evil; ls', W, [], True),
    ("export P\\ATH=/tmp/evil; ls", W, [], True),
    ("export {PATH,X}=/tmp/evil; ls", W, [], True),
    ("declare -x P{AT,}H=/tmp/evil; ls", W, [], True),
    (": ${PATH:=/tmp/evil}; ls", W, [], True),
    (": ${PATH=/tmp/evil}; ls", W, [], True),
    ("echo ${BASH_ENV:=x}", W, [], True),
    ('echo "${GIT_EXTERNAL_DIFF:=x}"', W, [], True),
    ("export -- 'LD_PRELOAD=/x'", W, [], True),
    ('declare -gx "BASH_ENV=x"', W, [], True),
    ("typeset -x 'ENV=x'", W, [], True),
    ("readonly 'GIT_SSH_COMMAND=x'", W, [], True),
    ("export -- GIT_CONFIG_PARAMETERS=x", W, [], True),
    ("declare -A BASH_CMDS=([ls]=/tmp/evil); ls", W, [], True),
    ("BASH_CMDS[ls]=/tmp/evil; ls", W, [], True),
    ("hash -p /tmp/evil ls; ls", W, [], True),
    ("export 'EDITOR'", R, [], False),
    ("export LANG=C.UTF-8; ls", R, [], False),
    ("declare -x 'COLUMNS=80'", R, [], False),
    (": ${COLUMNS:=80}", R, [], False),
]

READ_LOOKING_WRITES = [
    ("pip list --log f", W, ["f"], False),
    ("pip --log f list", W, ["f"], False),
    ("pip3 show requests --log-file=pip.log", W, ["pip.log"], False),
    ("pip freeze --lo f", W, [], True),
    ("pip list --local", R, [], False),
    ("pip list --outdated --cache-dir=src/cache", W, ["src/cache"], False),
    ("pip list --no-cache-dir", R, [], False),
    ("npm ls --logs-dir=src", W, [], True),
    ("uv pip list --cache-dir src", W, [], True),
    ("cargo tree", W, [], True),
    ("cargo metadata --format-version 1", W, [], True),
    ("go env -w GOFLAGS=-mod=mod", W, [], True),
    ("go env -u GOFLAGS", W, [], True),
    ("go env GOPATH", R, [], False),
    ("uv tree", W, [], True),
    ("uv tree --frozen", R, [], False),
    ("uv tree --locked --depth 1", R, [], False),
    ("tree -R -H . -o index.html", W, [], True),  # writes 00Tree.html in every directory
    ("tree -L 2", R, [], False),
    ("wget --config=my.rc -O out http://h", W, [], True),
    ("WGETRC=my.rc wget -O out http://h", W, ["out"], True),
    ("CURL_HOME=. curl http://h", W, [], True),
    ("lz4 -l f", W, [], True),  # -l is lz4's legacy format: it compresses
    ("lz4 -dc f.lz4", R, [], False),
    ("git help -w log", W, [], True),
    ("git help log", R, [], False),
]

BACKUPS = [
    ("sed -i.bak s/a/b/ f", W, ["f", "f.bak"], False),
    ("sed -i.orig -e s/a/b/ src/f.py g", W, ["src/f.py", "g", "src/f.py.orig", "g.orig"], False),
    ("sed --in-place=.orig s/a/b/ f", W, ["f", "f.orig"], False),
    ("sed -i'bak_*' s/a/b/ d/f", W, ["d/f", "bak_d/f"], False),  # checked with GNU sed 4.9
    ("sed -i s/a/b/ f", W, ["f"], False),
    ("cp -b a b", W, ["b"], True),
    ("cp --backup=simple --suffix=.old a b", W, ["b", "b.old", "b/a.old"], False),
    ("cp --backup=none a b", W, ["b"], False),
    ("mv -b a b", W, ["a", "b"], True),
    ("install -b a b", W, ["b"], True),
    ("ln -b a b", W, ["b"], True),
    ("cp -S .bak a b", W, ["b"], True),
    ("git --work-tree=/etc checkout -- passwd", W, ["passwd", "/etc/passwd"], False),
    ("git --work-tree /etc restore passwd", W, ["passwd", "/etc/passwd"], False),
    ("git --work-tree=../other add f", W, ["f", "../other/f"], False),
    ("git --work-tree=$W add f", W, [], True),
    ("git --work-tree=/etc status", R, [], False),
    ("CDPATH=/etc; cd x && echo > passwd", W, [], True),
    ("export 'CDPATH=/etc'; cd x && echo > passwd", W, [], True),
    ("CDPATH=/etc; cd ./x && echo > passwd", W, ["./x/passwd"], True),
    ("cd x && echo > passwd", W, ["x/passwd"], False),
]

# `env -C DIR CMD` runs CMD in DIR, but env is a program of its own: the shell
# stays where it was, so a later command's paths are not taken from DIR.
WRAPPER_DIRECTORIES = [
    ("env -C src true && rm README.md", W, ["README.md"], False),
    ("env --chdir=src true && rm README.md", W, ["README.md"], False),
    ("env --chdir src true && echo x > passwd", W, ["passwd"], False),
    ("env -C /etc true && echo x > passwd", W, ["passwd"], False),
    ("env -C src rm x", W, ["src/x"], False),
    ("nice -n 5 env -C src true && rm y", W, ["y"], False),
    ("command cd src && rm x", W, ["src/x"], False),
]

ROWS = [
    *ATTACHED,
    *WRAPPER_DIRECTORIES,
    *SED_LABELS,
    *TEST_REDIRECTS,
    *SUBSTITUTIONS,
    *ARITHMETIC,
    *VARIABLES,
    *READ_LOOKING_WRITES,
    *BACKUPS,
]


@pytest.mark.parametrize(("command", "kind", "targets", "unknown"), ROWS)
def test_round_two(command: str, kind: str, targets: list[str], unknown: bool) -> None:
    for analysis in (classify(command), classify_parsed(command)):
        record = analysis.as_record()
        assert record["class"] == kind, (command, analysis)
        assert record["targets"] == targets, (command, analysis)
        assert record["unknown"] == unknown, (command, analysis)


def test_cdpath_makes_any_later_relative_cd_unknown() -> None:
    # CDPATH set anywhere before, in any spelling: `cd NAME` may go anywhere
    for setter in ("CDPATH=/etc", "export CDPATH=/etc", 'declare "CDPATH=/etc"', "read CDPATH"):
        analysis = classify(f"{setter}; cd x && touch f")
        assert analysis.unknown and "x/f" not in [t.path for t in analysis.targets], setter


# A command substitution runs wherever it sits: every position, every spelling.
POSITIONS = [
    "echo {}",
    'echo "{}"',
    'echo "a {} b"',
    "x={}",
    'x="{}"',
    "export x={}",
    "local x={}",
    "declare -a a=({})",
    "echo > {}",
    "cat < {}",
    "cat <<EOF\n{}\nEOF",
    "cat <<-EOF\n\t{}\n\tEOF",
    'cat <<EOF\n  indent {} and "quote"\nEOF',
    'cat <<< "{}"',
    "cat <<< {}",
    "echo ${{x:-{}}}",
    'echo "${{x:-{}}}"',
    "echo ${{x#{}}}",
    "echo ${{x%%{}}}",
    "echo ${{x/{}/y}}",
    "echo ${{x/y/{}}}",
    "echo ${{x:={}}}",
    "echo ${{x:+{}}}",
    "echo ${{x:?{}}}",
    "case {} in a) ;; esac",
    "case a in {}) ;; esac",
    "for i in {}; do :; done",
    "echo $(( {} ))",
    "[[ {} == a ]]",
    "[[ a == {} ]]",
    "[ {} = a ]",
    "test {} = a",
    "f() {{ echo {}; }}",
    "if {}; then :; fi",
    "while {}; do break; done",
    "diff <(echo {}) /dev/null",
    "echo {} | cat",
    "(echo {})",
    "{{ echo {}; }}",
    "echo a{}b",
    "echo 'x'{}",
    'printf -v v "%s" {}',
    "arr[{}]=1",
    "echo ${{arr[{}]}}",
    "trap 'echo {}' EXIT",
    "eval 'echo {}'",
    "bash -c 'echo {}'",
    "xargs echo {} < /dev/null",
    "find . -name {}",
    "git log --grep={}",
    "time echo {}",
    "! echo {}",
    "coproc echo {}",
]
SUBSTITUTIONS_IN_HOLES = [
    "$(touch pwned)",
    "`touch pwned`",
    '"$(touch pwned)"',
    "$(touch pwned; ls)",
]


@pytest.mark.parametrize("template", POSITIONS)
def test_a_substitution_anywhere_is_classified(template: str) -> None:
    for hole in SUBSTITUTIONS_IN_HOLES:
        command = template.format(hole)
        for analysis in (classify(command), classify_parsed(command)):
            assert analysis.is_write, (command, analysis)
            assert "pwned" in [t.path for t in analysis.targets] or analysis.unknown, command


@pytest.mark.parametrize(
    "command",
    [
        "echo '$(touch pwned)'",
        "cat <<'EOF'\n$(touch pwned)\nEOF",
        "echo '`touch pwned`'",
        "printf '%s' '${x:-$(touch pwned)}'",
    ],
)
def test_a_quoted_substitution_does_not_run(command: str) -> None:
    assert not classify(command).is_write, classify(command)


# A variable that changes what runs, set in any of these ways, makes the command unknown.
RISKY_NAMES = [
    "PATH",
    "BASH_ENV",
    "ENV",
    "LD_PRELOAD",
    "GIT_SSH_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_CONFIG_PARAMETERS",
    "BASH_CMDS",
    "CDPATH",
    "PAGER",
]
SETTINGS = [
    "{N}=x; ls",
    "{N}=x ls",
    "{N}+=x; ls",
    "{N}[0]=x; ls",
    "export {N}=x; ls",
    "export -- {N}=x; ls",
    "export -n {N}=x; ls",
    "declare {N}=x",
    "declare -x {N}=x",
    "declare -g {N}=x",
    "declare -gx -- {N}=x",
    "typeset {N}=x",
    "readonly {N}=x",
    "f() {{ local {N}=x; ls; }}; f",
    "export '{N}=x'; ls",
    'export "{N}=x"; ls',
    'export "{N}"=x; ls',
    "export {N}\\=x; ls",
    "export '{N}'\"=x\"; ls",
    "export {{{N},Z}}=x; ls",
    "declare -x {{{N},Z}}=x",
    ": ${{{N}:=x}}; ls",
    ": ${{{N}=x}}; ls",
    'echo "${{{N}:=x}}"',
    "read {N} <<< x; ls",
    "read -r {N} < /dev/null",
    "read -a {N} <<< x",
    "printf -v {N} x; ls",
    "printf -v '{N}' x",
    "mapfile -t {N} < /dev/null",
    "readarray {N} < /dev/null",
    "getopts ab {N}",
    "for {N} in x; do ls; done",
    "select {N} in x; do break; done",
    "eval {N}=x",
    "eval 'export {N}=x'",
    "env {N}=x ls",
    "command export {N}=x",
    "builtin declare {N}=x",
    "builtin export '{N}=x'",
    "bash -c 'export {N}=x; ls'",
    "(( {N}=1 ))",
    "let {N}=1",
    "wait -p {N}",
    "declare -n r={N}; r=x",
    "{N}=x eval ls",
]


@pytest.mark.parametrize("setting", SETTINGS)
def test_a_risky_variable_set_any_way_is_unknown(setting: str) -> None:
    for name in RISKY_NAMES:
        command = setting.format(N=name)
        for analysis in (classify(command), classify_parsed(command)):
            assert analysis.unknown, (command, analysis)


@pytest.mark.parametrize("setting", SETTINGS)
def test_an_ordinary_variable_set_the_same_way_is_not(setting: str) -> None:
    # the same spellings with a harmless name: what blocks above is the name
    command = setting.format(N="COLUMNS")
    if "eval" in command or "bash -c" in command or "declare -n" in command:
        return  # re-parsed strings and namerefs are judged on their own
    if "{COLUMNS,Z}" in command or "(( " in command:
        return  # a brace-expanded name, arithmetic on an unset name: unknown anyway
    analysis = classify(command)
    assert not analysis.unknown, (command, analysis)


# Writing options however they are spelled: glued values, clusters, GNU
# abbreviations. Expected targets, or None for unknown.
GLUED = [
    ("sort -o out in", ["out"]),
    ("sort -oout in", ["out"]),
    ("sort -uo out in", ["out"]),
    ("sort -uoout in", ["out"]),
    ("sort --output=out in", ["out"]),
    ("sort --output out in", ["out"]),
    ("sort --out=out in", None),
    ("sort --outp out in", None),
    ("shuf -oout in", ["out"]),
    ("shuf -no out in", []),  # -n takes "o"
    ("curl -oout http://h", ["out"]),
    ("curl -sSLo out http://h", ["out"]),
    ("curl -sSLoout http://h", ["out"]),
    ("curl --outp out http://h", None),
    ("curl -sO http://h", None),
    ("curl -Os http://h", None),
    ("wget -qOout http://h", ["out"]),
    ("wget -O out http://h", ["out"]),
    ("sed -ni s/a/b/ f", ["f"]),
    ("sed -Ei s/a/b/ f", ["f"]),
    ("sed -si s/a/b/ f", ["f"]),
    ("sed --in-pl s/a/b/ f", None),
    ("sed -n -e 'w out' f", None),
    ("sed -new f", None),
    ("sed -nes/a/b/w\\ out f", None),
    ("tee -a log", ["log"]),
    ("tee --app log", None),
    ("git diff --outp=x", None),
    ("git diff --output=x", ["x"]),
    ("git grep --open foo", None),
    ("git grep -Ovim foo", None),
    ("git grep -iOvim foo", None),
    ("date --se=2020-01-01", None),
    ("date -s2020", None),
    ("date -us 2020", None),
    ("hostname --fil=/etc/x", None),
    ("hostname -F/etc/x", None),
    ("file --comp m", None),
    ("file -Cm m", None),
    ("cp --back=simple --suffix=.o a b", None),
    ("cp --suff=.o a b", None),
    ("install --strip-program=evil -s a b", None),
    ("install --strip-prog=evil -s a b", None),
    ("man --pag=id ls", None),
    ("man -Pid ls", None),
    ("man -kP id ls", None),
    ("xargs --eo rm", None),
    ("xargs -e rm", None),
    ("xargs -eX rm", None),
    ("xargs -0e rm", None),
    ("time -ofile ls", ["file"]),
    ("time --outp=file ls", None),
    ("tree -oout", ["out"]),
    ("tree -aoout", ["out"]),
    ("zstd -oout f", ["out"]),
    ("zstd -qo out f", ["out"]),
    ("yq -i '.a=1' f", None),
    ("yq -Pi '.a=1' f", None),
    ("yq -si f", None),
    ("mktemp -d", None),
    ("mktemp -ud", []),
    ("gzip -k f", None),
    ("gzip -dk f.gz", None),
    ("gzip -dck f.gz", []),
    ("unzip -o a.zip", None),
    ("unzip -ql a.zip", []),
    ("ar rcs lib.a x.o", None),
    ("ar -tv lib.a", []),
    ("ar ts lib.a", None),
    ("hash -rp /x ls", None),
    ("hash -r", []),
]


@pytest.mark.parametrize(("command", "expected"), GLUED)
def test_writing_options_in_every_spelling(command: str, expected: list[str] | None) -> None:
    for analysis in (classify(command), classify_parsed(command)):
        got = None if analysis.unknown else [t.path for t in analysis.targets]
        assert got == expected, (command, analysis)
