package storage

import (
	"slices"
	"strings"
)

// Visibility: nothing a client sees can un-happen.
//
// etcd applies a change, answers reads with it and sends it to watches only
// once it is committed: durable on a quorum. A change a client was told of
// survives any crash. The store keeps the same promise with its log: a
// committed change becomes visible only once its record is fsync'd.
//
//   - commitLocked applies the change to the writer's state (values, rev:
//     what a transaction reads and checks) and logs it, but, with a log,
//     queues its event on undelivered instead of handing it to the watches.
//     atVisible remembers, for each key with an undelivered change, what
//     the key held at the visible revision.
//   - Once Update's waitDurable returns, the writer takes the lock again and
//     delivers (deliverLocked) every undelivered event the log has made
//     durable, in revision order: to the watches (or to a hide fault, which
//     decides at delivery whether to hide it), moving visible and waking
//     RevChanged. The first writer whose fsync completes delivers for the
//     whole batch; each writer still returns only once its own events are
//     delivered, so a client that got its answer can list or watch it.
//   - Reads outside a transaction (Get, List, a watch's initial state or
//     replay, Rev, RevChanged, a watch's Progress) read at visible: the
//     writer's state with atVisible laid over it (and, for an older revision,
//     the history undone as well, as any exact list does). They never wait
//     for the disk. The other way, a read that waits until the log covers
//     the writer's revision (etcd's ReadIndex), would make every read under
//     write load wait for an fsync; reading the last visible state is as
//     consistent (it is a state every watch reaches in order) and costs
//     nothing.
//   - A crash (Restart, kill -9) drops the undelivered events with the rest
//     of the memory: no client ever saw them.
//
// A watch registers with after = visible (or the revision it replays from,
// if later), so an event delivered later is sent to it exactly once.
//
// The cost: a watch event and a list wait for the group fsync that makes
// the change durable, as the writer's answer always did (about one fsync of
// latency); the fsyncs themselves are still shared by many writers.

// atVisible is what a key held at the visible revision, while it has
// changes not yet delivered: its value, whether it existed, and the
// revision of its last undelivered change (when that one is delivered, the
// writer's state is the visible one again).
type atVisible[O Object] struct {
	value   O
	present bool
	last    uint64
}

// publishLocked makes a committed change visible, or queues it until it
// is durable (with a log). commitLocked calls it last but OnCommit.
func (s *Store[O]) publishLocked(ev *Event[O], prev kv[O], existed bool) {
	if s.wal == nil {
		s.deliverOneLocked(ev)
		s.visible = ev.Rev
		s.wakeLocked()
		return
	}
	if p, ok := s.atVisible[ev.Key]; ok {
		p.last = ev.Rev
		s.atVisible[ev.Key] = p
	} else {
		s.atVisible[ev.Key] = atVisible[O]{value: prev.value, present: existed, last: ev.Rev}
	}
	s.undelivered = append(s.undelivered, ev)
}

// deliverLocked makes visible, in order, every undelivered change with a
// revision up to durable.
func (s *Store[O]) deliverLocked(durable uint64) {
	n := 0
	for n < len(s.undelivered) && s.undelivered[n].Rev <= durable {
		ev := s.undelivered[n]
		s.deliverOneLocked(ev)
		if p := s.atVisible[ev.Key]; p.last == ev.Rev {
			delete(s.atVisible, ev.Key)
		} else {
			p.value, p.present = ev.Value, ev.Type != Deleted
			s.atVisible[ev.Key] = p
		}
		s.visible = ev.Rev
		n++
	}
	if n == 0 {
		return
	}
	clear(s.undelivered[:n])
	s.undelivered = s.undelivered[n:]
	if len(s.undelivered) == 0 {
		s.undelivered = nil // let the array go
	}
	s.wakeLocked()
}

// deliverOneLocked hands a change to the open watches, or hides it from
// them while a hide fault matches it (faults.go).
func (s *Store[O]) deliverOneLocked(ev *Event[O]) {
	if s.hide == nil || !s.hide.match(ev) {
		s.fanOutLocked(ev)
	} else {
		s.hideLocked(ev)
	}
}

// wakeLocked wakes whoever waits on RevChanged.
func (s *Store[O]) wakeLocked() {
	close(s.revChanged)
	s.revChanged = make(chan struct{})
}

// dropUndeliveredLocked forgets the changes not yet visible: the log that
// would have made them durable is gone (a crash).
func (s *Store[O]) dropUndeliveredLocked() {
	s.undelivered = nil
	clear(s.atVisible)
}

// overlayLocked returns, for the keys under prefix whose value at revision
// at differs from the writer's state, what they held at at (at >= visible
// or at >= compacted, at <= rev): the undelivered changes undone (if at is
// visible or older), then the history's changes after at.
func (s *Store[O]) overlayLocked(prefix string, at uint64) map[string]atVisible[O] {
	if at >= s.rev {
		return nil
	}
	ov := map[string]atVisible[O]{}
	top := s.rev
	if at <= s.visible {
		for k, p := range s.atVisible {
			if strings.HasPrefix(k, prefix) {
				ov[k] = p
			}
		}
		top = s.visible
	}
	if at < top {
		s.history.eachNewestFirst(func(ev *Event[O]) bool {
			if ev.Rev <= at {
				return false
			}
			if ev.Rev <= top && strings.HasPrefix(ev.Key, prefix) {
				ov[ev.Key] = atVisible[O]{value: ev.Prev, present: ev.Type != Added}
			}
			return true
		})
	}
	return ov
}

// readLocked returns the keys under prefix from the key from on as they
// were at revision at (see overlayLocked), in key order, and the value of
// each. The keys are only valid while the lock is held.
func (s *Store[O]) readLocked(prefix, from string, at uint64) ([]string, func(i int) O) {
	keys := s.keyRange(prefix, from)
	ov := s.overlayLocked(prefix, at)
	if len(ov) == 0 {
		return keys, func(i int) O { return s.values[keys[i]].value }
	}
	// The writer's keys, less those the overlay changes, merged with the
	// overlay's keys that existed at at.
	var extra []string
	for k, p := range ov {
		if p.present && k >= from {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	merged := make([]string, 0, len(keys)+len(extra))
	j := 0
	for _, k := range keys {
		for j < len(extra) && extra[j] < k {
			merged = append(merged, extra[j])
			j++
		}
		if j < len(extra) && extra[j] == k {
			j++
		} else if _, changed := ov[k]; changed {
			continue // gone at at
		}
		merged = append(merged, k)
	}
	merged = append(merged, extra[j:]...)
	return merged, func(i int) O {
		if p, ok := ov[merged[i]]; ok {
			return p.value
		}
		return s.values[merged[i]].value
	}
}
