# kinformer: the informer machinery of client-go, from scratch, with a fake API server.
GO ?= go

.PHONY: demo server test unit lint kubectl-smoke demo-check stories fuzz-brief bench chaos soak fuzz

## demo: the one-command tour: fake API server, informers, the ReplicaSet controller, a kubelet and chaos, narrated
## (ARGS="--trace" for every hop, ARGS="--duration 30s --history 5" ...; Ctrl-C ends it with exit 0)
# Built, then exec'd, so that Ctrl-C reaches the demo alone and make reports no error.
demo:
	@$(GO) build -o bin/demo ./cmd/demo && exec ./bin/demo $(ARGS)

## server: the fake API server alone on 127.0.0.1:8080 (ARGS="--token s3cret --seed 20" to change it)
server:
	$(GO) run ./cmd/fakeapiserver $(ARGS)

## test: everything CI runs: lint, all tests under -race, kubectl against the fake server, the demo's final check, the narrated tests
test: lint unit kubectl-smoke demo-check stories fuzz-brief

unit:
	$(GO) test -race -count=1 ./...

## lint: gofmt check and go vet
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

## kubectl-smoke: the real kubectl against cmd/fakeapiserver (installs Debian's kubernetes-client if kubectl is missing)
kubectl-smoke:
	./scripts/kubectl-smoke.sh

## demo-check: the demo for 15 seconds on a free port; fails unless its final check passes
demo-check:
	$(GO) run ./cmd/demo --addr 127.0.0.1:0 --duration 15s --quiet

## stories: the tests the docs name tell their story under -v
stories:
	./scripts/check-stories.sh

## bench: every benchmark, with allocations
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## chaos: the eventual-consistency test (random writes, dropped watches, outages, compactions) at length
chaos:
	KINFORMER_CHAOS_OPS=5000 $(GO) test -race -count=1 -timeout 30m -run TestInformer_EventuallyConsistentUnderFaults -v ./informer

## soak: the long soak (SOAK_DURATION, default 10m; SOAK_SEED); `go test ./soak` runs a short one
soak:
	SOAK_DURATION=$${SOAK_DURATION:-10m} $(GO) test -count=1 -timeout 0 -run TestSoak -v ./soak

## fuzz-brief: every fuzz target for 2 seconds (part of make test)
fuzz-brief:
	FUZZTIME=2s GO=$(GO) ./scripts/fuzz.sh

## fuzz: every fuzz target for 30 seconds (FUZZTIME to change)
fuzz:
	FUZZTIME=$${FUZZTIME:-30s} GO=$(GO) ./scripts/fuzz.sh
