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
	if !strings.Contains(string(md), "| BenchmarkStage/indexer-update |") || !strings.Contains(string(md), "| today vs articles |") {
		t.Errorf("doc lacks the table:\n%s", md)
	}
	chart, _ := os.ReadFile(svg)
	for _, s := range []string{"<svg", "JSON decode of the pod", "handler dispatch", "reflector dispatch", "informer (Today)", "</svg>"} {
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

// Today's informer beside the articles': one line per figure the issue
// asks for, each with the ratio and which way it goes; nothing if either
// informer's rows are missing.
func TestVersus(t *testing.T) {
	watch := func(name string, eps float64) *Result {
		return &Result{Name: "BenchmarkWatchPipeline100k/" + name, Runs: 1, Metrics: map[string]float64{"events/s": eps}}
	}
	sync := func(name string, ns, peak float64) *Result {
		return &Result{Name: "BenchmarkListSync50k/" + name, Runs: 3, Metrics: map[string]float64{
			"ns/op": ns, "peak-heap-MB": peak, "peak-live-MB": 50, "cache-MB": 75.5}}
	}
	got := Versus([]*Result{watch("Today", 45000), watch("Articles", 30000),
		sync("Today", 2e9, 80), sync("Articles", 1e9, 100)})
	for _, want := range []string{
		"in the same run (means of 3)",
		"| today vs articles | `Today` | `Articles` | today ÷ articles |\n",
		"| watch: 100,000 MODIFIED events | 45000 events/s | 30000 events/s | 1.50× (faster) |\n",
		"| list sync: 50,000 pods, Run to HasSynced | 2.00 s | 1.00 s | 2.00× (slower) |\n",
		"| list sync: peak heap above the heap before it | 80.00 MB | 100.0 MB | 0.80× (less) |\n",
		"| list sync: the cache after it | 75.50 MB | 75.50 MB | 1.00× |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if got := Versus([]*Result{watch("Today", 1), watch("RealFIFO", 1)}); got != "" {
		t.Errorf("without Articles:\n%s", got)
	}
}

// An output of before the two informers were measured side by side, where
// the articles' informer was the row named DeltaFIFO, still charts.
func TestStagesReadTheArticlesRowsOlderName(t *testing.T) {
	ns := func(name string, v float64) *Result {
		return &Result{Name: "BenchmarkWatchPipeline100k/" + name, Metrics: map[string]float64{"ns/event": v}}
	}
	for _, names := range [][2]string{{"Articles", "Articles-nohandler"}, {"DeltaFIFO", "DeltaFIFO-nohandler"}} {
		bars := Stages([]*Result{ns(names[0], 300), ns(names[1], 200)})
		labels := map[string]float64{}
		for _, b := range bars {
			labels[b.Label] = b.NsPer
		}
		if labels["the articles' informer (Articles: DeltaFIFO)"] != 300 || labels["handler dispatch (Articles − Articles-nohandler)"] != 100 {
			t.Errorf("%s: bars %v", names[0], labels)
		}
	}
}
