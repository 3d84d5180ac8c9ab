# kinformer: the informer machinery of client-go, from scratch, with a fake API server.
GO ?= go

.PHONY: demo server test unit lint kubectl-smoke bench chaos fuzz

## demo: the one-command tour (starts the fake API server with seeded objects and prints what to try)
demo:
	$(GO) run ./cmd/demo

## server: the fake API server alone on 127.0.0.1:8080 (ARGS="--token s3cret --seed 20" to change it)
server:
	$(GO) run ./cmd/fakeapiserver $(ARGS)

## test: everything CI runs: lint, all tests under -race, and kubectl against the fake server
test: lint unit kubectl-smoke

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

## bench: every benchmark, with allocations
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## chaos: the eventual-consistency test (random writes, dropped watches, outages, compactions) at length
chaos:
	KINFORMER_CHAOS_OPS=5000 $(GO) test -race -count=1 -timeout 30m -run TestInformer_EventuallyConsistentUnderFaults -v ./informer

## fuzz: each fuzz target for 30 seconds
fuzz:
	$(GO) test ./api -run '^$$' -fuzz FuzzParseSelector -fuzztime 30s
	$(GO) test ./api -run '^$$' -fuzz FuzzParseFieldSelector -fuzztime 30s
	$(GO) test ./fakeapiserver -run '^$$' -fuzz FuzzRequestBody -fuzztime 30s
	$(GO) test ./fakeapiserver/internal/patch -run '^$$' -fuzz FuzzMergePatch -fuzztime 30s
	$(GO) test ./fakeapiserver/internal/patch -run '^$$' -fuzz FuzzJSONPatch -fuzztime 30s
	$(GO) test ./fakeapiserver/internal/patch -run '^$$' -fuzz FuzzStrategicMergePatch -fuzztime 30s
	$(GO) test ./listwatch -run '^$$' -fuzz FuzzWatchDecoder -fuzztime 30s
