package main

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

// i18nTables reads app.js's I18N object: its en and zh tables.
func i18nTables(t *testing.T, js string) (en, zh map[string]string) {
	t.Helper()
	start := strings.Index(js, "const I18N = {")
	mid := strings.Index(js, "\n  zh: {")
	end := strings.Index(js[mid:], "\n};")
	require.True(t, start >= 0 && mid > start && end > 0, "app.js has the I18N object with en then zh")
	entry := regexp.MustCompile(`(?:'([^']+)'|([A-Za-z_][A-Za-z0-9_]*)):\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")`)
	table := func(s string) map[string]string {
		m := map[string]string{}
		for _, e := range entry.FindAllStringSubmatch(s, -1) {
			m[e[1]+e[2]] = e[3] + e[4]
		}
		return m
	}
	return table(js[start:mid]), table(js[mid : mid+end])
}

// callArgs returns the argument text of every call of fn( in js.
func callArgs(js, fn string) []string {
	var out []string
	re := regexp.MustCompile(`(^|[^\w$.])` + regexp.QuoteMeta(fn) + `\(`)
	for _, loc := range re.FindAllStringIndex(js, -1) {
		if strings.HasSuffix(js[:loc[0]+1], "function ") {
			continue // the definition, not a call
		}
		depth, i := 1, loc[1]
		for ; i < len(js) && depth > 0; i++ {
			switch js[i] {
			case '(':
				depth++
			case ')':
				depth--
			}
		}
		out = append(out, js[loc[1]:i-1])
	}
	return out
}

// The page's keys all have their Chinese: every data-i18n of index.html,
// every key app.js passes to t() or relabel(), and the keys t() is given
// by name (the informer, a reflector's phase). A zh value with no Chinese
// character in it is English left in 中文 mode.
func TestWeb_EveryKeyThePageUsesHasChinese(t *testing.T) {
	js, err := webFiles.ReadFile("web/app.js")
	require.NoError(t, err)
	html, err := webFiles.ReadFile("web/index.html")
	require.NoError(t, err)
	en, zh := i18nTables(t, string(js))
	require.Greater(t, len(en), 50, "the en table was read")

	keys := map[string]string{} // key -> where it is used
	for _, m := range regexp.MustCompile(`data-i18n="([^"]+)"`).FindAllStringSubmatch(string(html), -1) {
		keys[m[1]] = "index.html data-i18n"
	}
	literal := regexp.MustCompile(`^'([^']*)'$`)
	ternary := regexp.MustCompile(`^[\w.]+(?: === '[^']*')? \? '([^']+)' : '([^']+)'$`)
	// t() given a key computed from a value: the values it can take.
	computed := map[string][]string{
		`'informer_' + s.informer`: {"informer_today", "informer_articles"},
		`r.phase || 'none'`:        {"listing", "watching", "backing off", "stopped", "none"},
		`el.dataset.i18n`:          nil, // index.html's data-i18n, above
		`key`:                      nil, // relabel's, below
	}
	for _, arg := range callArgs(string(js), "t") {
		if m := literal.FindStringSubmatch(arg); m != nil {
			keys[m[1]] = "app.js t(" + arg + ")"
			continue
		}
		if m := ternary.FindStringSubmatch(arg); m != nil {
			keys[m[1]], keys[m[2]] = "app.js t("+arg+")", "app.js t("+arg+")"
			continue
		}
		vals, ok := computed[arg]
		require.True(t, ok, "t(%s): a key computed in a way this test does not know; list its values in computed", arg)
		for _, k := range vals {
			keys[k] = "app.js t(" + arg + ")"
		}
	}
	for _, arg := range callArgs(string(js), "relabel") {
		_, key, ok := strings.Cut(arg, ", ")
		require.True(t, ok, "relabel(%s)", arg)
		if m := ternary.FindStringSubmatch(key); m != nil {
			keys[m[1]], keys[m[2]] = "app.js relabel("+arg+")", "app.js relabel("+arg+")"
			continue
		}
		m := literal.FindStringSubmatch(key)
		require.NotNil(t, m, "relabel(%s): a key this test cannot read", arg)
		keys[m[1]] = "app.js relabel(" + arg + ")"
	}
	require.Contains(t, keys, "gapFifoReal", "the keys of a ternary are found")
	require.Contains(t, keys, "reflectorHintToday", "the keys of relabel are found")

	t.Logf("%d keys the page uses, %d in each table", len(keys), len(en))
	han := func(s string) bool {
		return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
	}
	for k, where := range keys {
		require.Contains(t, en, k, "%s: no English", where)
		require.Contains(t, zh, k, "%s: no Chinese", where)
		require.True(t, han(zh[k]), "%s: zh %q is not Chinese", where, zh[k])
	}
	for k := range en {
		require.Contains(t, zh, k, "en has %q, zh does not", k)
	}
	for k := range zh {
		require.Contains(t, en, k, "zh has %q, en does not", k)
	}
}

// GET /api/tour is the terminal's tour, in both languages, for the page's
// "Try this" panel: the same commands; until the tour is printed, 503.
func TestWeb_TourIsTheTerminalsTour(t *testing.T) {
	u, srv := newTestUI(t)
	resp, err := http.Get(srv.URL + "/api/tour")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "not printed yet: the page asks again")

	facts := tourFacts{url: "http://127.0.0.1:9999", listRV: "42", pods: []string{"web-a", "web-b"}}
	u.setTour(facts)
	resp, err = http.Get(srv.URL + "/api/tour")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var plans map[string]tourPlan
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&plans))
	for lang, tx := range map[string]*texts{"en": englishTexts, "zh": chineseTexts} {
		p := plans[lang]
		require.NotEmpty(t, p.Steps, lang)
		terminal := tx.tour(facts.url, facts.listRV, todayInformer, facts.pods...)
		short := tx.tourShort(facts.url, facts.listRV, facts.pods...)
		squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
		require.Equal(t, squeeze(tx.tourWords.chaosOff), squeeze(p.ChaosOff), "%s: the same words", lang)
		require.NotContains(t, p.ChaosOff, "\n", "the page wraps it")
		require.Contains(t, p.ChaosOff, "--chaos-every 0", lang)
		for _, s := range p.Steps {
			require.Contains(t, terminal, s.Title, lang)
			for _, l := range s.Lines {
				require.Contains(t, terminal, "       "+l.Cmd, "%s: the terminal's tour has the page's command", lang)
				require.Contains(t, short, "  "+l.Cmd+"\n", "%s: and so does the tour in short, at the end", lang)
			}
		}
	}
	require.Contains(t, plans["en"].Steps[2].Lines[1].Cmd, "delete pod web-a", "the tour names a real pod")
	require.Equal(t, plans["en"].Steps[0].Lines, plans["zh"].Steps[0].Lines[:1], "the commands are the same in both languages")
}
