package fakeapiserver

import (
	"encoding/json"
	"strings"
)

// Defaults the real server fills in. Only the ones a reader of `kubectl get
// -o json` would miss are here; the docs list what is left out.

func setDefault(m map[string]any, key string, v any) {
	if _, ok := m[key]; !ok {
		m[key] = v
	}
}

func defaultPod(obj map[string]any) {
	defaultPodSpec(ensureMap(obj, "spec"))
}

func defaultPodSpec(spec map[string]any) {
	setDefault(spec, "restartPolicy", "Always")
	setDefault(spec, "terminationGracePeriodSeconds", jsonInt(30))
	setDefault(spec, "dnsPolicy", "ClusterFirst")
	setDefault(spec, "securityContext", map[string]any{})
	setDefault(spec, "schedulerName", "default-scheduler")
	containers, _ := spec["containers"].([]any)
	for _, c := range containers {
		cm, ok := c.(map[string]any)
		if !ok {
			continue
		}
		setDefault(cm, "resources", map[string]any{})
		setDefault(cm, "terminationMessagePath", "/dev/termination-log")
		setDefault(cm, "terminationMessagePolicy", "File")
		setDefault(cm, "imagePullPolicy", defaultPullPolicy(stringAt(cm, "image")))
	}
}

// defaultPullPolicy is Always for an untagged or :latest image, else IfNotPresent.
func defaultPullPolicy(image string) string {
	if strings.Contains(image, "@") {
		return "IfNotPresent"
	}
	last := image[strings.LastIndexByte(image, '/')+1:]
	if i := strings.LastIndexByte(last, ':'); i < 0 || last[i+1:] == "latest" {
		return "Always"
	}
	return "IfNotPresent"
}

func defaultReplicaSet(obj map[string]any) {
	spec := ensureMap(obj, "spec")
	setDefault(spec, "replicas", jsonInt(1))
	template := ensureMap(spec, "template")
	defaultPodSpec(ensureMap(template, "spec"))
}

func defaultNamespace(obj map[string]any) {
	spec := ensureMap(obj, "spec")
	setDefault(spec, "finalizers", []any{"kubernetes"})
	meta := ensureMap(obj, "metadata")
	labels := ensureMap(meta, "labels")
	labels["kubernetes.io/metadata.name"] = stringAt(meta, "name")
}

// remarshal converts decoded JSON into a typed value.
func remarshal(in any, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
