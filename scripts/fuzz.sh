#!/usr/bin/env bash
# Runs every fuzz target of the module for a while each: briefly in
# `make test` (FUZZTIME=2s), longer in `make fuzz` (FUZZTIME=30s).
# A target is found by name (func FuzzXxx in a _test.go file), so a new one
# joins without editing this script. A crasher is written by go test into
# the package's testdata/fuzz/<target>/ and from then on runs as a
# regression test in every `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-2s}"
GO="${GO:-go}"
n=0
# crashers counts the inputs go test has saved for a target (0 when none).
crashers() { find "$1/testdata/fuzz/$2" -type f 2>/dev/null | wc -l || true; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
while IFS= read -r file; do
	pkg="$(dirname "$file")"
	for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //'); do
		echo "fuzz: $pkg $target for $FUZZTIME"
		# A short run can end with "context deadline exceeded" and no
		# crasher: the engine's deadline passed while a worker was busy on
		# one input (a known flake of go test -fuzz under load). Only a run
		# that wrote a crasher, or fails twice, is a finding.
		for attempt in 1 2; do
			before=$(crashers "$pkg" "$target")
			if "$GO" test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" >"$log" 2>&1; then
				break
			fi
			after=$(crashers "$pkg" "$target")
			if [ "$attempt" = 1 ] && [ "$before" = "$after" ] && grep -q 'context deadline exceeded' "$log"; then
				echo "fuzz: $pkg $target: deadline flake without a crasher, running it again"
				continue
			fi
			cat "$log"
			echo "fuzz: $pkg $target FAILED (the crasher is in $pkg/testdata/fuzz/$target/)"
			exit 1
		done
		n=$((n + 1))
	done
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | sort)
echo "fuzz: $n targets, $FUZZTIME each, nothing found"
