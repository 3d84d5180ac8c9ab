# kinformer: the informer machinery of client-go, from scratch, with a fake API server.
GO ?= go

.PHONY: demo server test test-under-load soak-under-load unit lint docs-check kubectl-smoke demo-check browser-test browser-screenshot stories fuzz-brief bench bench-report chaos soak fuzz

## demo: the one-command tour: fake API server, informers, the ReplicaSet controller, a kubelet and chaos, narrated
## (ARGS="--trace" for every hop, ARGS="--duration 30s --history 5" ...; Ctrl-C ends it with exit 0)
# Built, then exec'd, so that Ctrl-C reaches the demo alone and make reports no error.
demo:
	@echo "demo: building bin/demo (a first build compiles everything: up to a minute; then a few seconds)"; \
	start=$$(date +%s); $(GO) build -o bin/demo ./cmd/demo || exit 1; \
	echo "demo: built in $$(( $$(date +%s) - start ))s; starting it (Ctrl-C ends it)"; exec ./bin/demo $(ARGS)

## server: the fake API server alone on 127.0.0.1:8080 (ARGS="--token s3cret --seed 20" to change it)
server:
	$(GO) run ./cmd/fakeapiserver $(ARGS)

## test: everything CI runs: lint, the docs check, all tests under -race, kubectl against the fake server, the demo's final check, the demo's page in a browser, the narrated tests
test: lint docs-check unit kubectl-smoke demo-check browser-test stories fuzz-brief

## test-under-load: make test RUNS times in a row (default 3) while CPU hogs (HOGS, default twice the cores) keep
## every core busy; stops at the first failure. The hogs are started and killed by scripts/under-load.sh
RUNS ?= 3
test-under-load:
	@for i in $$(seq 1 $(RUNS)); do \
	echo "test-under-load: run $$i of $(RUNS)"; \
	GO=$(GO) ./scripts/under-load.sh $(MAKE) --no-print-directory test || exit 1; \
	done; echo "test-under-load: $(RUNS) of $(RUNS) runs passed"

unit:
	$(GO) test -race -count=1 ./...

## lint: gofmt check, go vet, staticcheck, deadcode (no function that neither a command nor a test nor an Example
## reaches: exported API a test or Example uses is live), and the library's runtime needs the standard library only
## (go-cmp, testify and x/* are for tests and tools: no library package, outside cmd/ and internal/tools, depends on
## them). staticcheck and deadcode are pinned and run with go run: downloaded on first use, nothing to install.
STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2
DEADCODE = golang.org/x/tools/cmd/deadcode@v0.52.0
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	@echo "$(GO) run $(DEADCODE) -test ./..."; out=$$($(GO) run $(DEADCODE) -test ./...) || exit 1; \
	if [ -n "$$out" ]; then echo "deadcode: unreachable functions:"; echo "$$out"; exit 1; fi
	@bad=$$($(GO) list -deps $$($(GO) list ./... | grep -v -e /cmd/ -e /internal/tools) | \
	grep -e '^github.com/google/go-cmp' -e '^github.com/stretchr/testify' -e '^golang.org/x/'); \
	if [ -n "$$bad" ]; then echo "the library depends on more than the standard library:"; echo "$$bad"; exit 1; fi

## docs-check: every Markdown link, anchor, backticked test name, repo path and symbol resolves; no file points outside the repo;
## every page under docs/ has its Chinese twin under docs/zh-CN/ with the same headings, tests, scripts and code blocks
## (internal/tools/checkdocs/twins.go): a page changed without its twin fails it
docs-check:
	$(GO) run ./internal/tools/checkdocs

## kubectl-smoke: the real kubectl against cmd/fakeapiserver (installs Debian's kubernetes-client if kubectl is missing)
kubectl-smoke:
	./scripts/kubectl-smoke.sh

## demo-check: the demo for 15 seconds on a free port; fails unless its final check passes
## (ARGS="--informer articles" for the articles' informer instead of today's)
demo-check:
	$(GO) run ./cmd/demo --addr 127.0.0.1:0 --web 127.0.0.1:0 --duration 15s --quiet $(ARGS)

## browser-test: the demo's live view in real headless Chromium through chromedriver (installs Debian's chromium and
## chromium-driver if missing; skipped only where they cannot be installed; a Chinese font it cannot install fails it); saves its screenshots in bin/
browser-test:
	GO=$(GO) ./scripts/browser-test.sh

## browser-screenshot: the browser test, saving the screenshots docs/demo.md shows (docs/demo-browser.png, demo-lab.png, demo-lesson-zh.png)
browser-screenshot:
	SCREENSHOT=docs/demo-browser.png GO=$(GO) ./scripts/browser-test.sh

## stories: the tests the docs name tell their story under -v
stories:
	./scripts/check-stories.sh

## bench: every benchmark, with allocations, and one table of them (docs/performance.md, docs/performance.svg); a few minutes
## (the pipeline suite 1x, the informer and listwatch ones 1x, the micro-benchmarks 100ms each; output kept in bin/bench.txt)
BENCH_PKGS_MICRO = $$($(GO) list ./... | grep -v -e '/bench$$' -e '/informer$$' -e '/listwatch$$')
bench:
	@mkdir -p bin
	@set -e; start=$$(date +%s); { \
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 100ms $(BENCH_PKGS_MICRO); \
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 1x ./informer ./listwatch; \
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 1x -timeout 30m ./bench; \
	} > bin/bench.txt 2>&1 || { cat bin/bench.txt; exit 1; }; \
	echo "benchmarks took $$(( $$(date +%s) - start ))s; raw output in bin/bench.txt"
	@$(MAKE) --no-print-directory bench-report

## bench-report: the table and chart again from bin/bench.txt (written into docs/performance.md and docs/performance.svg)
bench-report:
	$(GO) run ./cmd/benchreport -write docs/performance.md -svg docs/performance.svg < bin/bench.txt

## chaos: the eventual-consistency test (random writes, dropped watches, outages, compactions) at length
chaos:
	KINFORMER_CHAOS_OPS=5000 $(GO) test -race -count=1 -timeout 30m -run TestInformer_EventuallyConsistentUnderFaults -v ./informer

## soak: the long soak (SOAK_DURATION, default 10m; SOAK_SEED); `go test ./soak` runs a short one
soak:
	SOAK_DURATION=$${SOAK_DURATION:-10m} $(GO) test -count=1 -timeout 0 -run TestSoak -v ./soak

## soak-under-load: make soak (SOAK_DURATION, default 10m) while CPU hogs keep every core busy
soak-under-load:
	GO=$(GO) ./scripts/under-load.sh $(MAKE) --no-print-directory soak

## fuzz-brief: every fuzz target for 2 seconds (part of make test)
fuzz-brief:
	FUZZTIME=2s GO=$(GO) ./scripts/fuzz.sh

## fuzz: every fuzz target for 30 seconds (FUZZTIME to change)
fuzz:
	FUZZTIME=$${FUZZTIME:-30s} GO=$(GO) ./scripts/fuzz.sh
