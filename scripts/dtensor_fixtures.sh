#!/usr/bin/env bash
# Dev-time: DTensor's own answers to tests/dtensor/cases.json, as the fixtures every test run compares core with.
#
#   scripts/dtensor_fixtures.sh            # both: tests/dtensor/oracle_2.14.json (sid) and oracle_2.6.json (trixie)
#   scripts/dtensor_fixtures.sh sid        # one of them
#
# Each suite's Debian root (scripts/dev_root.sh: debootstrap, cached outside the repository, built once) runs
# scripts/dtensor_oracle.py on a fake process group (CPU only, no GPU). A fixture is written only when it is whole:
# the torch version is the one its name promises, every case of cases.json has an answer, and no answer was cut by
# the time budget. Timings are dropped, so re-running on the same PyTorch rewrites the same bytes.
# Then: build and run the core tests ("DTensor oracle" cases in tests/core/test_dtensor_oracle.cpp).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(sid trixie)
for suite in "${suites[@]}"; do
  case "$suite" in
    sid) version=2.14 ;;
    trixie) version=2.6 ;;
    *) echo "dtensor_fixtures.sh: unknown suite '$suite' (sid or trixie)" >&2; exit 2 ;;
  esac
  scripts/dev_root.sh "$suite" >/dev/null
  out="tests/dtensor/oracle_$version.json"
  tmp="tests/dtensor/.oracle_$version.json.partial"
  rm -f "$tmp"
  scripts/dev_root.sh "$suite" --run python3 scripts/dtensor_oracle.py -o "$tmp" --budget 1200
  python3 - "$tmp" "$out" "$version" <<'EOF'
import json, sys
tmp, out, version = sys.argv[1:]
with open(tmp) as f:
    doc = json.load(f)
with open("tests/dtensor/cases.json") as f:
    cases = json.load(f)
problems = []
if not str(doc.get("torch_version", "")).startswith(version + "."):
    problems.append("torch %s, expected %s.x" % (doc.get("torch_version"), version))
for kind in ("layouts", "redistributes", "rules"):
    if kind + "_failure" in doc:
        problems.append("%s: the oracle failed: %s" % (kind, doc[kind + "_failure"]))
    want = {c["id"] for c in cases[kind]}
    have = set(doc.get(kind, {}))
    if want - have:
        problems.append("%s: %d case(s) unanswered" % (kind, len(want - have)))
    cut = [i for i, a in doc.get(kind, {}).items() if a.get("skipped") == "time budget"]
    if cut:
        problems.append("%s: %d case(s) cut by the time budget" % (kind, len(cut)))
if problems:
    sys.exit("dtensor_fixtures.sh: %s not written: %s" % (out, "; ".join(problems)))
doc.pop("seconds", None)
with open(out, "w") as f:
    json.dump(doc, f, indent=1, sort_keys=True)
    f.write("\n")
print("dtensor_fixtures.sh: torch %s -> %s" % (doc["torch_version"], out))
EOF
  rm -f "$tmp"
done
