# sitesvc — see README.md. Every target runs from a fresh clone with
# ../shared beside it.

GO      ?= go
BIN     := bin/sitesvc
PKGS    := ./...

.PHONY: all generate viewer build run test bench bench-edge lint fmt-check vet staticcheck gen-check clean

all: build

## generate: rewrite gen/ from the contracts in api/ and wsdl/
generate:
	$(GO) generate ./gen/...

## viewer: fetch the pinned npm packages of the embed viewer (Mirador)
viewer:
	bash scripts/build-viewer.sh

## build: the sitesvc binary in bin/
build: viewer
	$(GO) build -o $(BIN) ./cmd/sitesvc

## run: build, then serve every service on the embedded defaults at http://localhost:8080
run: build
	./$(BIN) serve --log-format text

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
test: lint gen-check build
	SITESVC_TEST_BINARY=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 25m $(PKGS)

## bench: the benchmarks, each reporting its ratio against a baseline measured in the same run
bench: build
	SITESVC_TEST_BINARY=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench . -benchmem -count 1 -timeout 30m $(PKGS)

## bench-edge: only the edge benchmark (the real binary vs bare net/http over loopback)
bench-edge: build
	SITESVC_TEST_BINARY=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench '^BenchmarkEdge$$' -count 1 ./cmd/sitesvc

clean:
	rm -rf bin
