# sitesvc — see README.md. Every target runs from a fresh clone; the tests
# also want ../shared beside it (their oracle data).

GO      ?= go
BIN     := bin/sitesvc
PKGS    := ./...
# make run listens here (loopback only; a deployment chooses its own --addr).
ADDR    ?= 127.0.0.1:8080
# make install puts sitesvc in $(PREFIX)/bin.
PREFIX  ?= /usr/local
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
# A static binary (no libc), the same one the Dockerfile builds and the
# tests run; the tests are built the same way, so they share the build cache.
export CGO_ENABLED := 0

MIRADOR_SRC := impl/embed/viewer/node_modules/mirador/dist
MIRADOR_DST := bundled/mirador/dist

# The tests and benchmarks run the binary make build made (impl/testkit).
TESTENV    = SITESVC_TEST_BINARY=$(CURDIR)/$(BIN)
# Shared by make test and the targets of the same name, so they cannot drift.
TS_TEST    = $(TESTENV) bash scripts/tsclients.sh test
BENCH_ONCE = $(TESTENV) $(GO) test -count=1 -run '^$$' -bench . -benchtime 1x -timeout 20m $(PKGS)

.PHONY: all generate viewer mirador apidocs webcheck hours-npm samples-large build run install test ts-test bench bench-check bench-edge bench-edge-long test-race lint fmt-check vet staticcheck gen-check clean

all: build

## generate: rewrite gen/ from the contracts in api/ and wsdl/ (Go packages, SOAP runtime, TypeScript clients)
generate:
	$(GO) generate ./gen/...
	bash scripts/tsclients.sh generate

## viewer: fetch the pinned npm packages of the embed viewer (Mirador)
viewer:
	@echo "make: fetching Mirador (scripts/build-viewer.sh: npm ci the first time, then nothing to do)"
	@bash scripts/build-viewer.sh

## apidocs: fetch the pinned Redoc and copy its bundle into impl/apidocs/bundle (embedded by build)
apidocs:
	bash scripts/build-apidocs.sh

## webcheck: fetch the pinned npm packages of impl/purl/webcheck: @iiif/parser (PURL tests) and axe-core (every browser test, testkit.Axe)
webcheck:
	bash scripts/build-webcheck.sh

## samples-large: the large sample objects (24 MP JPEG, JPEG 2000, WebM video) in samples/large, made with vips and ffmpeg (not committed; skipped with a message without them)
samples-large:
	$(GO) run ./cmd/purlsamples -large samples/large -optional

## hours-npm: fetch the pinned npm packages the Hours tests use (JSON:API clients)
hours-npm:
	bash scripts/hours-npm.sh install

## mirador: copy the Mirador bundle where go:embed builds it into the binary
mirador: viewer
	@test -s $(MIRADOR_SRC)/mirador.min.js || { echo "make: $(MIRADOR_SRC)/mirador.min.js is missing; scripts/build-viewer.sh should have installed it (needs npm)" >&2; exit 1; }
	@mkdir -p $(MIRADOR_DST)
	@cmp -s $(MIRADOR_SRC)/mirador.min.js $(MIRADOR_DST)/mirador.min.js || cp $(MIRADOR_SRC)/mirador.min.js $(MIRADOR_SRC)/mirador.min.js.LICENSE.txt $(MIRADOR_DST)/

## build: the static sitesvc binary in bin/, with its data and Mirador built in
build: mirador apidocs samples-large
	@echo "make: building $(BIN) (go build; the first build compiles every module and takes a few minutes)"
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/sitesvc

## run: build, then serve every service in development mode on http://$(ADDR)
run: build
	@echo "make: starting $(BIN) serve --dev on http://$(ADDR) (data in ./data, development SOAP key in data/dev-key.txt; Ctrl-C stops)"
	./$(BIN) serve --dev --addr $(ADDR) --log-format text $(if $(wildcard samples/large),--purl-large-samples samples/large)

## install: build, then copy sitesvc to $(PREFIX)/bin (PREFIX=$$HOME/.local for a user install)
install: build
	@mkdir -p $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/sitesvc
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) echo "make: sitesvc installed: $(PREFIX)/bin/sitesvc";; \
	  *) echo "make: sitesvc installed in $(PREFIX)/bin, which is not on your PATH: add it (export PATH=\"$(PREFIX)/bin:\$$PATH\")";; esac

## lint: gofmt, go vet and staticcheck
lint: fmt-check vet staticcheck

fmt-check:
	@bash scripts/check-fmt.sh

vet:
	$(GO) vet $(PKGS)

staticcheck:
	$(GO) tool staticcheck $(PKGS)

## gen-check: fail when gen/ differs from what the contracts generate
gen-check:
	@bash scripts/check-gen.sh

## test: lint, gen freshness and every test (against PostgreSQL too when SITESVC_TEST_POSTGRES_URL is set)
test: lint gen-check build webcheck hours-npm
	$(TS_TEST)
	$(TESTENV) $(GO) test -count=1 -timeout 25m $(PKGS)
	@echo "make: every benchmark once (make bench-check), so a benchmark that no longer runs fails the tests"
	$(BENCH_ONCE)

## test-race: every Go test under the race detector, the servers the tests start included (a -race binary that stops at its first data race); about 30 minutes on two cores, so not part of make test
test-race: build
	$(GO) build -race -o $(BIN)-race ./cmd/sitesvc
	GORACE=halt_on_error=1 SITESVC_TEST_BINARY=$(CURDIR)/$(BIN)-race $(GO) test -race -count=1 -timeout 60m -skip '^TestBinaryRunsAnywhere$$' $(PKGS)

## ts-test: the TypeScript client suite (node --test) against the built binary
ts-test: build
	$(TS_TEST)

## bench-check: every benchmark once (-benchtime 1x), so one that no longer runs fails make test
bench-check: build
	$(BENCH_ONCE)

## bench: the benchmarks, each reporting its ratio against a baseline measured in the same run
bench: build
	$(TESTENV) $(GO) test -run '^$$' -bench . -benchmem -count 1 -timeout 30m $(PKGS)

## bench-edge: only the edge benchmark (the real binary vs bare net/http over loopback)
bench-edge: build
	$(TESTENV) $(GO) test -run '^$$' -bench '^BenchmarkEdge$$' -count 1 ./cmd/sitesvc

## bench-edge-long: the edge benchmark in 10 rounds of 2 s per side (about 8 minutes, 12 with a before binary): the steadier figure
bench-edge-long: build
	SITESVC_BENCH_EDGE_ROUNDS=10 SITESVC_BENCH_EDGE_SECONDS=2 $(TESTENV) $(GO) test -run '^$$' -bench '^BenchmarkEdge$$' -count 1 -timeout 60m ./cmd/sitesvc

clean:
	rm -rf bin
