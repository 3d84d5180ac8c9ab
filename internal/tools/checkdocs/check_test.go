package main

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixtureRepo is a small repository: a few files, one package with a
// function, a type and a method, and a test file.
func fixtureRepo(t *testing.T) *Repo {
	t.Helper()
	files := map[string]string{
		"docs/a.md":                    "# Title\n\n## Why a queue?\n\n## Why a queue?\n\n## `Pop` and HasSynced()\n\n## 为什么 需要 墓碑\n\n<a id=\"explicit\"></a>\n",
		"docs/b.md":                    "# B\n",
		"informer/doc.go":              "package informer\n",
		"informer/informer.go":         "package informer\n\nfunc NewSharedIndexInformer() {}\n\ntype Lister struct{ Name string }\n\nfunc (l *Lister) List() { l.x.ReadSlice() }\n",
		"informer/informer_test.go":    "package informer\n\nimport \"testing\"\n\nfunc TestInformer_SlowHandler(t *testing.T) {}\n\nfunc ExampleNewSharedIndexInformer() {}\n",
		"informer/testdata/s/01-x.txt": "x\n",
	}
	r := &Repo{
		Files: map[string]bool{}, Dirs: map[string]bool{}, Tests: map[string]bool{},
		Names: map[string]bool{}, PkgNames: map[string]bool{}, PkgDecls: map[string]map[string]bool{},
		Read: func(name string) ([]byte, error) {
			if s, ok := files[name]; ok {
				return []byte(s), nil
			}
			return nil, os.ErrNotExist
		},
	}
	fset := token.NewFileSet()
	for name, src := range files {
		r.addFile(name)
		if strings.HasSuffix(name, ".go") {
			f, err := parser.ParseFile(fset, name, src, 0)
			require.NoError(t, err)
			r.AddGoFile(f, strings.HasSuffix(name, "_test.go"))
		}
	}
	return r
}

func TestCheckMarkdown(t *testing.T) {
	r := fixtureRepo(t)
	tests := []struct {
		name string
		md   string
		want []string // "line: kind", in order; nil for no problem
	}{
		{"good relative link", "see [b](b.md)\n", nil},
		{"good link to a directory", "see [informer](../informer)\n", nil},
		{"missing file", "see [c](c.md)\n", []string{"1: link"}},
		{"link leaving the repository", "see [x](../../x.md)\n", []string{"1: link"}},
		{"external link", "see [k8s](https://kubernetes.io/x.md)\n", nil},
		{"good anchor", "[q](a.md#why-a-queue)\n", nil},
		{"second heading of the same text", "[q](a.md#why-a-queue-1)\n", nil},
		{"anchor with code and parentheses", "[p](a.md#pop-and-hassynced)\n", nil},
		{"CJK anchor", "[t](a.md#为什么-需要-墓碑)\n", nil},
		{"explicit anchor", "[e](a.md#explicit)\n", nil},
		{"missing anchor", "[q](a.md#why-a-fifo)\n", []string{"1: link"}},
		{"anchor in the same file", "# Here we are\n[h](#here-we-are) [m](#nowhere)\n", []string{"2: link"}},
		{"link inside a code span is not a link", "`[c](c.md)`\n", nil},
		{"link inside a fenced block is not checked", "```\n[c](c.md)\n```\n", nil},
		{"go test in a fenced block", "```sh\ngo test ./informer -run TestInformer_Slow -v   # TestNope in a comment\n$ go test ./informer -run TestNope\ngo test ./nowhere/x ./...\n```\n", []string{"3: test", "4: path"}},
		{"output in a fenced block is not checked", "```\n--- PASS: TestNope (0.00s)\n```\n", nil},
		{"reference link", "[c]: c.md\n", []string{"1: link"}},
		{"image", "![shot](missing.png)\n", []string{"1: link"}},
		{"existing test", "`TestInformer_SlowHandler`\n", nil},
		{"missing test", "text\n`TestInformer_FastHandler`\n", []string{"2: test"}},
		{"example", "`ExampleNewSharedIndexInformer` and `ExampleNewLister`\n", []string{"1: test"}},
		{"test in a go test command", "`go test ./informer -run TestInformer_SlowHandler -v`\n", nil},
		{"prefix after -run", "`go test ./informer -run TestInformer_Slow -v`\n", nil},
		{"missing test after -run", "`go test ./informer -run TestNope -v`\n", []string{"1: test"}},
		{"placeholder", "`go test -run '^TestName$'`\n", nil},
		{"test names outside code spans are prose", "TestNope is not checked\n", nil},
		{"existing path", "`informer/testdata/s/01-x.txt` and `./informer` and `informer/informer.go:12`\n", nil},
		{"path relative to a package", "`testdata/s/01-x.txt`\n", nil},
		{"glob", "`informer/testdata/s/*.txt` `informer/*.md`\n", []string{"1: path"}},
		{"missing path", "`informer/testdata/s/02-y.txt`\n", []string{"1: path"}},
		{"path of something else", "`default/web-0` `k8s.io/client-go/tools/cache`\n", nil},
		{"ignored line", "`informer/new.txt` <!-- checkdocs:ignore -->\n", nil},
		{"pkg.Func", "`informer.NewSharedIndexInformer` `informer.Lister.List` `informer.NewSharedIndexInformer(x)`\n", nil},
		{"missing pkg.Func", "`informer.NewInformer` `informer.Lister.Watch`\n", []string{"1: symbol", "1: symbol"}},
		{"other packages are not ours", "`cache.NewInformer` `time.Now()`\n", nil},
		{"dir/pkg.Func is a symbol, not a path", "`informer/x.Foo`\n", nil},
		{"Func()", "`NewSharedIndexInformer()` `Lister.List()` `len(x)` `ReadSlice('\\n')`\n", nil},
		{"missing Func()", "`WaitForCacheSync()`\n", []string{"1: symbol"}},
		{"client-go names are not checked", "client-go has\n`WaitForCacheSync()` and `informer.NewInformer`\n", nil},
		{"outside the repository", "see " + outsideMarkers[0] + "/articles\n", []string{"1: outside"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			content := []byte(tc.md)
			probs := append(CheckOutside("docs/t.md", content), r.CheckMarkdown("docs/t.md", content)...)
			var got []string
			for _, p := range probs {
				assert.Equal(t, "docs/t.md", p.File)
				got = append(got, strconv.Itoa(p.Line)+": "+p.Kind)
			}
			assert.Equal(t, tc.want, got, "problems: %v", probs)
		})
	}
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Why a queue?":                 "why-a-queue",
		"`Pop`, `HasSynced` and Close": "pop-hassynced-and-close",
		"Article 004's seven steps":    "article-004s-seven-steps",
		"常见问题：为什么要墓碑（tombstone）？":      "常见问题为什么要墓碑tombstone",
		"A [link](x.md) in it":         "a-link-in-it",
		"snake_case and dash-ed":       "snake_case-and-dash-ed",
	} {
		assert.Equal(t, want, Slug(heading), heading)
	}
}

func TestCheckOutside(t *testing.T) {
	probs := CheckOutside("x.go", []byte("a\nb "+outsideMarkers[1]+"main\n"))
	require.Len(t, probs, 1)
	assert.Equal(t, "x.go:2: outside: mentions \""+outsideMarkers[1]+"\", a path outside the repository", probs[0].String())
}

func TestSplitKnown(t *testing.T) {
	probs := []Problem{
		{File: "docs/a.md", Line: 3, Kind: "test", Msg: "`TestOld` names no test"},
		{File: "docs/a.md", Line: 9, Kind: "link", Msg: `link "b.md": docs/b.md does not exist`},
	}
	fresh, old, stale := SplitKnown(probs, "# comment\ndocs/a.md test `TestOld`\ndocs/c.md path `gone/`\n")
	assert.Equal(t, probs[1:], fresh)
	assert.Equal(t, probs[:1], old)
	assert.Equal(t, []string{"docs/c.md path `gone/`"}, stale)
}
