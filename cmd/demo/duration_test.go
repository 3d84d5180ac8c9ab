package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The page and the narration show durations as a person reads them, not
// as Go prints them (54.273822838s, 944.383µs).
func TestHumanDuration(t *testing.T) {
	for in, want := range map[string]string{
		"54.273822838s": "54.3 s",
		"944.383µs":     "944 µs",
		"1.8ms":         "1.8 ms",
		"20ms":          "20 ms",
		"1s":            "1 s",
		"1.25s":         "1.25 s",
		"999.96ms":      "1000 ms",
		"2m5.4s":        "2 min 5 s",
		"3m0.2s":        "3 min",
		"1m59.7s":       "2 min",
		"750ns":         "750 ns",
		"0s":            "0 ns",
		"-1.5s":         "-1.5 s",
		"soon":          "soon",
		"":              "",
	} {
		got := humanDuration(in)
		t.Logf("%q → %q", in, got)
		require.Equal(t, want, got, "humanDuration(%q)", in)
	}
}
