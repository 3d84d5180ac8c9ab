package fakeapiserver

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/kinformer/kinformer/api"
)

// BenchmarkList10kPods: one GET of 10,000 pods over a loopback socket, as a
// reflector's initial list. Objects are stored pre-encoded, so a list is
// mostly copying bytes.
func BenchmarkList10kPods(b *testing.B) {
	srv := New(Options{})
	defer srv.Close()
	for i := range 10000 {
		if _, err := srv.Create(testPod("default", fmt.Sprintf("pod-%05d", i), map[string]string{"app": "bench"})); err != nil {
			b.Fatal(err)
		}
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	b.ResetTimer()
	var n int64
	for b.Loop() {
		resp, err := http.Get(hs.URL + "/api/v1/namespaces/default/pods")
		if err != nil {
			b.Fatal(err)
		}
		n, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.SetBytes(n)
}

// BenchmarkWriteFanOut100Watchers: one pod update delivered to 100 open
// watches over loopback; the time is from the write to the last watcher
// reading its frame.
func BenchmarkWriteFanOut100Watchers(b *testing.B) {
	srv := New(Options{WatchBuffer: 1000})
	hs := httptest.NewServer(srv)
	defer func() {
		srv.Close() // ends the watches first: hs.Close waits for open requests
		hs.Close()
	}()
	pod, err := srv.Create(testPod("default", "hot", nil))
	if err != nil {
		b.Fatal(err)
	}
	const watchers = 100
	var ready, got sync.WaitGroup
	frames := make([]chan struct{}, watchers)
	for i := range watchers {
		frames[i] = make(chan struct{}, 1000)
		ready.Add(1)
		go func(ch chan struct{}) {
			resp, err := http.Get(hs.URL + "/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + pod.GetResourceVersion())
			if err != nil {
				panic(err)
			}
			defer resp.Body.Close()
			ready.Done()
			buf := make([]byte, 64<<10)
			for {
				n, err := resp.Body.Read(buf)
				for _, c := range buf[:n] {
					if c == '\n' {
						ch <- struct{}{}
					}
				}
				if err != nil {
					return
				}
			}
		}(frames[i])
	}
	ready.Wait()
	p := pod.(*api.Pod)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p.Labels = map[string]string{"i": fmt.Sprint(i)}
		p.ResourceVersion = ""
		if _, err := srv.Update(p); err != nil {
			b.Fatal(err)
		}
		got.Add(watchers)
		for _, ch := range frames {
			<-ch
			got.Done()
		}
		got.Wait()
	}
}

// BenchmarkWriteFanOut: one pod update delivered to 0 or 100 open watches,
// per output form. The 0-watcher run is the write alone, so
// (watchers=100 - watchers=0) / 100 is what one more watcher costs.
//
//   - json: plain watches; the frame is built once and shared.
//   - partial, table: the metadata client's and kubectl's watches; the
//     object is re-encoded per form once, not once per watcher.
//   - stops-matching: a label-selector watch the update alternately enters
//     (ADDED) and leaves (DELETED of the old state at the new version):
//     that old state is copied and encoded once, not once per watcher.
func BenchmarkWriteFanOut(b *testing.B) {
	const (
		partial = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
		table   = "application/json;as=Table;v=v1;g=meta.k8s.io"
	)
	for _, watchers := range []int{0, 100} {
		for _, bc := range []struct {
			name, accept, query string
			labels              func(i int) map[string]string
		}{
			{"json", "", "", nil},
			{"partial", partial, "", nil},
			{"table", table, "", nil},
			{"stops-matching", "", "&labelSelector=keep%3Dyes", func(i int) map[string]string {
				if i%2 == 0 {
					return map[string]string{"keep": "no", "i": fmt.Sprint(i)}
				}
				return map[string]string{"keep": "yes", "i": fmt.Sprint(i)}
			}},
		} {
			b.Run(fmt.Sprintf("%s/watchers=%d", bc.name, watchers), func(b *testing.B) {
				benchFanOut(b, watchers, bc.accept, bc.query, bc.labels)
			})
		}
	}
}

func benchFanOut(b *testing.B, watchers int, accept, query string, labels func(int) map[string]string) {
	srv := New(Options{WatchBuffer: 1000})
	hs := httptest.NewServer(srv)
	defer func() {
		srv.Close() // ends the watches first: hs.Close waits for open requests
		hs.Close()
	}()
	if labels == nil {
		labels = func(i int) map[string]string { return map[string]string{"i": fmt.Sprint(i)} }
	}
	pod, err := srv.Create(testPod("default", "hot", map[string]string{"keep": "yes"}))
	if err != nil {
		b.Fatal(err)
	}
	var ready sync.WaitGroup
	frames := make([]chan struct{}, watchers)
	for i := range watchers {
		frames[i] = make(chan struct{}, 1000)
		ready.Add(1)
		go func(ch chan struct{}) {
			req, err := http.NewRequest(http.MethodGet, hs.URL+"/api/v1/namespaces/default/pods?watch=true&resourceVersion="+pod.GetResourceVersion()+query, nil)
			if err != nil {
				panic(err)
			}
			if accept != "" {
				req.Header.Set("Accept", accept)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				panic(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				panic(resp.Status)
			}
			ready.Done()
			buf := make([]byte, 64<<10)
			for {
				n, err := resp.Body.Read(buf)
				for _, c := range buf[:n] {
					if c == '\n' {
						ch <- struct{}{}
					}
				}
				if err != nil {
					return
				}
			}
		}(frames[i])
	}
	ready.Wait()
	p := pod.(*api.Pod)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p.Labels = labels(i)
		p.ResourceVersion = ""
		if _, err := srv.Update(p); err != nil {
			b.Fatal(err)
		}
		for _, ch := range frames {
			<-ch
		}
	}
}
