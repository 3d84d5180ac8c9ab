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

// A fault endpoint's words keep their sentences; their durations read as
// people write them.
func TestHumanDurationsIn(t *testing.T) {
	for in, want := range map[string]string{
		"the next 3 list request(s) fail with 429 (Retry-After: 2s)":  "the next 3 list request(s) fail with 429 (Retry-After: 2 s)",
		"every watch frame is now delayed by 1m30s":                   "every watch frame is now delayed by 1 min 30 s",
		"an outage of 500ms began: the 2 open watch(es) hear nothing": "an outage of 500 ms began: the 2 open watch(es) hear nothing",
		"closed every watch (2 open)":                                 "closed every watch (2 open)",
		"history compacted at resourceVersion 21":                     "history compacted at resourceVersion 21",
	} {
		require.Equal(t, want, humanDurationsIn(in))
	}
	require.Equal(t, "一次 3 s 的中断开始了：2 个已打开的监听再也收不到事件；之后压缩历史，结束每个监听",
		chineseTexts.faultDid("an outage of 3s began: the 2 open watch(es) hear nothing more; then the history is compacted and every watch ends"))
	require.Equal(t, "接下来 3 个 list 请求以 429 失败 (Retry-After: 2 s)",
		chineseTexts.faultDid("the next 3 list request(s) fail with 429 (Retry-After: 2s)"))
}
