package storage

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/kinformer/kinformer/trace"
)

// val is the value the tests store: a UID, the revision it was written at,
// and a string (what Bytes returns, after the revision).
type val struct {
	uid  string
	rev  uint64
	data string
}

func (v *val) UID() string { return v.uid }
func (v *val) Bytes() []byte {
	return []byte(strconv.FormatUint(v.rev, 10) + " " + v.uid + " " + v.data)
}

func (v *val) String() string { return fmt.Sprintf("%s@%d", v.data, v.rev) }

func stamp(v *val, rev uint64) *val { c := *v; c.rev = rev; return &c }

// decode is the inverse of Bytes, for recovery.
func decode(kvs []KeyValue) ([]*val, error) {
	out := make([]*val, len(kvs))
	for i, e := range kvs {
		f := strings.SplitN(string(e.Value), " ", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("bad value %q", e.Value)
		}
		rev, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return nil, err
		}
		out[i] = &val{uid: f[1], rev: rev, data: f[2]}
	}
	return out, nil
}

func newTestStore(t *testing.T, opts Options[*val]) *Store[*val] {
	t.Helper()
	opts.Versioner = stamp
	if opts.Tracer == nil {
		opts.Tracer = trace.ForTest(t).Stage("storage") // commits, compactions, watches cut off: under -v
	}
	if opts.Dir != "" {
		opts.Decode = decode
	}
	s := New(opts)
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

var uids int

// put creates or updates key with data and returns the revision.
func put(t testing.TB, s *Store[*val], key, data string) uint64 {
	t.Helper()
	v, err := s.GuaranteedUpdate(key, Preconditions{}, func(cur *val, next uint64) (*val, error) {
		return &val{uid: cur.uid, rev: next, data: data}, nil
	})
	if errors.Is(err, ErrNotFound) {
		uids++
		v, err = s.Create(key, func(rev uint64) *val { return &val{uid: fmt.Sprintf("u%d", uids), rev: rev, data: data} })
	}
	if err != nil {
		t.Fatal(err)
	}
	return v.rev
}

func del(t testing.TB, s *Store[*val], key string) uint64 {
	t.Helper()
	v, err := s.Delete(key, Preconditions{})
	if err != nil {
		t.Fatal(err)
	}
	return v.rev
}

// drain returns what the watch has queued, as "TYPE data@rev".
func drain(w *Watcher[*val]) []string {
	var out []string
	for {
		select {
		case ev := <-w.ResultChan():
			out = append(out, fmt.Sprintf("%s %s", ev.Type, ev.Value))
		default:
			return out
		}
	}
}

func events(evs []*WatchEvent[*val]) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, fmt.Sprintf("%s %s", ev.Type, ev.Value))
	}
	return out
}
