package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	f, err := os.Open("testdata/sample.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	results, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Result{}
	for _, r := range results {
		byName[r.Name] = r
	}
	tests := []struct {
		name, unit string
		want       float64
		runs       int
	}{
		{"BenchmarkWatchPipeline100k/bare-decode", "ns/op", 9630591801, 1},
		{"BenchmarkWatchPipeline100k/DeltaFIFO", "x-bare", 0.8733, 1},
		{"BenchmarkWatchPipeline100k/DeltaFIFO", "MB/s", 36.17, 1},
		{"BenchmarkListSync50k/DeltaFIFO", "B/cached-pod", 2440, 1},
		{"BenchmarkListSync50k/DeltaFIFO", "allocs/op", 2703503, 1},
		{"BenchmarkStage/RealFIFO-Pop", "allocs/event", 2, 1},
		{"BenchmarkIndexer_Add100k", "ns/op", 110000000, 2}, // two runs averaged
		{"BenchmarkIndexer_Add100k", "allocs/op", 6, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name+" "+tt.unit, func(t *testing.T) {
			r := byName[tt.name]
			if r == nil {
				t.Fatalf("no result %s", tt.name)
			}
			if got := r.Metrics[tt.unit]; got != tt.want {
				t.Errorf("%s = %v, want %v", tt.unit, got, tt.want)
			}
			if r.Runs != tt.runs {
				t.Errorf("runs = %d, want %d", r.Runs, tt.runs)
			}
		})
	}
	if _, ok := byName["BenchmarkBroken"]; ok {
		t.Error("a malformed line was parsed")
	}
	if got := byName["BenchmarkIndexer_Add100k"].Pkg; got != "github.com/kinformer/kinformer/indexer" {
		t.Errorf("pkg = %q", got)
	}
}

func TestTable(t *testing.T) {
	results := []*Result{{Name: "BenchmarkX/a", Pkg: "example.com/m/bench", Runs: 1, Metrics: map[string]float64{
		"ns/op": 1234567, "MB/s": 36.17, "allocs/op": 3, "B/op": 96, "events/s": 9068, "x-bare": 0.8733,
	}}}
	got := Table(results)
	want := "| bench | BenchmarkX/a | 1234567 | 36.17 | 3.00 | 96.00 | 9068 events/s | 0.8733 x-bare |\n"
	if !strings.HasSuffix(got, want) {
		t.Errorf("table:\n%s\nwant last row:\n%s", got, want)
	}
}

func TestSplice(t *testing.T) {
	tests := []struct {
		name, doc, want string
		err             bool
	}{
		{"replaces", "a\n<!-- bench:begin -->\nold\n<!-- bench:end -->\nb", "a\n<!-- bench:begin -->\nT\n<!-- bench:end -->\nb", false},
		{"empty section", "<!-- bench:begin --><!-- bench:end -->", "<!-- bench:begin -->\nT\n<!-- bench:end -->", false},
		{"no markers", "a", "", true},
		{"reversed", "<!-- bench:end --><!-- bench:begin -->", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Splice([]byte(tt.doc), "T\n")
			if (err != nil) != tt.err {
				t.Fatalf("err = %v", err)
			}
			if !tt.err && string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRunWritesDocAndChart(t *testing.T) {
	sample, err := os.ReadFile("testdata/sample.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	doc, svg := filepath.Join(dir, "perf.md"), filepath.Join(dir, "perf.svg")
	if err := os.WriteFile(doc, []byte("# P\n<!-- bench:begin -->\n<!-- bench:end -->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(bytes.NewReader(sample), &out, doc, svg); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(doc)
	if !strings.Contains(string(md), "| BenchmarkStage/indexer-update |") {
		t.Errorf("doc lacks the table:\n%s", md)
	}
	chart, _ := os.ReadFile(svg)
	for _, s := range []string{"<svg", "JSON decode of the pod", "handler dispatch", "reflector dispatch", "</svg>"} {
		if !strings.Contains(string(chart), s) {
			t.Errorf("chart lacks %q", s)
		}
	}
	if strings.Count(string(chart), "<rect") != 1+len(stages) {
		t.Errorf("chart has %d rects, want %d", strings.Count(string(chart), "<rect"), 1+len(stages))
	}
	if err := run(strings.NewReader("no results\n"), &out, "", ""); err == nil {
		t.Error("no results: no error")
	}
}
