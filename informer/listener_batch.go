package informer

// The fast path of the fan-out (docs/performance.md): a batch popped from
// the queue reaches each listener in one hand-off instead of one per
// notification. Read processor_listener.go first; this file only changes
// how many notifications cross its channels at a time.
//
// A listener moves each notification across two goroutines (add → pop →
// run), and each crossing may wake a goroutine. With client-go 1.36's
// batches (HandleBatch: up to 1,000 deltas in one cache transaction) that
// was two wake-ups per event for every handler, most of the goroutine
// switches of a busy watch. Here HandleBatch gives the whole batch's
// notifications to distributeAll, and each listener gets them as one
// notifications value: pop buffers it as one element and run unpacks it,
// calling handle for each notification in order, exactly as if they had
// come one by one. What a handler sees, and when add returns, is the same:
// the order, Pending, HasSynced, a panic recovered per notification, the
// drop of everything after stop.
//
// A listener whose Tracer is on takes the notifications one by one, as
// before: its trace then tells each hop in the order it happens, and the
// lab can hold any of them.

// notifications is a run of notifications handed to a listener at once,
// in order. It is a notification only so that it can travel on the
// listener's channels and sit in its buffer; run unpacks it.
type notifications []notification

// deliverTo delivers each notification in turn (run does the same through
// handle, with a listener's bookkeeping around each).
func (ns notifications) deliverTo(h ResourceEventHandler) {
	for _, n := range ns {
		n.deliverTo(h)
	}
}

// distributeAll is distribute for a run of notifications: every listener
// gets them in one hand-off (or one by one if it traces), each listener
// only the resyncs it is due for.
func (p *sharedProcessor) distributeAll(ns []notification) {
	if len(ns) == 0 {
		return
	}
	resyncs := false
	for _, n := range ns {
		if isResync(n) {
			resyncs = true
			break
		}
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	for l, dueForResync := range p.listeners {
		mine := ns
		if resyncs && !dueForResync {
			mine = withoutResyncs(ns)
		}
		l.addAll(mine)
	}
}

// withoutResyncs is ns without its resyncs, in a new slice.
func withoutResyncs(ns []notification) []notification {
	kept := make([]notification, 0, len(ns))
	for _, n := range ns {
		if !isResync(n) {
			kept = append(kept, n)
		}
	}
	return kept
}

// addAll is add for a run of notifications: counted as add counts them,
// then handed to pop as one notifications value. A listener that traces
// takes them one by one (add), so that each has its own notify event.
func (p *processorListener) addAll(ns []notification) {
	switch {
	case len(ns) == 0:
		return
	case len(ns) == 1 || p.tracer.On():
		for _, n := range ns {
			p.add(n)
		}
		return
	}
	initial := 0
	for _, n := range ns {
		if a, ok := n.(addNotification); ok && a.isInInitialList {
			initial++
		}
	}
	if initial > 0 {
		p.initialPending.Add(int64(initial))
	}
	p.pending.Add(int64(len(ns)))
	p.addCh <- notifications(ns)
}
