#!/usr/bin/env bash
# ctest "install: desktop entry and MIME type": desktop-file-validate passes on packaging/shardscope.desktop, and
# the shared-mime-info XML registers the type that entry opens for *.plan.json (update-mime-database into a
# scratch folder), with the plan writer's "format" key as its magic.
#   desktop_test.sh SOURCE_DIR
set -euo pipefail
src="$1"
fail() { echo "FAIL: $*" >&2; exit 1; }
desktop-file-validate "$src/packaging/shardscope.desktop" || fail "desktop-file-validate"
type="application/x-shardscope-plan+json"
grep -qx "MimeType=$type;text/x-log;" "$src/packaging/shardscope.desktop" || fail "the entry does not open $type and *.log"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/mime/packages"
cp "$src/packaging/shardscope-mime.xml" "$tmp/mime/packages/shardscope.xml"
update-mime-database "$tmp/mime" 2>"$tmp/err" || { cat "$tmp/err" >&2; fail "update-mime-database"; }
grep -qx "60:$type:\*.plan.json" "$tmp/mime/globs2" || fail "*.plan.json is not $type"
grep -qx "$type application/json" "$tmp/mime/subclasses" || fail "$type is not a subclass of JSON"
grep -qa "\"format\": \"shardscope-plan\"" "$tmp/mime/magic" || fail "no magic for the plan's format key"
grep -q '"format": "shardscope-plan"' "$src/samples/falcon_index_put_2d.plan.json" || fail "the samples no longer start as the magic says"
echo "desktop entry valid; $type registered"
