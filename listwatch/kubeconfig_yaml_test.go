package listwatch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A kubeconfig is read as kubectl reads one: its YAML is turned into JSON
// (internal/yamljson, as sigs.k8s.io/yaml does for kubectl), which
// encoding/json decodes. So YAML 1.1's types apply: a value that YAML reads
// as a number or a boolean is refused for a string field, with its line
// and a hint to quote it; YAML that kubectl reads and kubeconfig writers
// seldom write (flow mappings over several lines, folded scalars, tags) is
// read; keys are matched with their case, as kubectl matches them. Anchors
// and a key given twice are refused, as this reader has always refused
// them.
func TestLoadKubeconfig_ReadsYAMLAsKubectlDoes(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	const ctx = "current-context: a\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\n- name: b\n  context: {cluster: c}\n"
	tests := []struct {
		name, content string
		context       string
		want          Config
		wantErr       string
	}{
		{name: "an unquoted number is not a string",
			content: ctx + "clusters:\n- name: c\n  cluster: {server: x}\nusers:\n- name: u\n  user:\n    token: 12345\n",
			wantErr: `line 13: user "u": token is a number, not a string (quote it: YAML reads 123, true or yes unquoted as a number or a boolean)`},
		{name: "a quoted number is",
			content: ctx + "clusters:\n- name: c\n  cluster: {server: x}\nusers:\n- name: u\n  user:\n    token: '12345'\n",
			want:    Config{Server: "x", BearerToken: "12345"}},
		{name: "yes is a YAML 1.1 boolean",
			content: ctx + "clusters:\n- name: c\n  cluster: {server: x, insecure-skip-tls-verify: yes}\n", context: "b",
			want: Config{Server: "x", InsecureSkipTLSVerify: true}},
		{name: "a boolean in quotes is still read",
			content: ctx + "clusters:\n- name: c\n  cluster: {server: x, insecure-skip-tls-verify: 'True'}\n", context: "b",
			want: Config{Server: "x", InsecureSkipTLSVerify: true}},
		{name: "YAML that kubectl reads",
			content: ctx + "clusters:\n- name: c\n  cluster: {server: x,\n    certificate-authority-data: !!str eA==}\nusers:\n- name: u\n  user:\n    token: >-\n      a\n      b\n",
			want:    Config{Server: "x", CAData: []byte("x"), BearerToken: "a b"}},
		{name: "an anchor and its alias",
			content: ctx + "clusters:\n- name: c\n  cluster: &shared {server: x}\n- name: d\n  cluster: *shared\n", context: "b",
			want: Config{Server: "x"}},
		{name: "keys have their case",
			content: ctx + "clusters:\n- name: c\n  cluster: {Server: x}\n", context: "b",
			wantErr: `line 9: cluster "c" has no server`},
		{name: "a key given twice",
			content: ctx + "clusters:\n- name: c\n  cluster: {server: x}\n  cluster: {server: y}\n",
			wantErr: `line 10: key "cluster" already set in map`},
		{name: "a syntax error names its line as kubectl does",
			content: ctx + "clusters:\n- name: c\n  cluster: {server: x\n",
			wantErr: `yaml: line 9: did not find expected ',' or '}'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "config", tt.content)
			cfg, _, err := LoadKubeconfig(KubeconfigOptions{Path: p, Context: tt.context})
			if tt.wantErr != "" {
				require.Error(t, err)
				t.Log(err)
				assert.Contains(t, err.Error(), "kubeconfig "+p+": ")
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg)
		})
	}
}
