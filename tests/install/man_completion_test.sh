#!/usr/bin/env bash
# ctest "install: man page / bash completion": the generated man page, as `man` renders it, has a section for every
# verb that `shardscope --help` lists, holding every flag that verb's `--help` lists; the generated bash completion
# offers every verb, every flag of every verb, and the values of a choice flag.
#   man_completion_test.sh SHARDSCOPE_BINARY GENERATED_DIR (build/packaging: shardscope.1.gz, shardscope.bash-completion)
set -uo pipefail
bin="$1"; gen="$2"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

verbs=($("$bin" --help | awk '/^Verbs:/ {on = 1; next} on && NF == 0 {exit} on {print $1}'))
[ "${#verbs[@]}" -ge 10 ] || fail "shardscope --help lists only ${#verbs[@]} verbs"
# Every --flag a verb's help mentions (usage, text, option list), and the flags its option list declares (the
# lines that start with the flag's names: "  -o,--output FILE  ...").
declare -A help
for verb in "${verbs[@]}"; do help[$verb]="$("$bin" "$verb" --help)"; done
flags_of() { grep -oE '(^|[ ,])--[a-z][a-z0-9-]*' <<<"${help[$1]}" | sed 's/^[ ,]//' | sort -u; }
declared_flags_of() { grep -oE '^ +(-[a-z],)?--[a-z][a-z0-9-]*' <<<"${help[$1]}" | tr -d ' ' | tr ',' '\n' | sort -u; }

# ---- man ----
page="$(MANPAGER=cat MANWIDTH=120 man -l "$gen/shardscope.1.gz" 2>&1)" || fail "man -l failed: $page"
for verb in "${verbs[@]}"; do
  # The verb's subsection: from its heading (3 spaces in) to the next heading or section.
  section="$(awk -v v="$verb" '$0 == "   " v {on = 1; next} on && NF && match($0, /^ */) && RLENGTH <= 3 {exit} on' <<<"$page")"
  if [ -z "$section" ]; then fail "man shardscope has no section for '$verb'"; continue; fi
  missing="$(comm -23 <(flags_of "$verb") <(grep -oE -- '--[a-z][a-z0-9-]*' <<<"$section" | sort -u))"
  [ -z "$missing" ] || fail "man shardscope: '$verb' lacks" $missing
done
grep -q "^EXIT STATUS" <<<"$page" || fail "man shardscope has no EXIT STATUS"

# ---- bash completion ----
# shellcheck disable=SC1090
source "$gen/shardscope.bash-completion"
complete_line() {  # the candidates bash would offer for the words given (the last one being completed)
  COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
  _shardscope 2>/dev/null
  printf '%s\n' "${COMPREPLY[@]}" | sort
}
offered="$(complete_line shardscope "")"
for verb in "${verbs[@]}"; do grep -qx "$verb" <<<"$offered" || fail "completion does not offer the verb '$verb'"; done
[ "$(complete_line shardscope ch)" = check ] || fail "'shardscope ch' does not complete to check"
for verb in "${verbs[@]}"; do
  missing="$(comm -23 <(declared_flags_of "$verb") <(complete_line shardscope "$verb" -))"
  [ -z "$missing" ] || fail "completion of '$verb -' lacks" $missing
done
[ "$(complete_line shardscope run --device "" | tr '\n' ' ')" = "cpu cuda " ] || fail "run --device does not offer cpu cuda"
[ "$(complete_line shardscope run --device = c | tr '\n' ' ')" = "cpu cuda " ] || fail "run --device=c does not offer cpu cuda"
[ "$(complete_line shardscope render --theme l)" = light ] || fail "render --theme l does not complete to light"
[ -z "$(complete_line shardscope run --batches "")" ] || fail "run --batches offers values"
[ -z "$(complete_line shardscope run --json --de)" ] && fail "a switch before the cursor stops flag completion"

[ "$failures" = 0 ] || exit 1
echo "man page: ${#verbs[@]} verbs with their flags; completion: verbs, flags, choices"
