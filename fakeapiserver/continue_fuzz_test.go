package fakeapiserver

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/kinformer/kinformer/api"
)

// Whatever continue token a client sends, the list answers without a
// panic: a page (200) for a token the server could have written, a 400
// BadRequest or 410 Expired Status for a bad or outdated one, or, for a
// token from the future, the 504 ResourceVersionTooLarge a list at such a
// version gets. Never a page stamped with a version the server has not
// reached.
func FuzzContinueToken(f *testing.F) {
	f.Add("garbage")
	f.Add(encodeContinue(1, "/seed-0\x00"))
	f.Add(encodeContinue(-1, "seed-0\x00"))
	f.Add(encodeContinue(999999999, "/seed-0\x00"))
	f.Add(encodeContinue(5, "/../../x"))
	f.Add(encodeContinue(5, ""))
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":1e30,"start":"/a"}`)))
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v2","rv":3,"start":"/a"}`)))
	f.Add(base64.StdEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":3,"start":"/a"}`)))
	f.Fuzz(func(t *testing.T, token string) {
		srv := New(Options{TooLargeResourceVersionWait: time.Millisecond})
		defer srv.Close()
		if err := srv.SeedPods("default", 3); err != nil {
			t.Fatal(err)
		}
		srv.CompactHistory()
		current := srv.ResourceVersion()
		q := url.Values{"limit": {"1"}, "continue": {token}}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://localhost/api/v1/namespaces/default/pods?"+q.Encode(), nil))
		switch rec.Code {
		case http.StatusOK:
			var list struct {
				Metadata api.ListMeta `json:"metadata"`
			}
			decodeInto(t, rec.Body.Bytes(), &list)
			if list.Metadata.ResourceVersion != current {
				t.Fatalf("token %q: a page at resourceVersion %s, the server is at %s", token, list.Metadata.ResourceVersion, current)
			}
		case http.StatusBadRequest, http.StatusGone, http.StatusGatewayTimeout:
			var st api.Status
			decodeInto(t, rec.Body.Bytes(), &st)
			if st.Kind != "Status" || st.Code != int32(rec.Code) {
				t.Fatalf("token %q: %d with body %s", token, rec.Code, rec.Body)
			}
			if rec.Code == http.StatusGatewayTimeout && (st.Details == nil || len(st.Details.Causes) == 0 ||
				st.Details.Causes[0].Type != api.CauseTypeResourceVersionTooLarge) {
				t.Fatalf("token %q: a 504 without the ResourceVersionTooLarge cause: %s", token, rec.Body)
			}
		default:
			t.Fatalf("token %q answered %d: %s", token, rec.Code, rec.Body)
		}
	})
}

func decodeInto(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}
