package main

import (
	"errors"
	"net/http"

	"github.com/kinformer/kinformer/lab"
)

// The lessons' HTTP API (docs/demo.md "Lessons"), beside the lab's:
//
//	GET  /api/lab/lessons               [{id, title: {en, zh}, summary: {en, zh}}]
//	GET  /api/lab/lesson                the lesson shown ({"active": false} when none)
//	POST /api/lab/lesson/start?id=ID    set the world up, pause, show the intro (index 0)
//	POST /api/lab/lesson/next           step the pipeline to the lesson's next narrated hop
//	POST /api/lab/lesson/back           the previous narrated hop, read-only (the lab rewinds)
//	POST /api/lab/lesson/stop           end it: the world is put back, the lab runs again
//
// A POST needs the header X-Kinformer: 1. Every answer but the list is a
// lessonView; a Next that finds the pipeline idle, or a lesson over,
// answers the view with an error in it.

// lessonView is what the page shows of a lesson.
type lessonView struct {
	Active    bool       `json:"active"`
	ID        string     `json:"id,omitempty"`
	Title     *bilingual `json:"title,omitempty"`
	Index     int        `json:"index"` // the narrated step shown; 0: the intro
	Count     int        `json:"count"` // narrated steps so far, the intro included
	Step      int        `json:"step"`  // the lab's step shown
	Narration *bilingual `json:"narration,omitempty"`
	Hop       *lab.Hop   `json:"hop,omitempty"`
	Done      bool       `json:"done"`
	Busy      bool       `json:"busy,omitempty"` // a start or a Next is under way (GET only)
	// Error says why a Next or Back did not move (the pipeline idle, the
	// lesson over); ErrorText is the same in both languages.
	Error     string     `json:"error,omitempty"`
	ErrorText *bilingual `json:"errorText,omitempty"`
	State     *lab.View  `json:"state,omitempty"`
}

// lessonListed is one entry of GET /api/lab/lessons.
type lessonListed struct {
	ID      string    `json:"id"`
	Title   bilingual `json:"title"`
	Summary bilingual `json:"summary"`
}

// viewLocked is the lesson as it is shown now.
func (ls *lessons) viewLocked() lessonView {
	r := ls.run
	if r == nil || len(r.frames) == 0 {
		ls.shown.Store(nil)
		return lessonView{}
	}
	f := r.frames[r.index]
	st := ls.env.lab.State()
	title, text := r.meta.title, f.narration
	v := lessonView{Active: true, ID: r.meta.id, Title: &title, Index: r.index, Count: len(r.frames), Step: f.step,
		Narration: &text, Hop: f.hop, Done: r.done, State: &st}
	ls.shown.Store(&v)
	return v
}

// viewWith is the view with an error in it.
func (ls *lessons) viewWith(err bilingual) lessonView {
	v := ls.viewLocked()
	v.Error, v.ErrorText = err.En, &err
	return v
}

// view is the lesson shown, for GET. While a start or a Next is under
// way it does not wait for it: it answers the view as it was before, with
// the lab's state as it is now, and busy set.
func (ls *lessons) view() lessonView {
	if !ls.mu.TryLock() {
		v := lessonView{}
		if p := ls.shown.Load(); p != nil {
			v = *p
		}
		st := ls.env.lab.State()
		v.State, v.Busy = &st, true
		return v
	}
	defer ls.mu.Unlock()
	return ls.viewLocked()
}

// lessonRoutes adds the lessons' endpoints (called from labRoutes).
func (u *webUI) lessonRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/lab/lessons", func(w http.ResponseWriter, r *http.Request) {
		if u.labOn(w) {
			writeJSON(w, lessonList())
		}
	})
	mux.HandleFunc("GET /api/lab/lesson", func(w http.ResponseWriter, r *http.Request) {
		if u.labOn(w) && u.lessonsOn(w) {
			writeLesson(w, u.lessons.view())
		}
	})
	mux.HandleFunc("POST /api/lab/lesson/{action}", u.lessonPost)
}

// lessonsOn answers 404 when the demo runs without lessons.
func (u *webUI) lessonsOn(w http.ResponseWriter) bool {
	if u.lessons == nil {
		labError(w, http.StatusNotFound, errors.New("the lessons are off (the demo runs them with the page: --web)"))
		return false
	}
	return true
}

func (u *webUI) lessonPost(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Kinformer") != "1" {
		http.Error(w, "missing X-Kinformer header", http.StatusForbidden)
		return
	}
	if !u.labOn(w) || !u.lessonsOn(w) {
		return
	}
	ls := u.lessons
	var v lessonView
	var err error
	switch r.PathValue("action") {
	case "start":
		if v, err = ls.start(r.Context(), r.URL.Query().Get("id")); err != nil {
			labError(w, http.StatusConflict, err)
			return
		}
	case "next":
		v, err = ls.next(r.Context())
	case "back":
		v, err = ls.back()
	case "stop":
		ls.stop()
	default:
		labError(w, http.StatusNotFound, errors.New("no such lesson action: want start, next, back or stop"))
		return
	}
	if err != nil {
		labError(w, http.StatusConflict, err)
		return
	}
	writeLesson(w, v)
}

// writeLesson writes v; no lesson is {"active": false}.
func writeLesson(w http.ResponseWriter, v lessonView) {
	if !v.Active {
		m := map[string]bool{"active": false}
		if v.Busy {
			m["busy"] = true
		}
		writeJSON(w, m)
		return
	}
	writeJSON(w, v)
}
