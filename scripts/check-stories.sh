#!/usr/bin/env bash
# check-stories.sh: the tests the docs name for a mechanism must tell its
# story under -v. For a sample of them, this runs `go test -run <test> -v`
# and fails, naming the test, if the test fails or prints fewer than
# MIN_LINES trace lines ("<stage>: ..." with stage one of server, listwatch,
# reflector, deltafifo, informer, workqueue, controller) between its
# "=== RUN" and its "--- PASS".
#
# Usage: scripts/check-stories.sh          (from anywhere in the repository)
# Called by `make test`. Takes a few seconds once the packages are built.
set -euo pipefail

cd "$(dirname "$0")/.."

MIN_LINES=${MIN_LINES:-3}

# package  test: the sample. One `go test` per package, so each test binary
# is built and run once.
STORIES=(
	"./deltafifo TestDeltaFIFO_ReplaceEmitsTombstonesForVanishedKeys"
	"./deltafifo TestDeltaFIFO_KeepsEveryDeltaNotOnlyTheLast"
	"./informer TestInformer_SlowHandlerDoesNotBlockOthers"
	"./informer TestInformer_TombstoneWhenDeleteMissedDuringOutage"
	"./workqueue TestController_RetriesFiveTimesThenDrops"
	"./listwatch TestWatchFromListResourceVersion"
	"./fakeapiserver TestWatch_TooOldVersionIsErrorFrame410"
	"./reflector TestReflector_RelistOn410"
)

# The regular expression of a trace line as trace.ForTest prints it (an
# optional "file.go:N: " prefix, should it go through t.Log).
TRACE_LINE='^[[:space:]]+([A-Za-z0-9_.-]+\.go:[0-9]+: )?(server|listwatch|reflector|deltafifo|informer|workqueue|controller): '

declare -A tests_of=()
packages=()
for s in "${STORIES[@]}"; do
	read -r pkg test <<<"$s"
	if [[ -z ${tests_of[$pkg]+set} ]]; then
		packages+=("$pkg")
		tests_of[$pkg]=$test
	else
		tests_of[$pkg]+="|$test"
	fi
done

failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for pkg in "${packages[@]}"; do
	run="^(${tests_of[$pkg]})\$"
	if ! timeout 120 go test -count=1 -v -run "$run" "$pkg" >"$out" 2>&1; then
		echo "check-stories: FAIL: go test $pkg -run '$run' -v failed:" >&2
		sed 's/^/    /' "$out" | tail -40 >&2
		failed=1
		continue
	fi
	IFS='|' read -r -a tests <<<"${tests_of[$pkg]}"
	for test in "${tests[@]}"; do
		# Count the trace lines between the test's "=== RUN" and its
		# "--- PASS" (its subtests' lines included), and check it passed.
		result=$(awk -v name="$test" -v re="$TRACE_LINE" '
			$0 == "=== RUN   " name { inside = 1; ran = 1; next }
			inside && $0 ~ "^--- (PASS|FAIL|SKIP): " name " " { status = $2; inside = 0; next }
			inside && $0 ~ re { n++ }
			END { printf "%s %d %d\n", (status == "" ? "NONE" : status), ran, n }
		' "$out")
		read -r status ran lines <<<"$result"
		if [[ $ran != 1 ]]; then
			echo "check-stories: FAIL: $test: no such test in $pkg (renamed? update scripts/check-stories.sh and the docs)" >&2
			failed=1
		elif [[ $status != "PASS:" ]]; then
			echo "check-stories: FAIL: $test ($pkg) did not pass: $status" >&2
			failed=1
		elif ((lines < MIN_LINES)); then
			echo "check-stories: FAIL: $test ($pkg) tells no story: $lines trace lines under -v, want at least $MIN_LINES" >&2
			echo "    (wire trace.ForTest(t) into the Options/Config of what the test builds)" >&2
			failed=1
		else
			echo "check-stories: ok   $test ($pkg): $lines trace lines"
		fi
	done
done

if ((failed)); then
	echo "check-stories: some tests tell no story; run them with -v to see (go test ./pkg -run TestX -v)" >&2
	exit 1
fi
