package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

const configMapsPath = "/api/v1/namespaces/default/configmaps"

// configMapKeyRegexMsg is IsConfigMapKey's RegexError, word for word.
const configMapKeyRegexMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"

func configMapBody(t *testing.T, name string, fields map[string]any) string {
	t.Helper()
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name}}
	for k, v := range fields {
		obj[k] = v
	}
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	return string(b)
}

// TestRealServer_ConfigMapValidation: the 422s of ValidateConfigMap
// (pkg/apis/core/validation/validation.go) and IsConfigMapKey
// (apimachinery pkg/util/validation), on create.
func TestRealServer_ConfigMapValidation(t *testing.T) {
	long := strings.Repeat("a", 254)
	cases := []struct {
		name   string
		fields map[string]any
		code   int
		reason api.StatusReason
		msg    string
	}{
		{
			// IsConfigMapKey: configMapKeyRegexp.
			name: "data key with a space", fields: map[string]any{"data": map[string]any{"a b": "v"}},
			code: 422, reason: api.StatusReasonInvalid,
			msg: `ConfigMap "cm" is invalid: data[a b]: Invalid value: "a b": ` + configMapKeyRegexMsg,
		},
		{
			// IsConfigMapKey: hasChDirPrefix.
			name: "data key dot", fields: map[string]any{"data": map[string]any{".": "v"}},
			code: 422, reason: api.StatusReasonInvalid,
			msg: `ConfigMap "cm" is invalid: data[.]: Invalid value: ".": must not be '.'`,
		},
		{
			name: "data key dot dot", fields: map[string]any{"data": map[string]any{"..": "v"}},
			code: 422, reason: api.StatusReasonInvalid,
			msg: `ConfigMap "cm" is invalid: data[..]: Invalid value: "..": must not be '..'`,
		},
		{
			name: "binaryData key starting with dot dot", fields: map[string]any{"binaryData": map[string]any{"..x": "AQI="}},
			code: 422, reason: api.StatusReasonInvalid,
			msg: `ConfigMap "cm" is invalid: binaryData[..x]: Invalid value: "..x": must not start with '..'`,
		},
		{
			// IsConfigMapKey: MaxLenError(DNS1123SubdomainMaxLength).
			name: "data key too long", fields: map[string]any{"data": map[string]any{long: "v"}},
			code: 422, reason: api.StatusReasonInvalid,
			msg: `ConfigMap "cm" is invalid: data[` + long + `]: Invalid value: "` + long + `": must be no more than 253 characters`,
		},
		{
			// ValidateConfigMap: a data key also in binaryData.
			name:   "key in data and binaryData",
			fields: map[string]any{"data": map[string]any{"k": "v"}, "binaryData": map[string]any{"k": "AQI="}},
			code:   422, reason: api.StatusReasonInvalid,
			msg: `ConfigMap "cm" is invalid: data[k]: Invalid value: "k": duplicate of key present in binaryData`,
		},
		{
			// ValidateConfigMap: totalSize > core.MaxSecretSize, on the
			// empty path ("[]"), field.TooLong's wording.
			name: "data over 1 MiB",
			fields: map[string]any{"data": map[string]any{
				"a": strings.Repeat("x", 1<<19), "b": strings.Repeat("y", 1<<19+1)}},
			code: 422, reason: api.StatusReasonInvalid,
			msg: `ConfigMap "cm" is invalid: []: Too long: may not be more than 1048576 bytes`,
		},
		{
			// binaryData counts decoded bytes: 1 MiB of data plus 1 byte.
			name: "data and binaryData over 1 MiB together",
			fields: map[string]any{"data": map[string]any{"a": strings.Repeat("x", 1<<20)},
				"binaryData": map[string]any{"b": "AQ=="}},
			code: 422, reason: api.StatusReasonInvalid,
			msg: `ConfigMap "cm" is invalid: []: Too long: may not be more than 1048576 bytes`,
		},
		{
			name: "exactly 1 MiB is allowed",
			fields: map[string]any{"data": map[string]any{"a": strings.Repeat("x", 1<<20-1)},
				"binaryData": map[string]any{"b": "AQ=="}},
			code: 201,
		},
		{
			name: "valid keys", fields: map[string]any{"data": map[string]any{"key.name": "v", "KEY_NAME": "v", "key-name": "v", ".dot": "v"}},
			code: 201,
		},
		{
			// Decoding []byte from JSON (base64) fails first: 400.
			name: "binaryData not base64", fields: map[string]any{"binaryData": map[string]any{"b": "not base64!"}},
			code: 400, reason: api.StatusReasonBadRequest,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			r := e.do(http.MethodPost, configMapsPath, configMapBody(t, "cm", tc.fields))
			require.Equal(t, tc.code, r.code, "body: %s", r.body)
			if tc.code/100 == 2 {
				return
			}
			st := r.status(t)
			require.Equal(t, tc.reason, st.Reason)
			if tc.msg != "" {
				require.Equal(t, tc.msg, st.Message)
			}
		})
	}
}

// TestRealServer_ConfigMapImmutable: ValidateConfigMapUpdate. Once
// immutable is true, data, binaryData and immutable itself are frozen; the
// metadata is not.
func TestRealServer_ConfigMapImmutable(t *testing.T) {
	const path = configMapsPath + "/frozen"
	merge := []string{"Content-Type", "application/merge-patch+json"}
	cases := []struct {
		name  string
		patch string
		code  int
		msg   string
	}{
		{name: "change data", patch: `{"data":{"k":"w"}}`, code: 422,
			msg: `ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when ` + "`immutable`" + ` is set`},
		{name: "add data", patch: `{"data":{"k2":"w"}}`, code: 422,
			msg: `ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when ` + "`immutable`" + ` is set`},
		{name: "change binaryData", patch: `{"binaryData":{"b":"AwQ="}}`, code: 422,
			msg: `ConfigMap "frozen" is invalid: binaryData: Forbidden: field is immutable when ` + "`immutable`" + ` is set`},
		{name: "unset immutable", patch: `{"immutable":false}`, code: 422,
			msg: `ConfigMap "frozen" is invalid: immutable: Forbidden: field is immutable when ` + "`immutable`" + ` is set`},
		{name: "remove immutable", patch: `{"immutable":null}`, code: 422,
			msg: `ConfigMap "frozen" is invalid: immutable: Forbidden: field is immutable when ` + "`immutable`" + ` is set`},
		{name: "unset immutable and change data", patch: `{"immutable":false,"data":{"k":"w"}}`, code: 422,
			msg: `ConfigMap "frozen" is invalid: [immutable: Forbidden: field is immutable when ` + "`immutable`" +
				` is set, data: Forbidden: field is immutable when ` + "`immutable`" + ` is set]`},
		{name: "labels still change", patch: `{"metadata":{"labels":{"a":"b"}}}`, code: 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			r := e.do(http.MethodPost, configMapsPath, configMapBody(t, "frozen", map[string]any{
				"immutable": true, "data": map[string]any{"k": "v"}, "binaryData": map[string]any{"b": "AQI="}}))
			require.Equal(t, http.StatusCreated, r.code, "body: %s", r.body)
			r = e.do(http.MethodPatch, path, tc.patch, merge...)
			require.Equal(t, tc.code, r.code, "body: %s", r.body)
			if tc.code != 422 {
				return
			}
			st := r.status(t)
			require.Equal(t, api.StatusReasonInvalid, st.Reason)
			require.Equal(t, tc.msg, st.Message)
		})
	}

	t.Run("a mutable ConfigMap changes and may become immutable", func(t *testing.T) {
		e := newEnv(t, Options{})
		r := e.do(http.MethodPost, configMapsPath, configMapBody(t, "frozen", map[string]any{"data": map[string]any{"k": "v"}}))
		require.Equal(t, http.StatusCreated, r.code, "body: %s", r.body)
		r = e.do(http.MethodPatch, path, `{"data":{"k":"w"},"immutable":true}`, merge...)
		require.Equal(t, http.StatusOK, r.code, "body: %s", r.body)
		r = e.do(http.MethodPatch, path, `{"data":{"k":"x"}}`, merge...)
		require.Equal(t, http.StatusUnprocessableEntity, r.code, "body: %s", r.body)
	})
}
