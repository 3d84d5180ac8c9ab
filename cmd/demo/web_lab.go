package main

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/kinformer/kinformer/lab"
)

// The lab's HTTP API (package lab; docs/demo.md "The lab"). The page and
// the tests use it; so can curl:
//
//	GET  /api/lab/state[?step=N]     the lab.View: paused, step, and every box's contents
//	POST /api/lab/pause              hold every hop; the lab's clock stops
//	POST /api/lab/resume             let the held hops go; live again
//	POST /api/lab/step               exactly one hop: {"hop": ..., "state": ...}
//	POST /api/lab/rewind?step=N      show the recorded state after step N (read-only; pauses)
//	POST /api/lab/speed?x=0.25       below 1: one hop at a time, the clock slower
//	GET  /api/lab/timeline?from=N&limit=M   the recorded hops
//	GET  /api/lab/recording          the timeline as a file; POST it back to view it
//
// A POST needs the header X-Kinformer: 1, as the fault buttons do.

// maxRecording bounds an uploaded recording.
const maxRecording = 64 << 20

func (u *webUI) labRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/lab/state", u.labState)
	mux.HandleFunc("GET /api/lab/timeline", u.labTimeline)
	mux.HandleFunc("GET /api/lab/recording", u.labSave)
	for _, p := range []string{"pause", "resume", "step", "rewind", "speed", "recording"} {
		mux.HandleFunc("POST /api/lab/"+p, u.labPost)
	}
	u.lessonRoutes(mux)
}

// labOn answers 404 when the demo runs without the lab.
func (u *webUI) labOn(w http.ResponseWriter) bool {
	if u.lab == nil {
		http.Error(w, "the lab is off (the demo runs it with the page: --web)", http.StatusNotFound)
		return false
	}
	return true
}

func (u *webUI) labState(w http.ResponseWriter, r *http.Request) {
	if !u.labOn(w) {
		return
	}
	step, err := intParam(r, "step", 0)
	if err != nil {
		labError(w, http.StatusBadRequest, err)
		return
	}
	if step == 0 {
		writeJSON(w, u.lab.State())
		return
	}
	v, err := u.lab.StateAt(step)
	if err != nil {
		labError(w, http.StatusNotFound, fmt.Errorf("step %d: %w", step, err))
		return
	}
	writeJSON(w, v)
}

func (u *webUI) labTimeline(w http.ResponseWriter, r *http.Request) {
	if !u.labOn(w) {
		return
	}
	from, err1 := intParam(r, "from", 0)
	limit, err2 := intParam(r, "limit", 1000)
	if err := errors.Join(err1, err2); err != nil {
		labError(w, http.StatusBadRequest, err)
		return
	}
	hops := u.lab.Timeline(from, min(max(limit, 1), 10000))
	if hops == nil {
		hops = []lab.Hop{}
	}
	writeJSON(w, hops)
}

func (u *webUI) labSave(w http.ResponseWriter, r *http.Request) {
	if !u.labOn(w) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="kinformer-lab.json"`)
	if err := u.lab.Save(w); err != nil {
		labError(w, http.StatusInternalServerError, err)
	}
}

// labPost runs one of the lab's buttons.
func (u *webUI) labPost(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Kinformer") != "1" {
		http.Error(w, "missing X-Kinformer header", http.StatusForbidden)
		return
	}
	if !u.labOn(w) {
		return
	}
	l := u.lab
	var err error
	switch r.URL.Path[len("/api/lab/"):] {
	case "pause":
		l.Pause()
	case "resume":
		l.Resume()
	case "step":
		hop, err := l.Step(r.Context())
		if err != nil {
			labError(w, http.StatusConflict, err)
			return
		}
		writeJSON(w, map[string]any{"hop": hop, "state": l.State()})
		return
	case "rewind":
		var step int
		if step, err = intParam(r, "step", -1); err == nil {
			err = l.Rewind(step)
		}
	case "speed":
		var x float64
		if x, err = strconv.ParseFloat(r.URL.Query().Get("x"), 64); err == nil {
			err = l.SetSpeed(x)
		} else {
			err = fmt.Errorf("x=%q: want a number such as 0.25 or 1", r.URL.Query().Get("x"))
		}
	case "recording":
		err = l.Load(http.MaxBytesReader(w, r.Body, maxRecording))
	}
	if err != nil {
		labError(w, http.StatusBadRequest, err)
		return
	}
	writeJSON(w, l.State())
}

func labError(w http.ResponseWriter, code int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	writeJSON(w, map[string]string{"error": err.Error()})
}

// intParam reads an integer query parameter (def if absent).
func intParam(r *http.Request, name string, def int) (int, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: want a whole number", name, s)
	}
	return n, nil
}
