package fastdecode

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

// conditionsJSON is a pod whose status has n conditions (n < 0: no
// conditions field at all), each with every field set, so that a stale
// field left in the room would show.
func conditionsJSON(name string, n int) string {
	if n < 0 {
		return fmt.Sprintf(`{"metadata":{"name":%q},"status":{"phase":"Running"}}`, name)
	}
	probe := "" // only "five" sets lastProbeTime: a room not cleared would pass it on to "two"
	if name == "five" {
		probe = `,"lastProbeTime":"2026-11-23T03:00:00Z"`
	}
	cs := make([]string, n)
	for i := range cs {
		cs[i] = fmt.Sprintf(`{"type":"T%d","status":"True","reason":"R-%s-%d","message":"M-%s-%d","lastTransitionTime":"2026-11-23T04:00:0%dZ"%s}`, i, name, i, name, i, i%10, probe)
	}
	return fmt.Sprintf(`{"metadata":{"name":%q},"status":{"conditions":[%s]}}`, name, strings.Join(cs, ","))
}

// Decoding pods one after another in one room gives each pod exactly what
// a plain decode gives it: the same values (no field left over from the
// pod before), nil where the JSON had no conditions, empty where it had [],
// and conditions of their own, not the room's: decoding the next pod
// changes nothing in the last.
func TestRoom_SameValuesAsAPlainDecode(t *testing.T) {
	var r room
	bodies := []string{
		conditionsJSON("five", 5),
		conditionsJSON("two", 2), // fewer than before: nothing of "five" may remain
		conditionsJSON("none", -1),
		`{"metadata":{"name":"empty"},"status":{"conditions":[]}}`,
		`{"metadata":{"name":"null"},"status":{"conditions":null}}`,
		conditionsJSON("many", roomForConditions+4), // outgrows the room
		conditionsJSON("three", 3),
	}
	var decoded []*api.Pod
	var plain []*api.Pod
	for _, b := range bodies {
		want := &api.Pod{}
		require.NoError(t, json.Unmarshal([]byte(b), want))
		plain = append(plain, want)

		got := &api.Pod{}
		r.lend(got)
		require.NoError(t, json.Unmarshal([]byte(b), got))
		r.giveBack(got, false)
		decoded = append(decoded, got)

		require.Empty(t, cmp.Diff(want, got), b)
		require.Equal(t, want.Status.Conditions == nil, got.Status.Conditions == nil, "nil-ness: %s", want.Name)
		if len(got.Status.Conditions) <= roomForConditions { // an outgrown room leaves json's slice, for compaction to trim
			require.Equal(t, len(got.Status.Conditions), cap(got.Status.Conditions), "%s: spare room", want.Name)
		}
	}
	// Every pod still holds its own values after all the others were
	// decoded in the same room.
	for i := range decoded {
		require.Empty(t, cmp.Diff(plain[i], decoded[i]), "pod %s changed by later decodes", plain[i].Name)
	}
	t.Logf("fastdecode: %d pods decoded one after another in one room: each equal to a plain decode, none sharing the room", len(bodies))
}

// What the room is for: decoding a pod's conditions leaves no garbage
// behind but the exact copy the pod keeps.
func TestRoom_LeavesLessGarbage(t *testing.T) {
	body := []byte(conditionsJSON("p", 5))
	var r room
	plain := testing.AllocsPerRun(200, func() {
		var p api.Pod
		_ = json.Unmarshal(body, &p)
		Compact(&p)
	})
	lent := testing.AllocsPerRun(200, func() {
		var p api.Pod
		r.lend(&p)
		_ = json.Unmarshal(body, &p)
		r.giveBack(&p, false)
		Compact(&p)
	})
	require.Less(t, lent, plain-2, "allocations per pod: %v plain, %v with a room", plain, lent)
	t.Logf("fastdecode: a pod with five conditions: %v allocations decoded plainly and compacted, %v with a room", plain, lent)
}
