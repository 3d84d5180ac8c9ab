//go:build !linux

package main

import (
	"errors"
	"time"
)

var errNoProc = errors.New("needs Linux's /proc")

func peakRSS(int) (int64, error) { return 0, errNoProc }

func cpuTime(int) (time.Duration, error) { return 0, errNoProc }
