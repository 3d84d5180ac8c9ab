#!/usr/bin/env bash
# kubectl (the real one) and curl against cmd/fakeapiserver: every command a
# learner is told to try must work. Run by `make kubectl-smoke` and `make test`.
#
# The server listens on a free loopback port; nothing else is touched. If
# kubectl is missing, Debian's kubernetes-client package is installed.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v kubectl >/dev/null 2>&1; then
  echo "kubectl-smoke: kubectl not found; installing Debian's kubernetes-client" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq kubernetes-client >/dev/null
fi
command -v curl >/dev/null 2>&1 || { echo "kubectl-smoke: curl is required" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/fakeapiserver" ./cmd/fakeapiserver

# wait_for FILE PATTERN [SECONDS]: polls FILE (which may not exist yet) until
# a line matches PATTERN (grep -E); false after SECONDS (default 60). A busy
# 2-core machine can take seconds to start a process, so the deadline is
# generous and the wait ends as soon as the line is there.
wait_for() {
  local file=$1 pattern=$2 secs=${3:-60} i
  for ((i = 0; i < secs * 10; i++)); do
    grep -qE -- "$pattern" "$file" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# start_server LOGFILE ARGS...: starts the server and sets URL. The log is
# created here, before the server starts, so reading it never races the
# background process's redirection (a cold first run once failed with
# "sed: can't read .../server-token.log").
start_server() {
  local log=$1; shift
  : >"$log"
  "$work/fakeapiserver" --addr 127.0.0.1:0 "$@" >"$log" 2>&1 &
  local pid=$!
  pids+=($pid)
  if wait_for "$log" 'listening.* url=https?:'; then
    URL=$(sed -n 's/.*listening.* url=\(https\{0,1\}:[^ ]*\).*/\1/p' "$log" | head -1)
    return 0
  fi
  kill -0 "$pid" 2>/dev/null || echo "kubectl-smoke: the server exited" >&2
  echo "kubectl-smoke: server did not start within 60s:" >&2; cat "$log" >&2; exit 1
}

pass=0
check() { # check DESCRIPTION OUTPUT PATTERN
  if grep -qE -- "$3" <<<"$2"; then
    pass=$((pass+1)); echo "ok   $1"
  else
    echo "FAIL $1: output does not match /$3/:"; echo "$2" | sed 's/^/     /'; exit 1
  fi
}

start_server "$work/server.log" --seed 3
k() { kubectl --server "$URL" "$@" 2>&1; }

check "kubectl get pods -A"          "$(k get pods -A)"                 '^default +seed-0 +0/1 +Pending +0 +[0-9]+s'
check "kubectl api-resources"        "$(k api-resources)"               'replicasets +rs +apps/v1 +true +ReplicaSet'
check "kubectl get ns"               "$(k get ns)"                      '^kube-system +Active'

cat >"$work/pod.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: yaml-pod
  labels: {app: yaml}
spec:
  containers:
  - name: c
    image: busybox
YAML
# kubectl get -w in the background, while objects change.
kubectl --server "$URL" get pods -w >"$work/watch.out" 2>&1 &
wpid=$!; pids+=($wpid)
wait_for "$work/watch.out" '^seed-2 ' || { echo "kubectl-smoke: kubectl get pods -w printed no list:"; cat "$work/watch.out"; exit 1; }

check "kubectl create -f (default validation)" "$(k create -f "$work/pod.yaml")" '^pod/yaml-pod created'
check "kubectl create -f again (409)"  "$(k create -f "$work/pod.yaml" || true)" 'AlreadyExists.*pods "yaml-pod" already exists'
check "kubectl label"                "$(k label pod yaml-pod tier=web)"  '^pod/yaml-pod labeled'
check "kubectl get --show-labels"    "$(k get pod yaml-pod --show-labels)" 'app=yaml,tier=web'
check "kubectl get pod -o json"      "$(k get pod yaml-pod -o json)"     '"resourceVersion": "[0-9]+"'
check "kubectl get pods -o yaml (items carry no kind, as on a real server)" "$(k get pods -o yaml)" '^  kind: Pod$'
check "kubectl apply"                "$(k apply -f "$work/pod.yaml")"    '^pod/yaml-pod configured'
check "kubectl delete pod"           "$(k delete pod seed-2)"            'pod "seed-2" deleted'
check "kubectl get deleted pod"      "$(k get pod seed-2 || true)"       'NotFound.*pods "seed-2" not found'
check "kubectl get replicasets"      "$(k get replicasets)"              'No resources found in default namespace'
cat >"$work/rs.yaml" <<'YAML'
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
YAML
check "kubectl create replicaset"    "$(k create -f "$work/rs.yaml")"     '^replicaset.apps/web created'
check "kubectl get rs"               "$(k get rs)"                        '^web +2 +0 +0 +[0-9]+s'
# Imperative generators (kubectl create configmap/deployment ...) send protobuf,
# client-go's default for built-in types; the fake reads JSON and YAML only and says so.
check "kubectl create configmap (protobuf: 415)" "$(k create configmap cfg --from-literal=a=b || true)" 'reads JSON and YAML bodies only'
check "kubectl get configmaps"       "$(k create -f - <<<'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"},"data":{"a":"b"}}' && k get cm)" '^cfg +1 +'
check "kubectl delete namespace default (403)" "$(k delete ns default || true)" 'Forbidden'

wait_for "$work/watch.out" '^yaml-pod ' && wait_for "$work/watch.out" '^seed-2 .*Terminating' || true
check "kubectl get pods -w saw the create"  "$(cat "$work/watch.out")" '^yaml-pod +0/1 +Pending'
check "kubectl get pods -w saw the delete"  "$(cat "$work/watch.out")" '^seed-2 +0/1 +Terminating'

# Article 004's curl lines (there against `kubectl proxy --port 8080`; the
# server's own default address is 127.0.0.1:8080).
list=$(curl -s "$URL/api/v1/namespaces/default/pods")
check "curl list (pretty, as for curl)" "$list" '^  "kind": "PodList",'
rv=$(sed -n 's/^    "resourceVersion": "\([0-9]*\)".*/\1/p' <<<"$list" | head -1)
curl -sN "$URL/api/v1/namespaces/default/pods?watch=true&resourceVersion=$rv" >"$work/curl-watch.out" &
pids+=($!)
# The watch starts at the list's version, so it replays these two changes
# whenever curl connects: no need to wait for it first.
k label pod seed-0 touched=yes >/dev/null
k delete pod seed-1 >/dev/null
wait_for "$work/curl-watch.out" '"type":"DELETED"' || true
check "curl watch from the list's resourceVersion" "$(cat "$work/curl-watch.out")" '^\{"type":"MODIFIED","object":\{"kind":"Pod".*"name":"seed-0"'
check "curl watch sees DELETED"      "$(cat "$work/curl-watch.out")" '^\{"type":"DELETED","object":\{"kind":"Pod".*"name":"seed-1"'

# Custom resources: a CRD makes the server serve its kind (fakeapiserver/crd.go).
cat >"$work/crd.yaml" <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.demo.kinformer.io}
spec:
  group: demo.kinformer.io
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: string, jsonPath: .spec.size}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
YAML
cat >"$work/widget.yaml" <<'YAML'
apiVersion: demo.kinformer.io/v1
kind: Widget
metadata: {name: w1, labels: {app: demo}}
spec: {size: small}
YAML
check "kubectl apply -f crd.yaml"     "$(k apply -f "$work/crd.yaml")"    'customresourcedefinition.apiextensions.k8s.io/widgets.demo.kinformer.io created'
check "kubectl get crd"               "$(k get crd)"                      '^widgets.demo.kinformer.io +[0-9]{4}-'
check "kubectl api-resources (CR)"    "$(k api-resources --api-group=demo.kinformer.io)" 'widgets +wd +demo.kinformer.io/v1 +true +Widget'
check "kubectl apply -f widget.yaml"  "$(k apply -f "$work/widget.yaml")" '^widget.demo.kinformer.io/w1 created'
check "kubectl get widgets"           "$(k get widgets)"                  '^w1 +small +[0-9]+s'
check "kubectl get wd w1 -o yaml"     "$(k get wd w1 -o yaml)"            '^  size: small$'
kubectl --server "$URL" get widgets -w --request-timeout=30s >"$work/widgets-watch.out" 2>&1 &
wwpid=$!; pids+=($wwpid)
wait_for "$work/widgets-watch.out" '^w1 ' || true
check "kubectl patch widget (merge)"  "$(k patch widget w1 --type merge -p '{"spec":{"size":"large"}}')" 'widget.demo.kinformer.io/w1 patched'
check "kubectl patch widget (strategic): 415" "$(k patch widget w1 -p '{"spec":{"size":"x"}}' || true)" 'application/merge-patch\+json'
wait_for "$work/widgets-watch.out" '^w1 .*large' || true
check "kubectl get widgets -w sees the change" "$(cat "$work/widgets-watch.out")" '^w1 +large '
check "kubectl delete widget"         "$(k delete widget w1)"             'widget.demo.kinformer.io "w1" deleted'
check "kubectl apply -f widget.yaml again" "$(k apply -f "$work/widget.yaml")" 'created'
check "kubectl delete crd"            "$(k delete crd widgets.demo.kinformer.io)" 'customresourcedefinition.apiextensions.k8s.io "widgets.demo.kinformer.io" deleted'
for _ in $(seq 1 600); do kill -0 "$wwpid" 2>/dev/null || break; sleep 0.1; done
kill "$wwpid" 2>/dev/null || true
# (kubectl may still have the kind in its discovery cache: then the list is 404.)
check "kubectl get widgets after the CRD went" "$(k get widgets || true)" "doesn't have a resource type \"widgets\"|NotFound.*could not find the requested resource"

# Without a token only a loopback Host is answered (DNS rebinding).
check "curl with a foreign Host: 403" "$(curl -s -H 'Host: attacker.example' "$URL/api/v1/namespaces/default/pods")" 'host \\"attacker.example\\" is not allowed'

# The token from the environment (never printed), and the fault endpoints.
KINFORMER_TOKEN=s3cret start_server "$work/server-faults.log" --seed 1 --faults
check "the token is not printed"     "$(grep -c s3cret "$work/server-faults.log" || true)" '^0$'
check "curl /faults without a token: 401" "$(curl -s -X POST "$URL/faults/compact")" '"reason": "Unauthorized"'
check "curl -X POST /faults/compact" "$(curl -s -X POST -H 'Authorization: Bearer s3cret' "$URL/faults/compact")" '"did": "history compacted at resourceVersion [0-9]+"'
check "curl -X POST /faults/fail"    "$(curl -s -X POST -H 'Authorization: Bearer s3cret' "$URL/faults/fail?code=429&count=1&retryAfter=2&verb=list&resource=pods")" 'fail with 429 \(Retry-After: 2s\)'
check "curl list after /faults/fail: 429" "$(curl -s -H 'Authorization: Bearer s3cret' "$URL/api/v1/namespaces/default/pods")" '"reason": "TooManyRequests"'
check "curl list again: 200"         "$(curl -s -H 'Authorization: Bearer s3cret' "$URL/api/v1/namespaces/default/pods")" '"name": "seed-0"'

# With --token every request needs it. kubectl only sends a token over HTTPS,
# so that half runs with --tls-dir (a generated CA, as a real cluster's).
start_server "$work/server-token.log" --token s3cret --seed 1
check "kubectl without a token: 401" "$(kubectl --server "$URL" get pods 2>&1 | tail -1 || true)" 'provide credentials'
check "curl without a token: 401"    "$(curl -s "$URL/api/v1/namespaces/default/pods")" '"reason": "Unauthorized"'
check "curl with the token"          "$(curl -s -H 'Authorization: Bearer s3cret' "$URL/api/v1/namespaces/default/pods")" '"name": "seed-0"'
start_server "$work/server-tls.log" --token s3cret --seed 1 --tls-dir "$work/tls"
check "kubectl over HTTPS with CA and token" "$(kubectl --server "$URL" --certificate-authority "$work/tls/ca.crt" --token s3cret get pods 2>&1)" '^seed-0 '
check "kubectl over HTTPS, wrong token"      "$(kubectl --server "$URL" --certificate-authority "$work/tls/ca.crt" --token nope get pods 2>&1 | tail -1 || true)" 'Unauthorized'
check "curl over HTTPS with CA and token"    "$(curl -s --cacert "$work/tls/ca.crt" -H 'Authorization: Bearer s3cret' "$URL/api/v1/namespaces/default/pods")" '"name": "seed-0"'

echo "kubectl-smoke: $pass checks passed ($(kubectl version --client 2>/dev/null | head -1))"
