package fakeapiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinformer/kinformer/api"
)

// The pod rules of kube-apiserver 1.36, each case naming the function of
// kubernetes/kubernetes the expected answer comes from. validation.go is
// pkg/apis/core/validation/validation.go, strategy.go is
// pkg/registry/core/pod/strategy.go.

const podStratPath = "/api/v1/namespaces/default/pods"

// podStratJSON is a pod named p whose spec is the given JSON members.
func podStratJSON(spec string) string {
	return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{` + spec + `}}`
}

const podContainer = `"containers":[{"name":"c","image":"busybox"}]`

// podUpdatableFields is the fixed part of ValidatePodUpdate's Forbidden.
const podUpdatableFields = "pod updates may not change fields other than " +
	"`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`," +
	"`spec.tolerations` (only additions to existing tolerations)," +
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

const podDNSSubdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, " +
	"'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', " +
	`regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`

// podCase is one request and the real server's answer to it.
type podCase struct {
	name   string
	source string   // file and function of the real answer
	create string   // the pod to create first (update and status cases)
	setup  []string // merge patches sent first, to the same path
	method string
	path   string
	body   string
	code   int
	msg    string         // the Status message, for a failure
	check  func(o string) // the stored object, for a success
}

func (tc podCase) run(t *testing.T) {
	e := newEnv(t, Options{})
	if tc.create != "" {
		r := e.do(http.MethodPost, podStratPath, tc.create)
		require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	}
	for _, patch := range tc.setup {
		r := e.do(http.MethodPatch, tc.path, patch, "Content-Type", "application/merge-patch+json")
		require.Equal(t, http.StatusOK, r.code, "setup %s: %s", patch, r.body)
	}
	method, ctype := tc.method, "application/merge-patch+json"
	if method == "" {
		method = http.MethodPatch
	}
	if method != http.MethodPatch {
		ctype = "application/json"
	}
	r := e.do(method, tc.path, tc.body, "Content-Type", ctype)
	require.Equal(t, tc.code, r.code, "%s: %s", tc.source, r.body)
	if tc.code >= 400 {
		st := r.status(t)
		require.Equal(t, int32(tc.code), st.Code)
		require.Equal(t, api.StatusReasonInvalid, st.Reason)
		require.Equal(t, tc.msg, st.Message, tc.source)
		return
	}
	if tc.check != nil {
		tc.check(string(e.get(podStratPath + "/p").body))
	}
}

func TestRealServer_PodCreateValidation(t *testing.T) {
	for _, tc := range []podCase{
		{name: "image with leading and trailing spaces",
			source: "validation.go validateContainerOnlyForPod (via ValidatePodCreate)",
			body:   podStratJSON(`"containers":[{"name":"c","image":" busybox "}]`), code: 422,
			msg: `Pod "p" is invalid: spec.containers[0].image: Invalid value: " busybox ": must not have leading or trailing whitespace`},
		{name: "init container image with a trailing newline",
			source: "validation.go validateContainerOnlyForPod",
			body:   podStratJSON(podContainer + `,"initContainers":[{"name":"i","image":"busybox\n"}]`), code: 422,
			msg: `Pod "p" is invalid: spec.initContainers[0].image: Invalid value: "busybox\n": must not have leading or trailing whitespace`},
		{name: "containerPort out of range",
			source: "validation.go validateContainerPorts (IsValidPortNum)",
			body:   podStratJSON(`"containers":[{"name":"c","image":"busybox","ports":[{"containerPort":70000}]}]`), code: 422,
			msg: `Pod "p" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive`},
		{name: "containerPort missing",
			source: "validation.go validateContainerPorts",
			body:   podStratJSON(`"containers":[{"name":"c","image":"busybox","ports":[{"name":"http"}]}]`), code: 422,
			msg: `Pod "p" is invalid: spec.containers[0].ports[0].containerPort: Required value`},
		{name: "hostPort out of range",
			source: "validation.go validateContainerPorts",
			body:   podStratJSON(`"containers":[{"name":"c","image":"busybox","ports":[{"containerPort":80,"hostPort":-1}]}]`), code: 422,
			msg: `Pod "p" is invalid: spec.containers[0].ports[0].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive`},
		{name: "unsupported protocol",
			source: "validation.go validateContainerPorts (supportedPortProtocols)",
			body:   podStratJSON(`"containers":[{"name":"c","image":"busybox","ports":[{"containerPort":80,"protocol":"HTTP"}]}]`), code: 422,
			msg: `Pod "p" is invalid: spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`},
		{name: "port name with an underscore",
			source: "validation.go validateContainerPorts (IsValidPortName)",
			body:   podStratJSON(`"containers":[{"name":"c","image":"busybox","ports":[{"name":"http_port","containerPort":80}]}]`), code: 422,
			msg: `Pod "p" is invalid: spec.containers[0].ports[0].name: Invalid value: "http_port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`},
		{name: "duplicate port name",
			source: "validation.go validateContainerPorts",
			body:   podStratJSON(`"containers":[{"name":"c","image":"busybox","ports":[{"name":"web","containerPort":80},{"name":"web","containerPort":81}]}]`), code: 422,
			msg: `Pod "p" is invalid: spec.containers[0].ports[1].name: Duplicate value: "web"`},
		{name: "duplicate container name across init and regular containers",
			source: "validation.go validateInitContainers",
			body:   podStratJSON(podContainer + `,"initContainers":[{"name":"c","image":"busybox"}]`), code: 422,
			msg: `Pod "p" is invalid: spec.initContainers[0].name: Duplicate value: "c"`},
		{name: "activeDeadlineSeconds 0",
			source: "validation.go ValidatePodSpec",
			body:   podStratJSON(podContainer + `,"activeDeadlineSeconds":0`), code: 422,
			msg: `Pod "p" is invalid: spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive`},
		{name: "nodeName not a DNS subdomain",
			source: "validation.go ValidatePodSpec (ValidateNodeName)",
			body:   podStratJSON(podContainer + `,"nodeName":"Node_1"`), code: 422,
			msg: `Pod "p" is invalid: spec.nodeName: Invalid value: "Node_1": ` + podDNSSubdomainMsg},
		{name: "several causes: spec order, then the pod-only image rule",
			source: "validation.go validatePodMetadataAndSpec",
			body:   podStratJSON(`"containers":[{"name":"c","image":"busybox ","ports":[{"containerPort":0}]}],"restartPolicy":"Sometimes"`), code: 422,
			msg: `Pod "p" is invalid: [spec.containers[0].ports[0].containerPort: Required value, ` +
				`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never", ` +
				`spec.containers[0].image: Invalid value: "busybox ": must not have leading or trailing whitespace]`},
		{name: "negative terminationGracePeriodSeconds is stored as 1",
			source: "15-differential: create-invalid/pod-grace-negative (recorded)",
			body:   podStratJSON(podContainer + `,"terminationGracePeriodSeconds":-5`), code: 201,
			check: func(o string) { require.Contains(t, o, `"terminationGracePeriodSeconds":1}`) }},
		{name: "valid ports are kept",
			source: "validation.go validateContainerPorts",
			body:   podStratJSON(`"containers":[{"name":"c","image":"busybox","ports":[{"name":"web-1","containerPort":65535,"hostPort":1,"protocol":"SCTP"}]}]`), code: 201,
			check: func(o string) { require.Contains(t, o, `"containerPort":65535`) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.method, tc.path = http.MethodPost, podStratPath
			tc.run(t)
		})
	}
}

func TestRealServer_PodUpdateValidation(t *testing.T) {
	base := podStratJSON(`"containers":[{"name":"c","image":"busybox"}],"tolerations":[{"key":"k","operator":"Exists","effect":"NoExecute","tolerationSeconds":10}]`)
	const vpu = "validation.go ValidatePodUpdate"
	for _, tc := range []podCase{
		{name: "changing restartPolicy", source: vpu,
			body: `{"spec":{"restartPolicy":"Never"}}`, code: 422,
			msg: `Pod "p" is invalid: spec: Forbidden: ` + podUpdatableFields},
		{name: "changing a container's command", source: vpu,
			body: `{"spec":{"containers":[{"name":"c","image":"busybox","command":["sh"]}]}}`, code: 422,
			msg: `Pod "p" is invalid: spec: Forbidden: ` + podUpdatableFields},
		{name: "changing an image", source: vpu + " (munged containers[*].image)",
			// (a merge patch replaces the list: an image whose default
			// imagePullPolicy differs would change that field too)
			body: `{"spec":{"containers":[{"name":"c","image":"busybox:latest"}]}}`, code: 200,
			check: func(o string) { require.Contains(t, o, `"image":"busybox:latest"`) }},
		{name: "changing an image's tag changes the defaulted imagePullPolicy", source: vpu,
			body: `{"spec":{"containers":[{"name":"c","image":"busybox:2"}]}}`, code: 422,
			msg: `Pod "p" is invalid: spec: Forbidden: ` + podUpdatableFields},
		{name: "adding a container", source: "validation.go ValidateContainerUpdates",
			body: `{"spec":{"containers":[{"name":"c","image":"busybox"},{"name":"d","image":"busybox"}]}}`, code: 422,
			msg: `Pod "p" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers`},
		{name: "an image with a trailing space", source: "validation.go ValidateContainerUpdates and validateContainerOnlyForPod",
			body: `{"spec":{"containers":[{"name":"c","image":"busybox "}]}}`, code: 422,
			msg: `Pod "p" is invalid: spec.containers[0].image: Invalid value: "busybox ": must not have leading or trailing whitespace`},
		{name: "setting activeDeadlineSeconds", source: vpu,
			body: `{"spec":{"activeDeadlineSeconds":100}}`, code: 200,
			check: func(o string) { require.Contains(t, o, `"activeDeadlineSeconds":100`) }},
		{name: "lowering activeDeadlineSeconds", source: vpu, setup: []string{`{"spec":{"activeDeadlineSeconds":100}}`},
			body: `{"spec":{"activeDeadlineSeconds":50}}`, code: 200,
			check: func(o string) { require.Contains(t, o, `"activeDeadlineSeconds":50`) }},
		{name: "raising activeDeadlineSeconds", source: vpu, setup: []string{`{"spec":{"activeDeadlineSeconds":100}}`},
			body: `{"spec":{"activeDeadlineSeconds":200}}`, code: 422,
			msg: `Pod "p" is invalid: spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value`},
		{name: "removing activeDeadlineSeconds", source: vpu, setup: []string{`{"spec":{"activeDeadlineSeconds":100}}`},
			body: `{"spec":{"activeDeadlineSeconds":null}}`, code: 422,
			msg: `Pod "p" is invalid: spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to nil value`},
		{name: "a negative activeDeadlineSeconds", source: "validation.go ValidatePodSpec, then ValidatePodUpdate",
			body: `{"spec":{"activeDeadlineSeconds":-1}}`, code: 422,
			msg: `Pod "p" is invalid: [spec.activeDeadlineSeconds: Invalid value: -1: must be between 1 and 2147483647, inclusive, ` +
				`spec.activeDeadlineSeconds: Invalid value: -1: must be between 0 and 2147483647, inclusive]`},
		{name: "adding a toleration and changing tolerationSeconds", source: "validation.go validateOnlyAddedTolerations",
			body: `{"spec":{"tolerations":[{"key":"k","operator":"Exists","effect":"NoExecute","tolerationSeconds":20},{"key":"n","operator":"Exists"}]}}`, code: 200,
			check: func(o string) { require.Contains(t, o, `{"key":"n","operator":"Exists"}`) }},
		{name: "modifying a toleration", source: "validation.go validateOnlyAddedTolerations",
			body: `{"spec":{"tolerations":[{"key":"k2","operator":"Exists","effect":"NoExecute","tolerationSeconds":10}]}}`, code: 422,
			msg: `Pod "p" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds`},
		{name: "adding a scheduling gate", source: "validation.go validateOnlyDeletedSchedulingGates",
			body: `{"spec":{"schedulingGates":[{"name":"example.com/wait"}]}}`, code: 422,
			msg: `Pod "p" is invalid: spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/wait'`},
		{name: "changing terminationGracePeriodSeconds", source: vpu,
			body: `{"spec":{"terminationGracePeriodSeconds":5}}`, code: 422,
			msg: `Pod "p" is invalid: spec: Forbidden: ` + podUpdatableFields},
		{name: "terminationGracePeriodSeconds sent negative is 1 already", source: "15-differential: create-invalid/pod-grace-negative",
			create: podStratJSON(podContainer + `,"terminationGracePeriodSeconds":-5`),
			body:   `{"spec":{"terminationGracePeriodSeconds":1}}`, code: 200,
			check: func(o string) { require.Contains(t, o, `"terminationGracePeriodSeconds":1`) }},
		{name: "terminationGracePeriodSeconds sent negative, then 2", source: vpu,
			create: podStratJSON(podContainer + `,"terminationGracePeriodSeconds":-5`),
			body:   `{"spec":{"terminationGracePeriodSeconds":2}}`, code: 422,
			msg: `Pod "p" is invalid: spec: Forbidden: ` + podUpdatableFields},
		{name: "binding by setting nodeName from empty (the fake's stand-in for pods/binding)",
			source: "deliberate difference: the real server allows this only through pods/binding",
			body:   `{"spec":{"nodeName":"node-1"}}`, code: 200,
			check: func(o string) { require.Contains(t, o, `"nodeName":"node-1"`) }},
		{name: "moving a bound pod", source: vpu, setup: []string{`{"spec":{"nodeName":"node-1"}}`},
			body: `{"spec":{"nodeName":"node-2"}}`, code: 422,
			msg: `Pod "p" is invalid: spec: Forbidden: ` + podUpdatableFields},
		{name: "labels still change", source: vpu + " (metadata is not spec)",
			body: `{"metadata":{"labels":{"a":"b"}}}`, code: 200,
			check: func(o string) { require.Contains(t, o, `"labels":{"a":"b"}`) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.create == "" {
				tc.create = base
			}
			tc.path = podStratPath + "/p"
			tc.run(t)
		})
	}
}

func TestRealServer_PodStatusValidation(t *testing.T) {
	const vpsu = "validation.go ValidatePodStatusUpdate"
	for _, tc := range []podCase{
		{name: "podIPs entry not an IP", source: vpsu + " (validatePodIPs, IsValidIP: the field is the entry, not its ip)",
			body: `{"status":{"podIPs":[{"ip":"not-an-ip"}]}}`, code: 422,
			msg: `Pod "p" is invalid: status.podIPs[0]: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`},
		{name: "podIP alone not an IP", source: "Convert_v1_PodStatus_To_core_PodStatus (podIP becomes podIPs[0]), then validatePodIPs",
			body: `{"status":{"podIP":"300.1.1.1"}}`, code: 422,
			msg: `Pod "p" is invalid: status.podIPs[0]: Invalid value: "300.1.1.1": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`},
		{name: "podIP fills podIPs", source: "Convert_v1_PodStatus_To_core_PodStatus",
			body: `{"status":{"podIP":"10.0.0.7"}}`, code: 200,
			check: func(o string) { require.Contains(t, o, `"podIP":"10.0.0.7","podIPs":[{"ip":"10.0.0.7"}]`) }},
		{name: "podIPs fill podIP", source: "Convert_core_PodStatus_To_v1_PodStatus",
			body: `{"status":{"podIPs":[{"ip":"10.0.0.8"},{"ip":"fd00::8"}]}}`, code: 200,
			check: func(o string) {
				require.Contains(t, o, `"podIP":"10.0.0.8","podIPs":[{"ip":"10.0.0.8"},{"ip":"fd00::8"}]`)
			}},
		{name: "an IPv4 address with leading zeros is accepted", source: "IsValidIP (ParseIPSloppy)",
			body: `{"status":{"podIPs":[{"ip":"010.000.000.001"}]}}`, code: 200},
		{name: "hostIPs entry not an IP", source: vpsu + " (validateHostIPs)",
			body: `{"status":{"hostIP":"node","hostIPs":[{"ip":"node"}]}}`, code: 422,
			msg: `Pod "p" is invalid: status.hostIPs[0]: Invalid value: "node": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`},
		{name: "nominatedNodeName not a DNS subdomain", source: vpsu + " (ValidateNodeName)",
			body: `{"status":{"nominatedNodeName":"Node_2"}}`, code: 422,
			msg: `Pod "p" is invalid: status.nominatedNodeName: Invalid value: "Node_2": ` + podDNSSubdomainMsg},
		{name: "nominatedNodeName on a bound pod", source: "15-differential: update-status/pod-nominated-node (recorded)",
			create: podStratJSON(podContainer + `,"nodeName":"node-1"`),
			body:   `{"status":{"nominatedNodeName":"node-2"}}`, code: 422,
			msg: `Pod "p" is invalid: status.nominatedNodeName: Forbidden: may not be set on pods that are already bound to a node`},
		{name: "nominatedNodeName on an unbound pod", source: vpsu + " (ValidateNodeName)",
			body: `{"status":{"nominatedNodeName":"node-2"}}`, code: 200,
			check: func(o string) { require.Contains(t, o, `"nominatedNodeName":"node-2"`) }},
		{name: "qosClass is immutable", source: vpsu + " (ValidateImmutableField)",
			body: `{"status":{"qosClass":"Guaranteed"}}`, code: 422,
			msg: `Pod "p" is invalid: status.qosClass: Invalid value: "Guaranteed": field is immutable`},
		{name: "a status without qosClass keeps it", source: "strategy.go podStatusStrategy.PrepareForUpdate",
			method: http.MethodPut, body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"status":{"phase":"Running"}}`, code: 200,
			check: func(o string) { require.Contains(t, o, `"status":{"phase":"Running","qosClass":"BestEffort"}`) }},
		{name: "ownerReferences are kept, labels change", source: "strategy.go podStatusStrategy.PrepareForUpdate",
			body: `{"metadata":{"labels":{"x":"y"},"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u1"}]},"status":{"phase":"Running"}}`, code: 200,
			check: func(o string) {
				require.Contains(t, o, `"labels":{"x":"y"}`)
				require.NotContains(t, o, "ownerReferences")
			}},
		{name: "the spec does not change through status", source: "strategy.go podStatusStrategy.PrepareForUpdate",
			body: `{"spec":{"restartPolicy":"Never"},"status":{"phase":"Running"}}`, code: 200,
			check: func(o string) { require.Contains(t, o, `"restartPolicy":"Always"`) }},
		{name: "a terminated container may not run again with restartPolicy Never",
			source: "validation.go ValidateContainerStateTransition",
			create: podStratJSON(podContainer + `,"restartPolicy":"Never"`),
			setup:  []string{`{"status":{"containerStatuses":[{"name":"c","state":{"terminated":{"exitCode":0}}}]}}`},
			body:   `{"status":{"containerStatuses":[{"name":"c","state":{"running":{}}}]}}`, code: 422,
			msg: `Pod "p" is invalid: status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.create == "" {
				tc.create = podStratJSON(podContainer)
			}
			tc.path = podStratPath + "/p/status"
			tc.run(t)
		})
	}
}
