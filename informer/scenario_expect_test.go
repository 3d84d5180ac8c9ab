package informer

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// An "expect" line is the story's claim: without -update, one that does
// not hold fails the script. With -update it is rewritten, like every
// command's output, to what happened: the values that held under each
// informer, once if both agree, else per informer (articles=V today=V).
// So a script edited as docs/scenarios.md's "Make your own" says can be
// brought up to date with one -update, and `git diff` shows each claim
// that changed.

// scExpect is what one expect found: what was checked, the values that
// name which thing (a handler, a key), and the values that held.
type scExpect struct {
	what  string
	fixed []string
	got   []string
	held  bool
}

// expect checks a claim about the state. A failed one fails the script,
// unless the script is being rewritten (-update): then it prints what
// held, and runScenarioScript rewrites the line from e.lastExpect.
func (e *scEnv) expect(args []string) ([]string, error) {
	if len(args) < 2 {
		return nil, errors.New("usage: expect rv|lists|watches|cache|pending|requeues|workqueue VALUE... (a VALUE articles=V or today=V holds under that informer only)")
	}
	out := e.settle()
	what, want := args[0], e.forPipeline(args[1:])
	var got, fixed []string
	switch what {
	case "rv":
		got = []string{e.informer().LastSyncResourceVersion()}
	case "lists", "watches":
		verb := map[string]string{"lists": "list", "watches": "watch"}[what]
		got = []string{strconv.Itoa(e.server().RequestCount(verb, e.resource.Resource))}
	case "cache":
		got = e.cacheItems()
		want = scExpandKeys(want)
	case "pending":
		h := e.handlers[want[0]]
		if h == nil || len(want) != 2 {
			return nil, errors.New("usage: expect pending HANDLER N")
		}
		fixed = want[:1]
		got, want = []string{strconv.Itoa(h.reg.Pending())}, want[1:]
	case "requeues":
		if len(want) != 2 {
			return nil, errors.New("usage: expect requeues KEY N")
		}
		fixed = want[:1]
		got, want = []string{strconv.Itoa(e.wq.NumRequeues(scKey(want[0])))}, want[1:]
	case "workqueue":
		got = slices.Clone(e.workModel.ready)
		if len(got) == 0 {
			got = []string{"(empty)"}
		}
		want = scExpandKeys(want)
	default:
		return nil, fmt.Errorf("expect: unknown %q", what)
	}
	held := slices.Equal(got, want)
	e.lastExpect = &scExpect{what: what, fixed: fixed, got: got, held: held}
	if !held && !e.update {
		return nil, fmt.Errorf("expect %s: got %s, want %s", what, strings.Join(got, " "), strings.Join(want, " "))
	}
	return append(out, "ok: "+what+" "+strings.Join(got, " ")), nil
}

// takeExpect returns what the last command's expect found (nil if the
// command was no expect) and forgets it.
func (e *scEnv) takeExpect() *scExpect {
	x := e.lastExpect
	e.lastExpect = nil
	return x
}

// scRewriteExpect returns the expect command that states what held under
// each informer (found[j] under informers[j]), or "" if the command as
// written held under every one (it is kept as written).
func scRewriteExpect(informers []string, found []*scExpect) string {
	var first *scExpect
	allHeld, same := true, true
	for _, x := range found {
		if x == nil {
			continue
		}
		if first == nil {
			first = x
		}
		allHeld = allHeld && x.held
		same = same && slices.Equal(x.got, first.got)
	}
	if first == nil || allHeld {
		return ""
	}
	words := append([]string{"expect", first.what}, first.fixed...)
	for j, x := range found {
		if x == nil {
			continue
		}
		for _, v := range x.got {
			v = strings.TrimPrefix(v, "default/") // keys are written short, as the scripts do
			if same {
				words = append(words, v)
			} else {
				words = append(words, informers[j]+"="+v)
			}
		}
		if same {
			break
		}
	}
	return strings.Join(words, " ")
}

// forPipeline picks, from an expect's values, those for the informer the
// script runs under: "articles=2 today=0" is 2 under Articles and 0 under
// Today; values without a pipeline's name hold under both.
func (e *scEnv) forPipeline(values []string) []string {
	var out []string
	for _, v := range values {
		name, val, ok := strings.Cut(v, "=")
		switch {
		case !ok || (name != Articles.String() && name != Today.String()):
			out = append(out, v)
		case name == e.pipeline.String():
			out = append(out, val)
		}
	}
	return out
}

// -update rewrites an expect that did not hold to what held: once where
// both informers agree, per informer where they differ, keys written
// short; one that held everywhere is kept as written.
func TestScenarioUpdate_RewritesExpectToWhatHeld(t *testing.T) {
	informers := []string{"articles", "today"}
	lists := func(got string, held bool) *scExpect {
		return &scExpect{what: "lists", got: []string{got}, held: held}
	}
	require.Equal(t, "", scRewriteExpect(informers, []*scExpect{lists("2", true), lists("0", true)}))
	require.Equal(t, "expect lists articles=1 today=0",
		scRewriteExpect(informers, []*scExpect{lists("1", false), lists("0", true)}))
	require.Equal(t, "expect lists 1", scRewriteExpect(informers, []*scExpect{lists("1", false), lists("1", false)}))
	cache := &scExpect{what: "cache", got: []string{"default/a@4", "kube-system/b@5"}}
	require.Equal(t, "expect cache a@4 kube-system/b@5", scRewriteExpect(informers, []*scExpect{cache, cache}))
	pending := func(n string) *scExpect { return &scExpect{what: "pending", fixed: []string{"B"}, got: []string{n}} }
	require.Equal(t, "expect pending B articles=3 today=1", scRewriteExpect(informers, []*scExpect{pending("3"), pending("1")}))
	require.Equal(t, "", scRewriteExpect(informers, []*scExpect{nil, nil}), "no expect at this step")
}
