package reflector

import (
	"math/rand/v2"
	"time"

	"github.com/kinformer/kinformer/clock"
)

// Backoff is how long a Reflector waits after a failed list or watch before
// trying again: Initial, doubled (Factor) after each failure up to Cap, plus
// up to Jitter times itself at random so that many clients that failed
// together do not retry together. After ResetAfter without a failure the
// next wait starts from Initial again.
//
// The zero value means client-go's numbers: 800 ms doubling to 30 s, jitter
// 1.0, reset after 2 minutes. (client-go's comment on them: "~0.22 QPS" of
// retries per reflector at worst.) In a Backoff that sets some fields, each
// field left zero takes client-go's value too, except Jitter, where zero
// means none: so no setting can make the reflector retry without waiting.
type Backoff struct {
	Initial    time.Duration
	Cap        time.Duration // at least Initial
	Factor     float64       // at least 1
	Jitter     float64       // 0 for none (tests)
	ResetAfter time.Duration
}

// DefaultBackoff is client-go's reflector backoff.
var DefaultBackoff = Backoff{Initial: 800 * time.Millisecond, Cap: 30 * time.Second, Factor: 2, Jitter: 1.0, ResetAfter: 2 * time.Minute}

func (b Backoff) withDefaults() Backoff {
	if b == (Backoff{}) {
		return DefaultBackoff
	}
	if b.Initial <= 0 {
		b.Initial = DefaultBackoff.Initial
	}
	if b.Cap <= 0 {
		b.Cap = DefaultBackoff.Cap
	}
	b.Cap = max(b.Cap, b.Initial)
	switch {
	case b.Factor == 0:
		b.Factor = DefaultBackoff.Factor
	case b.Factor < 1:
		b.Factor = 1
	}
	if b.ResetAfter <= 0 {
		b.ResetAfter = DefaultBackoff.ResetAfter
	}
	return b
}

// backoffState is a Backoff in use.
type backoffState struct {
	Backoff
	clock     clock.Clock
	current   time.Duration // the un-jittered wait of the next failure; 0: Initial
	lastStart time.Time     // when the last wait began
}

// next returns how long to wait after a failure now.
func (s *backoffState) next() time.Duration {
	now := s.clock.Now()
	if s.current == 0 || (!s.lastStart.IsZero() && now.Sub(s.lastStart) > s.ResetAfter) {
		s.current = s.Initial
	}
	s.lastStart = now
	d := s.current
	s.current = min(time.Duration(float64(s.current)*s.Factor), s.Cap)
	if s.Jitter > 0 {
		d += time.Duration(rand.Float64() * s.Jitter * float64(d))
	}
	return d
}
