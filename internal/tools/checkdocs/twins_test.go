package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A page and its twin: which differences the twin check reports. Each
// case gives the English page and the Chinese twin, and the messages'
// beginnings expected (nil: the twins agree).
func TestCheckTwins(t *testing.T) {
	const en = "# Reflector\n\n中文: [zh-CN/reflector.md](zh-CN/reflector.md)\n\n## Relist\n\n`TestReflector_Relist` and `informer/testdata/scenarios/02-relist.txt`.\n\n```sh\ngo test ./reflector -run TestReflector_Relist -v   # the story\n```\n\n```\nlist → watch\n```\n"
	const zh = "# 反射器\n\nEnglish: [../reflector.md](../reflector.md)\n\n## 重新列举\n\n`TestReflector_Relist` 和 `informer/testdata/scenarios/02-relist.txt`。\n\n```sh\ngo test ./reflector -run TestReflector_Relist -v   # 故事\n```\n\n```\n列举 → 监听\n```\n"
	tests := []struct {
		name   string
		en, zh string // "" for the twin: none
		want   []string
	}{
		{"twins agree (a comment and a diagram translated)", en, zh, nil},
		{"no twin", en, "", []string{"docs/reflector.md: no Chinese twin"}},
		{"a heading missing", en + "\n## Tombstones\n", zh, []string{"docs/zh-CN/reflector.md: headings differ"}},
		{"a test only in English", en + "\nAlso `TestReflector_Backoff`.\n", zh, []string{"docs/zh-CN/reflector.md: does not name TestReflector_Backoff"}},
		{"a script only in Chinese", en, zh + "\n`informer/testdata/scenarios/03-x.txt`\n", []string{"docs/zh-CN/reflector.md: names 03-x.txt"}},
		{"a command changed", en, strings.Replace(zh, "-v   #", "-count=1 -v   #", 1), []string{"docs/zh-CN/reflector.md: code block 1 differs"}},
		{"a code block missing", en + "\n```\nmake demo\n```\n", zh, []string{"docs/zh-CN/reflector.md: has 2 code blocks"}},
		{"no link back", en, strings.Replace(zh, "(../reflector.md)", "(x.md)", 1), []string{"docs/zh-CN/reflector.md: does not link to its English page"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"docs/reflector.md": tc.en}
			if tc.zh != "" {
				files["docs/zh-CN/reflector.md"] = tc.zh
			}
			r := &Repo{Files: map[string]bool{}, Dirs: map[string]bool{}, Read: func(name string) ([]byte, error) {
				if s, ok := files[name]; ok {
					return []byte(s), nil
				}
				return nil, os.ErrNotExist
			}}
			var names []string
			for f := range files {
				r.addFile(f)
				names = append(names, f)
			}
			var got []string
			for _, p := range CheckTwins(r, names) {
				got = append(got, p.File+": "+p.Msg)
			}
			require.Len(t, got, len(tc.want), "%q", got)
			for i, w := range tc.want {
				require.True(t, strings.HasPrefix(got[i], w), "got %q, want %q…", got[i], w)
			}
		})
	}
}
