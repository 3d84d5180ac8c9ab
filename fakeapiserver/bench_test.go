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
