// Command checkdocs checks the repository's Markdown against the repository
// itself, so that a page never sends a reader to something that is not there.
// `make test` runs it (the docs-check target); run it alone with
//
//	go run ./internal/tools/checkdocs
//
// from anywhere in the repository. It reads every committed (or new, not
// ignored) *.md file and reports, as file:line: kind: message,
//
//   - link: a relative link or image whose file does not exist, or whose
//     #anchor names no heading of the target .md file (GitHub's rules:
//     lowercase, spaces to '-', punctuation other than '-' and '_' dropped,
//     letters of any script, CJK included, kept; repeats get -1, -2, ...);
//   - test: a backticked TestXxx, ExampleXxx, BenchmarkXxx or FuzzXxx that no
//     _test.go declares (after `-run`, a prefix of a declared name is enough,
//     as `go test -run` matches a prefix); in fenced blocks, only the
//     `go test` command lines are checked, their tests and ./package dirs;
//   - path: a backticked repository path (its first element a top-level
//     file or directory, e.g. `informer/testdata/scenarios/01-x.txt` or
//     `fakeapiserver/ops.go`) that does not exist;
//   - symbol: a backticked `pkg.Name`, `pkg.Type.Method` or `pkg.Name(...)`
//     where pkg is one of the repository's own packages and Name is declared
//     nowhere in it, or a backticked `Name()` whose Name is declared nowhere
//     in the repository (functions, methods, types, fields, variables and
//     constants all count, so that only a name that refers to nothing fails);
//
// and, in every committed file of any kind, outside: a reference to the
// directory outside the repository the project's source material lives in
// (the strings outsideMarkers lists).
//
// A line holding the comment <!-- checkdocs:ignore --> is exempt from the
// test, path and symbol checks (for a path the reader is told to create, or
// one the text says does not exist); a backticked name on a line (or the two
// before it) that mentions client-go, k8s.io or upstream is taken for
// client-go's and not checked as a symbol.
//
// known.txt lists findings that are printed but do not fail the check: only
// for a page someone else is editing at the time (see its header).
//
// It is conservative on purpose: what it cannot resolve reliably (a bare
// `Name`, a path whose first element is not in the repository, a name of a
// package that is not kinformer's) it leaves alone.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// outsideMarkers are the strings no committed file may contain: paths that
// only exist on the machine the repository was written on. They are built by
// concatenation so that this file does not contain them itself.
var outsideMarkers = []string{".." + "/shared", "/" + "work/"}

// Problem is one finding.
type Problem struct {
	File string
	Line int
	Kind string // link, test, path, symbol, outside
	Msg  string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Kind, p.Msg)
}

// Repo is what the checks resolve against: the repository's files and the
// Go declarations in them. Paths are slash-separated, relative to the root.
type Repo struct {
	Files    map[string]bool            // every file
	Dirs     map[string]bool            // every directory holding a file
	Tests    map[string]bool            // Test/Example/Benchmark/Fuzz funcs in _test.go files
	Names    map[string]bool            // every declared identifier, any package
	PkgNames map[string]bool            // the package names of the repository's packages
	PkgDecls map[string]map[string]bool // package name -> identifiers declared in it
	// Read returns a file's content (the .md files and the anchor targets).
	Read func(name string) ([]byte, error)
}

// NewRepo builds a Repo from the given files of the repository rooted at root.
func NewRepo(root string, files []string) (*Repo, error) {
	r := &Repo{
		Files: map[string]bool{}, Dirs: map[string]bool{}, Tests: map[string]bool{},
		Names: map[string]bool{}, PkgNames: map[string]bool{}, PkgDecls: map[string]map[string]bool{},
		Read: func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(root, filepath.FromSlash(name))) },
	}
	fset := token.NewFileSet()
	for _, f := range files {
		r.addFile(f)
		if !strings.HasSuffix(f, ".go") || strings.Contains(f, "/testdata/") || strings.HasPrefix(f, "testdata/") {
			continue
		}
		src, err := r.Read(f)
		if err != nil {
			continue // listed by git but removed from the work tree
		}
		file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", f, err)
		}
		r.AddGoFile(file, strings.HasSuffix(f, "_test.go"))
	}
	return r, nil
}

func (r *Repo) addFile(f string) {
	r.Files[f] = true
	for d := path.Dir(f); d != "." && d != "/"; d = path.Dir(d) {
		r.Dirs[d] = true
	}
}

// AddGoFile records the declarations of one parsed Go file.
func (r *Repo) AddGoFile(file *ast.File, isTest bool) {
	pkg := strings.TrimSuffix(file.Name.Name, "_test")
	if pkg != "main" {
		r.PkgNames[pkg] = true
	}
	decls := r.PkgDecls[pkg]
	if decls == nil {
		decls = map[string]bool{}
		r.PkgDecls[pkg] = decls
	}
	add := func(name string) {
		r.Names[name] = true
		decls[name] = true
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			add(n.Name.Name)
			if isTest && n.Recv == nil && testFuncRe.MatchString(n.Name.Name) {
				r.Tests[n.Name.Name] = true
			}
		case *ast.TypeSpec:
			add(n.Name.Name)
		case *ast.ValueSpec:
			for _, id := range n.Names {
				add(id.Name)
			}
		case *ast.Field: // struct fields and interface methods
			for _, id := range n.Names {
				add(id.Name)
			}
		case *ast.SelectorExpr: // x.Name used in the code: a method or field of some type, stdlib's included
			r.Names[n.Sel.Name] = true
		}
		return true
	})
}

var (
	testFuncRe = regexp.MustCompile(`^(Test|Benchmark|Fuzz)([A-Z0-9_].*)?$|^Example.*$`)
	// A test name inside a code span.
	testNameRe = regexp.MustCompile(`\b((?:Test|Benchmark|Fuzz)[A-Z0-9_][A-Za-z0-9_]*|Example[A-Za-z0-9_]*)`)
	linkRe     = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refLinkRe  = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+.*)?$`)
	htmlRefRe  = regexp.MustCompile(`(?i)\b(?:href|src)="([^"]+)"`)
	headingRe  = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlIDRe   = regexp.MustCompile(`(?i)<a\s+(?:name|id)="([^"]+)"`)
	codeSpanRe = regexp.MustCompile("(`+)(.+?)(`+)")
	fenceRe    = regexp.MustCompile("^\\s{0,3}(```+|~~~+)")
	// `pkg.Name`, `pkg.Type.Method`, optionally followed by a call.
	qualRe = regexp.MustCompile(`^([a-z][a-z0-9]*)\.([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?(?:\(.*\))?$`)
	// `Name()` or `Name(args)`, or `Type.Method()`.
	callRe = regexp.MustCompile(`^(?:([A-Z][A-Za-z0-9_]*)\.)?([A-Za-z_][A-Za-z0-9_]*)\([^()]*\)$`)
	// A path-like code span: no spaces, at least one slash.
	goTestRe        = regexp.MustCompile(`^\s*(?:\$ )?(go test .*)$`)
	qualifiedLastRe = regexp.MustCompile(`\.[A-Z(][^/]*$`)
	pathRe          = regexp.MustCompile(`^(?:\./)?[A-Za-z0-9_.@-]+(?:/[A-Za-z0-9_.*@-]+)*/?(?::[0-9]+(?:-[0-9]+)?)?$`)
)

// placeholders are test names the docs use to mean "your test".
var placeholders = map[string]bool{"TestName": true, "TestXxx": true, "ExampleXxx": true, "BenchmarkXxx": true, "FuzzXxx": true}

const ignoreMarker = "<!-- checkdocs:ignore -->"

var upstreamRe = regexp.MustCompile(`(?i)client-go|k8s\.io|upstream`)

var builtins = map[string]bool{
	"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true, "delete": true,
	"imag": true, "len": true, "make": true, "max": true, "min": true, "new": true, "panic": true,
	"print": true, "println": true, "real": true, "recover": true,
}

// CheckMarkdown checks one Markdown file's content.
func (r *Repo) CheckMarkdown(name string, content []byte) []Problem {
	var probs []Problem
	add := func(line int, kind, format string, args ...any) {
		probs = append(probs, Problem{File: name, Line: line, Kind: kind, Msg: fmt.Sprintf(format, args...)})
	}
	var inFence fence
	var prev [2]string // the two lines before, for the client-go rule
	sc := bufio.NewScanner(bytes.NewReader(content))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := sc.Text()
		upstream := upstreamRe.MatchString(prev[0] + "\n" + prev[1] + "\n" + line)
		ignore := strings.Contains(line, ignoreMarker)
		prev[0], prev[1] = prev[1], line
		if inFence.toggle(line) {
			continue
		}
		if inFence.inside() {
			// In a fenced block only `go test` command lines are checked:
			// the tests they run and the packages they name.
			if m := goTestRe.FindStringSubmatch(line); m != nil && !ignore {
				r.checkGoTest(m[1], func(kind, format string, args ...any) { add(lineNo, kind, format, args...) })
			}
			continue
		}
		// Code spans: checked for names and paths, then blanked out so
		// that a link inside one is not taken for a link.
		spans := codeSpanRe.FindAllStringSubmatchIndex(line, -1)
		rest := []byte(line)
		for _, s := range spans {
			if line[s[2]:s[3]] != line[s[6]:s[7]] {
				continue
			}
			code := strings.TrimSpace(line[s[4]:s[5]])
			if !ignore {
				r.checkSpan(code, upstream, func(kind, format string, args ...any) { add(lineNo, kind, format, args...) })
			}
			for i := s[0]; i < s[1]; i++ {
				rest[i] = ' '
			}
		}
		text := string(rest)
		var targets []string
		for _, m := range linkRe.FindAllStringSubmatch(text, -1) {
			targets = append(targets, m[1])
		}
		if m := refLinkRe.FindStringSubmatch(text); m != nil {
			targets = append(targets, m[1])
		}
		for _, m := range htmlRefRe.FindAllStringSubmatch(text, -1) {
			targets = append(targets, m[1])
		}
		for _, t := range targets {
			if msg := r.checkLink(name, content, t); msg != "" {
				add(lineNo, "link", "%s", msg)
			}
		}
	}
	return probs
}

func (r *Repo) checkSpan(code string, upstream bool, report func(kind, format string, args ...any)) {
	// Test names, anywhere in the span (`go test ./x -run TestFoo -v`).
	afterRun := strings.Contains(code, "-run")
	for _, m := range testNameRe.FindAllStringIndex(code, -1) {
		// Skip a name that is part of a longer identifier or a path/regexp word.
		if m[0] > 0 {
			c := code[m[0]-1]
			if c == '_' || c == '.' || isAlnum(c) {
				continue
			}
		}
		name := code[m[0]:m[1]]
		if r.Tests[name] || name == "TestMain" || placeholders[name] {
			continue
		}
		if afterRun && r.hasTestPrefix(name) {
			continue
		}
		report("test", "`%s` names no test, example, benchmark or fuzz target in any _test.go", name)
	}
	if strings.ContainsAny(code, " \t") {
		return
	}
	if pathRe.MatchString(code) && strings.Contains(code, "/") {
		if qualifiedLastRe.MatchString(code) {
			return // dir/pkg.Name: a symbol, not a file
		}
		if msg := r.checkPath(code); msg != "" {
			report("path", "%s", msg)
		}
		return
	}
	if upstream {
		return
	}
	if m := qualRe.FindStringSubmatch(code); m != nil {
		pkg, name, member := m[1], m[2], m[3]
		decls, ok := r.PkgDecls[pkg]
		if !ok || !r.PkgNames[pkg] {
			return // not one of ours
		}
		if !decls[name] {
			report("symbol", "`%s`: package %s declares no %s", code, pkg, name)
		} else if member != "" && !decls[member] {
			report("symbol", "`%s`: package %s declares no %s", code, pkg, member)
		}
		return
	}
	if m := callRe.FindStringSubmatch(code); m != nil {
		typ, name := m[1], m[2]
		if builtins[name] {
			return
		}
		if typ != "" && !r.Names[typ] {
			report("symbol", "`%s`: nothing in the repository is named %s", code, typ)
		} else if !r.Names[name] {
			report("symbol", "`%s`: nothing in the repository is named %s", code, name)
		}
	}
}

// checkGoTest checks a `go test` command line: the test names after -run
// (a prefix is enough) and the ./package arguments.
func (r *Repo) checkGoTest(cmd string, report func(kind, format string, args ...any)) {
	if i := strings.Index(cmd, "#"); i >= 0 {
		cmd = cmd[:i] // a shell comment
	}
	r.checkSpan(cmd, false, report)
	for _, f := range strings.Fields(cmd) {
		if strings.HasPrefix(f, "./") && !strings.Contains(f, "...") {
			if dir := strings.TrimSuffix(strings.TrimPrefix(f, "./"), "/"); dir != "" && !r.Dirs[dir] {
				report("path", "`go test %s`: no package directory %s in the repository", f, dir)
			}
		}
	}
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (r *Repo) hasTestPrefix(prefix string) bool {
	for t := range r.Tests {
		if strings.HasPrefix(t, prefix) {
			return true
		}
	}
	return false
}

// checkPath checks a path-like code span. It only judges paths whose first
// element is a top-level file or directory of the repository.
func (r *Repo) checkPath(code string) string {
	p := strings.TrimPrefix(code, "./")
	if i := strings.Index(p, ":"); i >= 0 {
		p = p[:i]
	}
	p = strings.TrimSuffix(p, "/")
	if p == "" || strings.Contains(p, "..") {
		return ""
	}
	first := strings.SplitN(p, "/", 2)[0]
	if !r.Dirs[first] && !r.Files[first] {
		return ""
	}
	glob := strings.ContainsAny(p, "*")
	for _, set := range []map[string]bool{r.Files, r.Dirs} {
		if !glob && set[p] {
			return ""
		}
		// A path may be written relative to a package's directory
		// (`testdata/pod.json` on the api page): any directory will do.
		for f := range set {
			for cand := f; ; {
				if ok, _ := path.Match(p, cand); ok {
					return ""
				}
				i := strings.IndexByte(cand, '/')
				if i < 0 {
					break
				}
				cand = cand[i+1:]
			}
		}
	}
	if glob {
		return fmt.Sprintf("`%s` matches no file in the repository", code)
	}
	return fmt.Sprintf("`%s`: no such file or directory in the repository", code)
}

// checkLink checks one link target of the Markdown file from.
func (r *Repo) checkLink(from string, fromContent []byte, target string) string {
	if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") ||
		strings.HasPrefix(target, "//") {
		return ""
	}
	file, anchor, _ := strings.Cut(target, "#")
	if i := strings.IndexByte(file, '?'); i >= 0 {
		file = file[:i]
	}
	var dest string
	if file == "" {
		dest = from
	} else {
		if strings.HasPrefix(file, "/") {
			dest = path.Clean(strings.TrimPrefix(file, "/"))
		} else {
			dest = path.Clean(path.Join(path.Dir(from), file))
		}
		if strings.HasPrefix(dest, "..") {
			return fmt.Sprintf("link %q leaves the repository", target)
		}
		if !r.Files[dest] && !r.Dirs[dest] {
			return fmt.Sprintf("link %q: %s does not exist", target, dest)
		}
	}
	if anchor == "" || !strings.HasSuffix(dest, ".md") {
		return ""
	}
	content := fromContent
	if dest != from {
		if !r.Files[dest] {
			return ""
		}
		var err error
		if content, err = r.Read(dest); err != nil {
			return fmt.Sprintf("link %q: %v", target, err)
		}
	}
	if !Anchors(content)[anchor] {
		return fmt.Sprintf("link %q: %s has no heading with anchor #%s", target, dest, anchor)
	}
	return ""
}

// Anchors returns the anchors GitHub gives the headings of a Markdown file,
// plus explicit <a name|id="..."> anchors.
func Anchors(content []byte) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	var inFence fence
	for _, line := range strings.Split(string(content), "\n") {
		if inFence.toggle(line) {
			continue
		}
		if inFence.inside() {
			continue
		}
		for _, m := range htmlIDRe.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		m := headingRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := Slug(m[2])
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

var mdLinkInHeading = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// Slug is GitHub's anchor for a heading's text: inline markup reduced to its
// text, lowercased, every character that is not a letter, a digit, a mark,
// a space, '-' or '_' dropped, and each space turned into '-'.
func Slug(heading string) string {
	h := mdLinkInHeading.ReplaceAllString(heading, "$1")
	h = regexp.MustCompile(`<[^>]+>`).ReplaceAllString(h, "")
	h = strings.ToLower(h)
	var b strings.Builder
	for _, c := range h {
		switch {
		case c == ' ':
			b.WriteByte('-')
		case c == '-' || c == '_':
			b.WriteRune(c)
		case unicode.IsLetter(c) || unicode.IsDigit(c) || unicode.IsMark(c):
			b.WriteRune(c)
		}
	}
	return b.String()
}

// CheckOutside reports each line of a file that names a place outside the
// repository.
func CheckOutside(name string, content []byte) []Problem {
	var probs []Problem
	for i, line := range bytes.Split(content, []byte("\n")) {
		for _, m := range outsideMarkers {
			if bytes.Contains(line, []byte(m)) {
				probs = append(probs, Problem{File: name, Line: i + 1, Kind: "outside",
					Msg: fmt.Sprintf("mentions %q, a path outside the repository", m)})
			}
		}
	}
	return probs
}

// Check runs every check over the repository's files.
func Check(r *Repo, files []string) []Problem {
	var probs []Problem
	for _, f := range files {
		content, err := r.Read(f)
		if err != nil {
			if errorsIsNotExist(err) {
				continue
			}
			probs = append(probs, Problem{File: f, Line: 0, Kind: "read", Msg: err.Error()})
			continue
		}
		probs = append(probs, CheckOutside(f, content)...)
		if strings.HasSuffix(f, ".md") {
			probs = append(probs, r.CheckMarkdown(f, content)...)
		}
	}
	probs = append(probs, CheckTwins(r, files)...)
	sort.SliceStable(probs, func(i, j int) bool {
		if probs[i].File != probs[j].File {
			return probs[i].File < probs[j].File
		}
		return probs[i].Line < probs[j].Line
	})
	return probs
}

func errorsIsNotExist(err error) bool {
	return os.IsNotExist(err) || err == fs.ErrNotExist
}

// fence tracks whether a Markdown line is inside a fenced code block (```
// or ~~~; a block closes only with the marker that opened it).
type fence struct{ open string }

// toggle reports whether line is a fence line, opening or closing a block.
func (f *fence) toggle(line string) bool {
	m := fenceRe.FindStringSubmatch(line)
	if m == nil {
		return false
	}
	switch marker := m[1][:3]; f.open {
	case "":
		f.open = marker
	case marker:
		f.open = ""
	}
	return true
}

// inside reports whether the lines now read are in a fenced block.
func (f *fence) inside() bool { return f.open != "" }
