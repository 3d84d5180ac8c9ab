package fakeapiserver

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The answers in testdata/kube-apiserver-1.36-source/ were not captured
// from a running server (the recordings in testdata/kube-apiserver-1.36/
// were): each is read off kube-apiserver 1.36's source, the function that
// produces it named beside it. This test replays every file, in order,
// against a fresh fake server and requires the same code, reason and
// message.
//
// File format, one exchange per block (blocks are separated by a blank
// line; "#" lines are comments, "source:" names the function):
//
//	> METHOD PATH [content-type]
//	body (one line; absent when the next line starts with "<")
//	< CODE [Reason]
//	message (optional; "<...>" matches anything; for a 2xx answer, a
//	fragment its body must contain)
func TestRealServer_AnswersFromSource(t *testing.T) {
	files, err := filepath.Glob("../testdata/kube-apiserver-1.36-source/*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			e := newEnv(t, Options{})
			for _, x := range readExchanges(t, file) {
				var headers []string
				if x.contentType != "" {
					headers = []string{"Content-Type", x.contentType}
				}
				r := e.do(x.method, x.path, x.body, headers...)
				where := file + ":" + strconv.Itoa(x.line)
				t.Logf("%s %s → %d (%s)", x.method, x.path, r.code, x.source)
				require.Equal(t, x.code, r.code, "%s %s %s\nsource: %s\n%s", where, x.method, x.path, x.source, r.body)
				if x.code < 300 {
					if x.message != "" { // a fragment the answer's body must contain
						require.Regexp(t, strings.Trim(messagePattern(x.message), "^$"), string(r.body), "%s\nsource: %s", where, x.source)
					}
					continue
				}
				if x.reason == "" && x.message == "" {
					continue
				}
				st := r.status(t)
				if x.reason != "" {
					require.Equal(t, x.reason, string(st.Reason), "%s\nsource: %s", where, x.source)
				}
				if x.message != "" {
					require.Regexp(t, messagePattern(x.message), st.Message, "%s\nsource: %s", where, x.source)
				}
			}
		})
	}
}

type exchange struct {
	line                            int
	source                          string
	method, path, contentType, body string
	code                            int
	reason, message                 string
}

func readExchanges(t *testing.T, file string) []exchange {
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var out []exchange
	var cur *exchange
	var source string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			if cur != nil {
				out = append(out, *cur)
				cur = nil
			}
			source = ""
		case strings.HasPrefix(line, "source:"):
			source = strings.TrimSpace(strings.TrimPrefix(line, "source:"))
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "> "):
			fields := strings.Fields(line[2:])
			require.GreaterOrEqual(t, len(fields), 2, "%s:%d: want '> METHOD PATH [content-type]'", file, n)
			cur = &exchange{line: n, source: source, method: fields[0], path: fields[1]}
			if len(fields) > 2 {
				cur.contentType = fields[2]
			}
		case cur == nil:
			t.Fatalf("%s:%d: %q outside an exchange", file, n, line)
		case strings.HasPrefix(line, "< "):
			fields := strings.Fields(line[2:])
			code, err := strconv.Atoi(fields[0])
			require.NoError(t, err, "%s:%d", file, n)
			cur.code = code
			if len(fields) > 1 {
				cur.reason = fields[1]
			}
		case cur.code == 0:
			cur.body = line
		default:
			cur.message = line
		}
	}
	require.NoError(t, sc.Err())
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

// messagePattern turns a message with "<...>" wildcards into an anchored
// regular expression.
func messagePattern(msg string) string {
	parts := strings.Split(msg, "<...>")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return "^" + strings.Join(parts, ".*") + "$"
}
