// Command benchreport reads `go test -bench` output on stdin and prints one
// markdown table of every benchmark: ns/op, MB/s, allocs/op, B/op, the
// custom metrics, and the ratio (a metric whose unit starts with "x-").
// Above it, when the bench package's pipeline benchmarks ran, a short table
// puts today's informer beside the articles' (versus.go).
//
//	go test -run '^$' -bench . -benchmem ./... | go run ./cmd/benchreport -write docs/performance.md -svg docs/performance.svg
//
// With -write, the table replaces what is between <!-- bench:begin --> and
// <!-- bench:end --> in that file. With -svg, a bar chart of where the time
// of the watch pipeline goes, stage by stage (ns/event of the bench
// package's BenchmarkStage and BenchmarkWatchPipeline100k), is written
// there. Benchmarks run more than once (-count) are averaged.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

const (
	beginMarker = "<!-- bench:begin -->"
	endMarker   = "<!-- bench:end -->"
)

// Result is one benchmark's line (or the average of its lines).
type Result struct {
	Name    string             // without the -GOMAXPROCS suffix
	Pkg     string             // the pkg: line above it, if any
	Runs    int                // lines averaged
	Iters   int64              // iterations of the last line
	Metrics map[string]float64 // unit → value ("ns/op", "MB/s", ...)
}

// Parse reads go test -bench output and returns the benchmarks in the
// order first seen; other lines are ignored.
func Parse(r io.Reader) ([]*Result, error) {
	var out []*Result
	byName := map[string]*Result{}
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimSpace(p)
			continue
		}
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		f := strings.Fields(line)
		// name iterations (value unit)+
		if len(f) < 4 || len(f)%2 != 0 {
			continue
		}
		iters, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		name := trimProcs(f[0])
		m := map[string]float64{}
		ok := true
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				ok = false
				break
			}
			m[f[i+1]] = v
		}
		if !ok {
			continue
		}
		key := pkg + "\x00" + name
		res := byName[key]
		if res == nil {
			res = &Result{Name: name, Pkg: pkg, Metrics: map[string]float64{}}
			byName[key] = res
			out = append(out, res)
		}
		res.Iters = iters
		for u, v := range m { // running mean
			res.Metrics[u] = (res.Metrics[u]*float64(res.Runs) + v) / float64(res.Runs+1)
		}
		res.Runs++
	}
	return out, sc.Err()
}

// trimProcs drops the "-8" GOMAXPROCS suffix go test adds to names.
func trimProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name
	}
	if _, err := strconv.Atoi(name[i+1:]); err != nil {
		return name
	}
	return name[:i]
}

var standard = map[string]bool{"ns/op": true, "MB/s": true, "allocs/op": true, "B/op": true}

// Table renders the results as one markdown table.
func Table(results []*Result) string {
	var b strings.Builder
	b.WriteString("| package | benchmark | ns/op | MB/s | allocs/op | B/op | custom metrics | ratio |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|---|--:|\n")
	for _, r := range results {
		var custom, ratio []string
		units := make([]string, 0, len(r.Metrics))
		for u := range r.Metrics {
			if !standard[u] {
				units = append(units, u)
			}
		}
		sort.Strings(units)
		for _, u := range units {
			s := num(r.Metrics[u]) + " " + u
			if strings.HasPrefix(u, "x-") {
				ratio = append(ratio, s)
			} else {
				custom = append(custom, s)
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
			shortPkg(r.Pkg), r.Name, metric(r, "ns/op"), metric(r, "MB/s"),
			metric(r, "allocs/op"), metric(r, "B/op"),
			strings.Join(custom, ", "), strings.Join(ratio, ", "))
	}
	return b.String()
}

func shortPkg(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func metric(r *Result, unit string) string {
	v, ok := r.Metrics[unit]
	if !ok {
		return ""
	}
	return num(v)
}

// num prints v with about four significant digits and no exponent.
func num(v float64) string {
	switch a := abs(v); {
	case a == 0:
		return "0"
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'f', 4, 64)
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// Splice puts table between the markers of doc.
func Splice(doc []byte, table string) ([]byte, error) {
	i := bytes.Index(doc, []byte(beginMarker))
	j := bytes.Index(doc, []byte(endMarker))
	if i < 0 || j < i {
		return nil, fmt.Errorf("markers %s … %s not found in order", beginMarker, endMarker)
	}
	var out bytes.Buffer
	out.Write(doc[:i+len(beginMarker)])
	out.WriteString("\n")
	out.WriteString(table)
	out.Write(doc[j:])
	return out.Bytes(), nil
}

func main() {
	write := flag.String("write", "", "markdown file whose "+beginMarker+" … "+endMarker+" section gets the table")
	svg := flag.String("svg", "", "SVG file for the per-stage chart")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, *write, *svg); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer, write, svg string) error {
	results, err := Parse(in)
	if err != nil {
		return err
	}
	if len(results) == 0 {
		return fmt.Errorf("no benchmark results on stdin")
	}
	table := Versus(results) + Table(results)
	if _, err := io.WriteString(out, table); err != nil {
		return err
	}
	if write != "" {
		doc, err := os.ReadFile(write)
		if err != nil {
			return err
		}
		doc, err = Splice(doc, table)
		if err != nil {
			return fmt.Errorf("%s: %w", write, err)
		}
		if err := os.WriteFile(write, doc, 0o644); err != nil {
			return err
		}
	}
	if svg != "" {
		bars := Stages(results)
		if len(bars) == 0 {
			return fmt.Errorf("no stage benchmarks for the chart (run the bench package)")
		}
		if err := os.WriteFile(svg, []byte(Chart(bars)), 0o644); err != nil {
			return err
		}
	}
	return nil
}
