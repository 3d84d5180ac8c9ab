package main

import (
	"regexp"
	"strconv"
	"time"
)

// humanDuration writes a duration the trace carries ("54.273822838s",
// "944.383µs") as a person reads it: three significant digits at most and
// a unit with a space before it ("54.3 s", "944 µs", "1.8 ms", "2 min 5 s").
// Anything that is not a Go duration is returned as it is.
func humanDuration(s string) string {
	d, err := time.ParseDuration(s)
	if err != nil {
		return s
	}
	if d < 0 {
		return "-" + humanDuration((-d).String())
	}
	switch {
	case d >= time.Minute:
		m, sec := d/time.Minute, (d%time.Minute).Round(time.Second)/time.Second
		if sec == 60 {
			m, sec = m+1, 0
		}
		if sec == 0 {
			return strconv.FormatInt(int64(m), 10) + " min"
		}
		return strconv.FormatInt(int64(m), 10) + " min " + strconv.FormatInt(int64(sec), 10) + " s"
	case d >= time.Second:
		return sig3(float64(d)/float64(time.Second)) + " s"
	case d >= time.Millisecond:
		return sig3(float64(d)/float64(time.Millisecond)) + " ms"
	case d >= time.Microsecond:
		return sig3(float64(d)/float64(time.Microsecond)) + " µs"
	}
	return strconv.FormatInt(int64(d), 10) + " ns"
}

// sig3 formats v (1 <= v < 1000) with at most three significant digits
// and no trailing zeros: 54.27 → "54.3", 1.8 → "1.8", 944.38 → "944".
func sig3(v float64) string {
	prec := 2
	switch {
	case v >= 100:
		prec = 0
	case v >= 10:
		prec = 1
	}
	out := strconv.FormatFloat(v, 'f', prec, 64)
	if prec > 0 {
		for out[len(out)-1] == '0' {
			out = out[:len(out)-1]
		}
		if out[len(out)-1] == '.' {
			out = out[:len(out)-1]
		}
	}
	return out
}

// goDuration is a Go duration standing alone in a sentence ("2s", "1m30s").
var goDuration = regexp.MustCompile(`(^|[\s(=:])((?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+)\b`)

// humanDurationsIn writes every Go duration in s as humanDuration does:
// "the next 3 list request(s) fail with 429 (Retry-After: 2s)" → "... 2 s)".
func humanDurationsIn(s string) string {
	return goDuration.ReplaceAllStringFunc(s, func(m string) string {
		sub := goDuration.FindStringSubmatch(m)
		return sub[1] + humanDuration(sub[2])
	})
}
