package api

import (
	"bytes"
	"fmt"
	"time"
)

// Time is a timestamp as Kubernetes writes it: RFC 3339 in UTC with second
// precision ("2026-11-22T04:28:23Z"), or null when zero. It embeds time.Time,
// so all of time.Time's methods work on it.
type Time struct {
	time.Time
}

// NewTime wraps t, truncated to the second as the API server stores it.
func NewTime(t time.Time) Time { return Time{t.UTC().Truncate(time.Second)} }

// Now is NewTime(time.Now()).
func Now() Time { return NewTime(time.Now()) }

// MarshalJSON writes RFC 3339 in UTC, or null for the zero time.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, len(time.RFC3339)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339)
	return append(b, '"'), nil
}

// UnmarshalJSON reads RFC 3339 (with or without fractional seconds) or null.
func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		t.Time = time.Time{}
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("time: want an RFC 3339 string, got %s", b)
	}
	parsed, err := time.Parse(time.RFC3339, string(b[1:len(b)-1]))
	if err != nil {
		return fmt.Errorf("time: %w", err)
	}
	t.Time = parsed.Local()
	return nil
}

// DeepCopy returns a copy of a *Time (nil stays nil).
func (t *Time) DeepCopy() *Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}
