package fakeapiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// Invalid DeleteOptions are one 422 on DeleteOptions.meta.k8s.io with a
// cause per bad value, worded as apimachinery's ValidateDeleteOptions
// words them, whether the options come in the query or in the body.
func TestDelete_InvalidOptionsAre422(t *testing.T) {
	cases := []struct{ name, query, body, want string }{
		{"propagationPolicy in the query", "?propagationPolicy=Sideways", "",
			`DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Sideways\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"`},
		{"propagationPolicy in the body", "", `{"propagationPolicy":"Sideways"}`,
			`DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Sideways\"`},
		{"dryRun", "?dryRun=Bogus", "",
			`DeleteOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: [\"Bogus\"]: supported values: \"All\"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			e.postPod("p", "")
			r := e.do(http.MethodDelete, podsPath+"/p"+c.query, c.body)
			require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
			require.Contains(t, string(r.body), c.want)
			require.Contains(t, string(r.body), `"reason":"Invalid"`)
		})
	}
}
