package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/kinformer/kinformer/api"
)

// The pod strategy: kube-apiserver's pkg/registry/core/pod/strategy.go and
// the pod rules of pkg/apis/core/validation/validation.go. Graceful
// deletion, the mechanism a bound pod's DELETE goes through, is in
// graceful.go (podGracePeriod is CheckGracefulDelete: a negative grace is
// used as 1 there).
//
// A negative spec.terminationGracePeriodSeconds is stored as 1 on create
// (15-differential: create-invalid/pod-grace-negative, recorded; the real
// server also warns that it "will be treated as 1", and the fake sends no
// Warning header). An update does not rewrite it: ValidatePodUpdate allows
// the one change from negative to 1, for pods stored before. A delete uses
// a negative grace as 1 too (podGracePeriod, graceful.go).
var podStrategy = strategy{
	Default: defaultPod,
	InitialStatus: func(map[string]any) map[string]any {
		return map[string]any{"phase": "Pending", "qosClass": "BestEffort"}
	},
	PrepareForCreate:       preparePodCreate,
	Validate:               validatePod,
	ValidateUpdate:         validatePodUpdate,
	PrepareForStatusUpdate: preparePodStatusUpdate,
	ValidateStatusUpdate:   validatePodStatusUpdate,
	UpdateOrder:            metaUpdateFirst,
	GracefulDelete:         true,
}

// preparePodCreate stores a negative terminationGracePeriodSeconds as 1.
func preparePodCreate(obj map[string]any) {
	spec := mapAt(obj, "spec")
	if g, ok := spec["terminationGracePeriodSeconds"].(json.Number); ok {
		if n, err := g.Int64(); err == nil && n < 0 {
			spec["terminationGracePeriodSeconds"] = jsonInt(1)
		}
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
	for _, key := range []string{"initContainers", "containers"} {
		containers, _ := spec[key].([]any)
		for _, c := range containers {
			cm, ok := c.(map[string]any)
			if !ok {
				continue
			}
			setDefault(cm, "resources", map[string]any{})
			setDefault(cm, "terminationMessagePath", "/dev/termination-log")
			setDefault(cm, "terminationMessagePolicy", "File")
			setDefault(cm, "imagePullPolicy", defaultPullPolicy(stringAt(cm, "image")))
			// Left out: SetDefaults_ContainerPort (a port's protocol
			// defaults to TCP); so validatePodContainerPorts does not
			// require one either.
		}
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

// validatePod is ValidatePodCreate (validatePodMetadataAndSpec): the spec
// rules every PodSpec has, then the pod-only container rule of
// validateContainersOnlyForPod (an image may not be padded with spaces; a
// ReplicaSet's template may, for backward compatibility).
func validatePod(obj map[string]any) []api.StatusCause {
	spec := mapAt(obj, "spec")
	causes := validatePodSpec(spec, "spec")
	for _, key := range []string{"containers", "initContainers"} {
		containers, _ := spec[key].([]any)
		for i, c := range containers {
			cm, _ := c.(map[string]any)
			if image := stringAt(cm, "image"); image != strings.TrimSpace(image) {
				causes = append(causes, invalid(fmt.Sprintf("spec.%s[%d].image", key, i), image, "must not have leading or trailing whitespace"))
			}
		}
	}
	return causes
}

// validatePodSpec is the part of ValidatePodSpec the fake models, in its
// order: validateContainers (validateContainerCommon: name, image, ports;
// then duplicate names), validateInitContainers, validateRestartPolicy,
// the nodeName and activeDeadlineSeconds checks.
func validatePodSpec(spec map[string]any, path string) []api.StatusCause {
	var causes []api.StatusCause
	seen := map[string]bool{}
	containers, _ := valueAt(spec, "containers").([]any)
	if len(containers) == 0 {
		causes = append(causes, required(path+".containers"))
	}
	causes = append(causes, validatePodContainers(containers, path+".containers", seen)...)
	inits, _ := valueAt(spec, "initContainers").([]any)
	causes = append(causes, validatePodContainers(inits, path+".initContainers", seen)...)
	switch p := stringAt(spec, "restartPolicy"); p {
	case "", "Always", "OnFailure", "Never":
	default:
		causes = append(causes, notSupported(path+".restartPolicy", p, "Always", "OnFailure", "Never"))
	}
	if n := stringAt(spec, "nodeName"); n != "" {
		// ValidateNodeName is a DNS-1123 subdomain.
		if msg := isDNS1123Subdomain(n); msg != "" {
			causes = append(causes, invalid(path+".nodeName", n, msg))
		}
	}
	if v, ok := spec["activeDeadlineSeconds"].(json.Number); ok {
		if n, err := v.Int64(); err == nil && (n < 1 || n > math.MaxInt32) {
			causes = append(causes, invalid(path+".activeDeadlineSeconds", v, "must be between 1 and 2147483647, inclusive"))
		}
	}
	return causes
}

// validatePodContainers is validateContainerCommon (name, image,
// validateContainerPorts) for each container, then the Duplicate check on
// its name across the regular and init containers.
func validatePodContainers(containers []any, path string, seen map[string]bool) []api.StatusCause {
	var causes []api.StatusCause
	for i, c := range containers {
		field := fmt.Sprintf("%s[%d]", path, i)
		cm, ok := c.(map[string]any)
		if !ok {
			causes = append(causes, invalid(field, c, "must be an object"))
			continue
		}
		name := stringAt(cm, "name")
		if name == "" {
			causes = append(causes, required(field+".name"))
		} else if msg := isDNS1123Label(name); msg != "" {
			causes = append(causes, invalid(field+".name", name, msg))
		}
		if stringAt(cm, "image") == "" {
			causes = append(causes, required(field+".image"))
		}
		ports, _ := cm["ports"].([]any)
		causes = append(causes, validatePodContainerPorts(ports, field+".ports")...)
		if seen[name] {
			causes = append(causes, api.StatusCause{Type: api.CauseTypeFieldValueDuplicate, Field: field + ".name", Message: fmt.Sprintf("Duplicate value: %q", name)})
		} else if name != "" {
			seen[name] = true
		}
	}
	return causes
}

var (
	podPortNameCharsetRe = regexp.MustCompile("^[-a-z0-9]+$")
	podPortNameLetterRe  = regexp.MustCompile("[a-z]")
)

// validatePodContainerPorts is validateContainerPorts: IsValidPortName and
// unique names, containerPort required and in range (IsValidPortNum), a
// hostPort in range when set, a supported protocol.
func validatePodContainerPorts(ports []any, path string) []api.StatusCause {
	var causes []api.StatusCause
	names := map[string]bool{}
	for i, p := range ports {
		field := fmt.Sprintf("%s[%d]", path, i)
		pm, ok := p.(map[string]any)
		if !ok {
			causes = append(causes, invalid(field, p, "must be an object"))
			continue
		}
		if name := stringAt(pm, "name"); name != "" {
			if msgs := podPortNameErrors(name); len(msgs) > 0 {
				for _, msg := range msgs {
					causes = append(causes, invalid(field+".name", name, msg))
				}
			} else if names[name] {
				causes = append(causes, api.StatusCause{Type: api.CauseTypeFieldValueDuplicate, Field: field + ".name", Message: fmt.Sprintf("Duplicate value: %q", name)})
			} else {
				names[name] = true
			}
		}
		if n, v := podPortNumber(pm, "containerPort"); n == 0 {
			causes = append(causes, required(field+".containerPort"))
		} else if n < 1 || n > 65535 {
			causes = append(causes, invalid(field+".containerPort", v, "must be between 1 and 65535, inclusive"))
		}
		if n, v := podPortNumber(pm, "hostPort"); n != 0 && (n < 1 || n > 65535) {
			causes = append(causes, invalid(field+".hostPort", v, "must be between 1 and 65535, inclusive"))
		}
		switch proto := stringAt(pm, "protocol"); proto {
		case "", "TCP", "UDP", "SCTP": // "" would be TCP once defaulted
		default:
			causes = append(causes, notSupported(field+".protocol", proto, "SCTP", "TCP", "UDP"))
		}
	}
	return causes
}

// podPortNumber reads a port number and the value to quote in an error.
func podPortNumber(pm map[string]any, key string) (int64, any) {
	v, ok := pm[key].(json.Number)
	if !ok {
		return 0, nil
	}
	n, err := v.Int64()
	if err != nil {
		return 0, v
	}
	return n, v
}

// podPortNameErrors is IsValidPortName (an IANA_SVC_NAME).
func podPortNameErrors(name string) []string {
	var msgs []string
	if len(name) > 15 {
		msgs = append(msgs, "must be no more than 15 characters")
	}
	if !podPortNameCharsetRe.MatchString(name) {
		msgs = append(msgs, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if !podPortNameLetterRe.MatchString(name) {
		msgs = append(msgs, "must contain at least one letter (a-z)")
	}
	if strings.Contains(name, "--") {
		msgs = append(msgs, "must not contain consecutive hyphens")
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		msgs = append(msgs, "must not begin or end with a hyphen")
	}
	return msgs
}
