package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

const replicaSetsPath = "/apis/apps/v1/namespaces/default/replicasets"

// replicaSetBody is a valid apps/v1 ReplicaSet "rs" selecting app=x, with
// edit applied to its decoded form.
func replicaSetBody(t *testing.T, edit func(rs map[string]any)) string {
	t.Helper()
	rs := map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "ReplicaSet",
		"metadata":   map[string]any{"name": "rs"},
		"spec": map[string]any{
			"replicas": 1,
			"selector": map[string]any{"matchLabels": map[string]any{"app": "x"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "x"}},
				"spec": map[string]any{
					"containers": []any{map[string]any{"name": "c", "image": "busybox:1"}},
				},
			},
		},
	}
	if edit != nil {
		edit(rs)
	}
	b, err := json.Marshal(rs)
	require.NoError(t, err)
	return string(b)
}

func replicaSetSpecOf(rs map[string]any) map[string]any { return rs["spec"].(map[string]any) }

func replicaSetPodSpecOf(rs map[string]any) map[string]any {
	return replicaSetSpecOf(rs)["template"].(map[string]any)["spec"].(map[string]any)
}

// requireReplicaSetInvalid asserts a 422 Invalid with exactly message.
func requireReplicaSetInvalid(t *testing.T, r response, message, source string) {
	t.Helper()
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	st := r.status(t)
	require.Equal(t, "Invalid", string(st.Reason))
	require.Equal(t, message, st.Message, "source: %s", source)
	require.Equal(t, "ReplicaSet", st.Details.Kind)
	require.Equal(t, "apps", st.Details.Group)
}

func TestRealServer_ReplicaSetValidation(t *testing.T) {
	e := newEnv(t, Options{})
	cases := []struct {
		name    string
		edit    func(rs map[string]any)
		message string
		source  string
	}{
		{"negative replicas", func(rs map[string]any) { replicaSetSpecOf(rs)["replicas"] = -1 },
			`ReplicaSet.apps "rs" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
			"ValidateReplicaSetSpec: ValidateNonnegativeField(spec.replicas)"},
		{"negative minReadySeconds", func(rs map[string]any) { replicaSetSpecOf(rs)["minReadySeconds"] = -5 },
			`ReplicaSet.apps "rs" is invalid: spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0`,
			"ValidateReplicaSetSpec: ValidateNonnegativeField(spec.minReadySeconds)"},
		{"no selector", func(rs map[string]any) { delete(replicaSetSpecOf(rs), "selector") },
			`ReplicaSet.apps "rs" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: {"app":"x"}: ` + "`selector` does not match template `labels`]",
			"ValidateReplicaSetSpec: field.Required; LabelSelectorAsSelector(nil) is labels.Nothing(), which matches nothing"},
		{"empty selector", func(rs map[string]any) { replicaSetSpecOf(rs)["selector"] = map[string]any{} },
			`ReplicaSet.apps "rs" is invalid: spec.selector: Invalid value: {}: empty selector is invalid for deployment`,
			"ValidateReplicaSetSpec: len(MatchLabels)+len(MatchExpressions) == 0"},
		{"selector does not match", func(rs map[string]any) {
			replicaSetSpecOf(rs)["selector"] = map[string]any{"matchLabels": map[string]any{"app": "y"}}
		},
			`ReplicaSet.apps "rs" is invalid: spec.template.metadata.labels: Invalid value: {"app":"x"}: ` + "`selector` does not match template `labels`",
			"ValidatePodTemplateSpecForReplicaSet: selector.Matches(template.Labels)"},
		{"In without values", func(rs map[string]any) {
			replicaSetSpecOf(rs)["selector"] = map[string]any{"matchExpressions": []any{map[string]any{"key": "app", "operator": "In"}}}
		},
			`ReplicaSet.apps "rs" is invalid: [spec.selector.matchExpressions[0].values: Required value: must be specified when ` + "`operator` is 'In' or 'NotIn', " +
				`spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"In"}]}: invalid label selector]`,
			"apimachinery ValidateLabelSelectorRequirement, then ValidateReplicaSetSpec: LabelSelectorAsSelector fails"},
		{"bad operator", func(rs map[string]any) {
			replicaSetSpecOf(rs)["selector"] = map[string]any{"matchExpressions": []any{map[string]any{"key": "app", "operator": "Like", "values": []any{"x"}}}}
		},
			`ReplicaSet.apps "rs" is invalid: [spec.selector.matchExpressions[0].operator: Invalid value: "Like": not a valid selector operator, ` +
				`spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Like","values":["x"]}]}: invalid label selector]`,
			"apimachinery ValidateLabelSelectorRequirement, then ValidateReplicaSetSpec: LabelSelectorAsSelector fails"},
		{"restartPolicy Never", func(rs map[string]any) { replicaSetPodSpecOf(rs)["restartPolicy"] = "Never" },
			`ReplicaSet.apps "rs" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`,
			"ValidatePodTemplateSpecForReplicaSet: RestartPolicy != Always"},
		{"activeDeadlineSeconds", func(rs map[string]any) { replicaSetPodSpecOf(rs)["activeDeadlineSeconds"] = 10 },
			`ReplicaSet.apps "rs" is invalid: spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported`,
			"ValidatePodTemplateSpecForReplicaSet: ActiveDeadlineSeconds != nil"},
		{"no containers", func(rs map[string]any) { replicaSetPodSpecOf(rs)["containers"] = []any{} },
			`ReplicaSet.apps "rs" is invalid: spec.template.spec.containers: Required value`,
			"ValidatePodTemplateSpec: ValidatePodSpec"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(http.MethodPost, replicaSetsPath, replicaSetBody(t, c.edit))
			requireReplicaSetInvalid(t, r, c.message, c.source)
		})
	}
	t.Run("valid", func(t *testing.T) {
		r := e.do(http.MethodPost, replicaSetsPath, replicaSetBody(t, nil))
		require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	})
}

func TestRealServer_ReplicaSetStatusValidation(t *testing.T) {
	e := newEnv(t, Options{})
	r := e.do(http.MethodPost, replicaSetsPath, replicaSetBody(t, nil))
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	status := replicaSetsPath + "/rs/status"
	patch := []string{"Content-Type", "application/merge-patch+json"}
	cases := []struct {
		name, status, message string
	}{
		{"negative replicas", `{"replicas":-1}`,
			// The zero counts are then above replicas, as on the real server.
			`ReplicaSet.apps "rs" is invalid: [status.replicas: Invalid value: -1: must be greater than or equal to 0, ` +
				`status.fullyLabeledReplicas: Invalid value: 0: cannot be greater than status.replicas, ` +
				`status.readyReplicas: Invalid value: 0: cannot be greater than status.replicas, ` +
				`status.availableReplicas: Invalid value: 0: cannot be greater than status.replicas]`},
		{"ready above replicas", `{"replicas":1,"readyReplicas":2}`,
			`ReplicaSet.apps "rs" is invalid: status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas`},
		{"available above ready", `{"replicas":2,"readyReplicas":1,"availableReplicas":2}`,
			`ReplicaSet.apps "rs" is invalid: status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas`},
		{"available above replicas and ready", `{"replicas":1,"readyReplicas":1,"availableReplicas":2}`,
			`ReplicaSet.apps "rs" is invalid: [status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas, status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas]`},
		{"fullyLabeled above replicas", `{"replicas":1,"fullyLabeledReplicas":3}`,
			`ReplicaSet.apps "rs" is invalid: status.fullyLabeledReplicas: Invalid value: 3: cannot be greater than status.replicas`},
		{"negative observedGeneration", `{"replicas":0,"observedGeneration":-1}`,
			`ReplicaSet.apps "rs" is invalid: status.observedGeneration: Invalid value: -1: must be greater than or equal to 0`},
		{"negative ready", `{"replicas":0,"readyReplicas":-1}`,
			`ReplicaSet.apps "rs" is invalid: [status.readyReplicas: Invalid value: -1: must be greater than or equal to 0, ` +
				`status.availableReplicas: Invalid value: 0: cannot be greater than readyReplicas]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(http.MethodPatch, status, `{"status":`+c.status+`}`, patch...)
			requireReplicaSetInvalid(t, r, c.message, "ValidateReplicaSetStatusUpdate: ValidateReplicaSetStatus")
		})
	}
	t.Run("valid", func(t *testing.T) {
		r := e.do(http.MethodPatch, status, `{"status":{"replicas":2,"fullyLabeledReplicas":2,"readyReplicas":2,"availableReplicas":1,"observedGeneration":1}}`, patch...)
		require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	})
}

func TestRealServer_ReplicaSetSelectorImmutable(t *testing.T) {
	e := newEnv(t, Options{})
	r := e.do(http.MethodPost, replicaSetsPath, replicaSetBody(t, nil))
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	path := replicaSetsPath + "/rs"
	patch := []string{"Content-Type", "application/merge-patch+json"}
	source := "pkg/registry/apps/replicaset/strategy.go ValidateUpdate: ValidateImmutableField(spec.selector) for every group/version but extensions/v1beta1"

	t.Run("changed selector", func(t *testing.T) {
		r := e.do(http.MethodPatch, path, `{"spec":{"selector":{"matchLabels":{"app":"x","tier":"a"}},"template":{"metadata":{"labels":{"tier":"a"}}}}}`, patch...)
		requireReplicaSetInvalid(t, r,
			`ReplicaSet.apps "rs" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"x","tier":"a"}}: field is immutable`, source)
	})
	t.Run("selector to expressions", func(t *testing.T) {
		r := e.do(http.MethodPatch, path, `{"spec":{"selector":{"matchLabels":null,"matchExpressions":[{"key":"app","operator":"In","values":["x"]}]}}}`, patch...)
		requireReplicaSetInvalid(t, r,
			`ReplicaSet.apps "rs" is invalid: spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"In","values":["x"]}]}: field is immutable`, source)
	})
	t.Run("same selector, generation", func(t *testing.T) {
		var before struct {
			Metadata struct{ Generation int64 } `json:"metadata"`
		}
		e.get(path).decode(t, &before)
		require.Equal(t, int64(1), before.Metadata.Generation)

		// A metadata-only change keeps the generation
		// (PrepareForUpdate bumps it only when the spec changes).
		r := e.do(http.MethodPatch, path, `{"metadata":{"labels":{"l":"v"}}}`, patch...)
		require.Equal(t, http.StatusOK, r.code, "%s", r.body)
		var after struct {
			Metadata struct{ Generation int64 } `json:"metadata"`
		}
		r.decode(t, &after)
		require.Equal(t, int64(1), after.Metadata.Generation)

		r = e.do(http.MethodPatch, path, `{"spec":{"replicas":3,"selector":{"matchLabels":{"app":"x"}}}}`, patch...)
		require.Equal(t, http.StatusOK, r.code, "%s", r.body)
		r.decode(t, &after)
		require.Equal(t, int64(2), after.Metadata.Generation, "rsStrategy.PrepareForUpdate: spec changed")

		// A /status write never bumps it.
		r = e.do(http.MethodPatch, path+"/status", `{"status":{"replicas":3,"observedGeneration":2}}`, patch...)
		require.Equal(t, http.StatusOK, r.code, "%s", r.body)
		r.decode(t, &after)
		require.Equal(t, int64(2), after.Metadata.Generation)
	})
}
