#!/usr/bin/env bash
# check-stories.sh: the tests the docs name for a mechanism must tell its
# story under -v. For a sample of them, this runs `go test -run <test> -v`
# and fails, naming the test, if the test fails or prints fewer than
# MIN_LINES trace lines ("<stage>: ..." with stage one of server, listwatch,
# reflector, deltafifo, informer, workqueue, controller, storage) between its
# "=== RUN" and its "--- PASS", or if its story lacks the text given for it
# (the fact the test asserts, "check: ...", or a scenario script's comment).
#
# Usage: scripts/check-stories.sh          (from anywhere in the repository)
# Called by `make test`. Takes a few seconds once the packages are built.
set -euo pipefail

cd "$(dirname "$0")/.."

MIN_LINES=${MIN_LINES:-3}

# package  test  [text the story must contain]: the sample. Tests without
# a "/" run in one `go test` per package, so each test binary is built and
# run once; a subtest ("TestScenarios/03-...") runs on its own. Examples
# count: under -v an Example that runs a pipeline writes its trace to stderr
# (trace.ForExample).
STORIES=(
	"./deltafifo TestDeltaFIFO_ReplaceEmitsTombstonesForVanishedKeys"
	"./deltafifo TestDeltaFIFO_KeepsEveryDeltaNotOnlyTheLast"
	"./deltafifo ExampleDeltaFIFO_Replace"
	"./deltafifo TestScenarios/06-replace-tombstones # A relist that lacks cached keys"
	"./informer TestInformer_SlowHandlerDoesNotBlockOthers"
	"./informer TestInformer_TombstoneWhenDeleteMissedDuringOutage"
	"./informer TestInformer_HandlerHasSyncedVsInformerHasSynced check: informer.HasSynced()=true"
	"./informer TestFactory_OneWatchPerResource check: 2 consumers of pods, 1 informer: 1 list and 1 watch"
	"./informer Example_workqueueController"
	"./informer Example_sharedInformerFactory"
	"./informer TestOperator_UpgradesOneMemberAtATimeKeepingQuorum check: "
	"./informer TestScenarios/03-tombstone-after-outage # A delete missed during an outage becomes a tombstone"
	"./informer TestScenarios/01-list-then-watch # "
	"./workqueue TestController_RetriesFiveTimesThenDrops"
	"./workqueue Example_controllerLoop"
	"./listwatch TestWatchFromListResourceVersion"
	"./listwatch TestTLSWithCADataAndBearerToken check: the server checks the token"
	"./listwatch Example_listAndWatch"
	"./fakeapiserver TestWatch_TooOldVersionIsErrorFrame410"
	"./fakeapiserver TestWatch_ChunkedNewlineDelimitedFrames check: HTTP/1.1 200 with Transfer-Encoding: chunked"
	"./fakeapiserver/storage TestScripts/compaction # Compaction: the history is bounded"
	"./reflector TestReflector_RelistOn410"
	"./controller/replicaset ExampleNewReplicaSetController"
	"./cmd/watch TestRunListsThenWatchesFromListResourceVersion check: listed at resourceVersion 5, watched from 5"
	"./cmd/watch TestRunRelistsOnExpiredWatch check: the 410 ERROR frame made it relist"
	"./cmd/watch TestRunOverTLSWithTokenAndCA check: with --token wrong"
)

# The regular expression of a trace line as trace.ForTest prints it (an
# optional "file.go:N: " prefix, should it go through t.Log).
TRACE_LINE='^[[:space:]]+([A-Za-z0-9_.-]+\.go:[0-9]+: )?(server|listwatch|reflector|deltafifo|informer|workqueue|controller|storage): '

# runs: one entry per `go test` to run, "package<TAB>-run pattern<TAB>tests"
# (tests separated by "|").
declare -A tests_of=()
declare -A want_of=()
packages=()
runs=()
for s in "${STORIES[@]}"; do
	read -r pkg test want <<<"$s"
	want_of[$test]=${want:-}
	if [[ $test == */* ]]; then
		top=${test%%/*}
		sub=${test#*/}
		runs+=("$pkg"$'\t'"^${top}\$/^${sub}\$"$'\t'"$test")
	elif [[ -z ${tests_of[$pkg]+set} ]]; then
		packages+=("$pkg")
		tests_of[$pkg]=$test
	else
		tests_of[$pkg]+="|$test"
	fi
done
for pkg in "${packages[@]}"; do
	runs+=("$pkg"$'\t'"^(${tests_of[$pkg]})\$"$'\t'"${tests_of[$pkg]}")
done

failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for r in "${runs[@]}"; do
	IFS=$'\t' read -r pkg run names <<<"$r"
	if ! timeout 120 go test -count=1 -v -run "$run" "$pkg" >"$out" 2>&1; then
		echo "check-stories: FAIL: go test $pkg -run '$run' -v failed:" >&2
		sed 's/^/    /' "$out" | tail -40 >&2
		failed=1
		continue
	fi
	IFS='|' read -r -a tests <<<"$names"
	for test in "${tests[@]}"; do
		# Count the trace lines between the test's "=== RUN" and its
		# "--- PASS" (its subtests' lines included; a subtest's PASS line is
		# indented), check it passed, and look for the text its story needs.
		result=$(awk -v name="$test" -v re="$TRACE_LINE" -v want="${want_of[$test]}" '
			$0 == "=== RUN   " name { inside = 1; ran = 1; next }
			inside && $0 ~ "^[[:space:]]*--- (PASS|FAIL|SKIP): " name " " { status = $2; inside = 0; next }
			inside && $0 ~ re { n++ }
			inside && want != "" && index($0, want) { found = 1 }
			END { printf "%s %d %d %d\n", (status == "" ? "NONE" : status), ran, n, (want == "" || found) }
		' "$out")
		read -r status ran lines found <<<"$result"
		if [[ $ran != 1 ]]; then
			echo "check-stories: FAIL: $test: no such test in $pkg (renamed? update scripts/check-stories.sh and the docs)" >&2
			failed=1
		elif [[ $status != "PASS:" ]]; then
			echo "check-stories: FAIL: $test ($pkg) did not pass: $status" >&2
			failed=1
		elif ((lines < MIN_LINES)); then
			echo "check-stories: FAIL: $test ($pkg) tells no story: $lines trace lines under -v, want at least $MIN_LINES" >&2
			echo "    (wire trace.ForTest(t), or trace.ForExample in an Example, into the Options/Config of what the test builds)" >&2
			failed=1
		elif [[ $found != 1 ]]; then
			echo "check-stories: FAIL: $test ($pkg): its story under -v lacks \"${want_of[$test]}\"" >&2
			failed=1
		else
			echo "check-stories: ok   $test ($pkg): $lines trace lines${want_of[$test]:+, and \"${want_of[$test]}\"}"
		fi
	done
done

if ((failed)); then
	echo "check-stories: some tests tell no story; run them with -v to see (go test ./pkg -run TestX -v)" >&2
	exit 1
fi
