package fakeapiserver

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Write throughput over HTTP (loopback), creates/s, with 1 and 8 clients
// each sending one create at a time: in memory, and with a data dir (every
// create fsync'd before its answer; concurrent creates share fsyncs).
//
//	go test -run '^$' -bench 'BenchmarkCreate_' -benchtime 2s ./fakeapiserver
func BenchmarkCreate_InMemory_1Client(b *testing.B)  { benchCreates(b, "", 1) }
func BenchmarkCreate_InMemory_8Clients(b *testing.B) { benchCreates(b, "", 8) }
func BenchmarkCreate_DataDir_1Client(b *testing.B)   { benchCreates(b, b.TempDir(), 1) }
func BenchmarkCreate_DataDir_8Clients(b *testing.B)  { benchCreates(b, b.TempDir(), 8) }

// benchCreates creates pods from clients goroutines on a server in memory
// (dir "") or durable in dir.
func benchCreates(b *testing.B, dir string, clients int) {
	srv, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer func() {
		srv.Close()
		hs.Close()
	}()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer client.CloseIdleConnections()
	url := hs.URL + "/api/v1/namespaces/default/pods"
	var next atomic.Int64
	var failed atomic.Value
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				body := fmt.Sprintf(`{"metadata":{"name":"pod-%d","labels":{"app":"bench"}},"spec":{"containers":[{"name":"app","image":"busybox:1.36"}]}}`, i)
				resp, err := client.Post(url, "application/json", strings.NewReader(body))
				if err != nil {
					failed.Store(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					failed.Store(fmt.Errorf("create: HTTP %d", resp.StatusCode))
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if syncs, synced := srv.store.WALStats(); syncs > 0 {
		b.ReportMetric(float64(synced)/float64(syncs), "writes/fsync")
	}
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "creates/s")
}
