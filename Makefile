# sitesvc — see README.md. Every target runs from a fresh clone with
# ../shared beside it.

GO      ?= go
BIN     := bin/sitesvc
PKGS    := ./...

.PHONY: all generate viewer apidocs samples-large build run test ts-test bench lint fmt-check vet staticcheck gen-check clean

all: build

## generate: rewrite gen/ from the contracts in api/ and wsdl/ (Go packages, SOAP runtime, TypeScript clients)
generate:
	$(GO) generate ./gen/...
	bash scripts/tsclients.sh generate

## viewer: fetch the pinned npm packages of the embed viewer (Mirador)
viewer:
	bash scripts/build-viewer.sh

## apidocs: fetch the pinned Redoc and copy its bundle into impl/apidocs/bundle (embedded by build)
apidocs:
	bash scripts/build-apidocs.sh

## samples-large: the large sample objects (24 MP JPEG, JPEG 2000, WebM video) in samples/large, made with vips and ffmpeg (not committed; skipped with a message without them)
samples-large:
	$(GO) run ./cmd/purlsamples -large samples/large -optional

## build: the sitesvc binary in bin/
build: viewer apidocs samples-large
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
	SITESVC_TEST_BINARY=$(CURDIR)/$(BIN) bash scripts/tsclients.sh test
	SITESVC_TEST_BINARY=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 25m $(PKGS)

## ts-test: the TypeScript client suite (node --test) against the built binary
ts-test: build
	SITESVC_TEST_BINARY=$(CURDIR)/$(BIN) bash scripts/tsclients.sh test

## bench: the benchmarks, each reporting its ratio against a baseline measured in the same run
bench: build
	SITESVC_TEST_BINARY=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench . -benchmem -count 1 -timeout 30m $(PKGS)

clean:
	rm -rf bin
