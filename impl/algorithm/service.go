// Package algorithm is the Algorithm (SOAP) service: HIV-1 drug-resistance
// reports for mutation lists and nucleotide sequences over SOAP
// 1.1 rpc/encoded. It implements gen/soapapi's SiteAlgorithm interface on
// top of a resistance engine, checks API keys against a key file of SHA-256
// hashes, rate-limits per key, and publishes the WSDL at <endpoint>?wsdl and
// the report XSD at <endpoint>?xsd=reports.
package algorithm

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"golang.org/x/time/rate"

	"github.com/sitelib/sitesvc/gen/soap"
	"github.com/sitelib/sitesvc/gen/soapapi"
	"github.com/sitelib/sitesvc/impl/server"
)

// Config configures the service. Endpoint, RequestNamespace, Engine and
// KeysFile are required.
type Config struct {
	// Endpoint is the public SOAP endpoint URL: the WSDL's soap:address
	// and the namespace of response bodies.
	Endpoint string
	// RequestNamespace is the namespace of request bodies.
	RequestNamespace string
	// Engine produces the reports.
	Engine Engine
	// KeysFile holds the SHA-256 hashes of the valid API keys.
	KeysFile string
	// DevKeyFile turns on development mode (`sitesvc serve --dev`, which
	// `make run` uses): New makes sure a development key exists (EnsureDevKey:
	// the key in DevKeyFile, its hash in KeysFile) and accepts it. A key
	// New creates is logged that once; a key is never logged afterwards
	// (later starts name DevKeyFile). Empty (production): no development
	// key is made, and one left in KeysFile by a development run is refused.
	DevKeyFile string
	// ReportsXSD is the XSD of the XML reports, published at ?xsd=reports.
	ReportsXSD []byte
	// KeyRate and KeyBurst limit requests per valid key (defaults 20/s,
	// burst 40); InvalidKeyRate and InvalidKeyBurst limit requests with an
	// invalid key per client address (defaults 1/s, burst 5).
	KeyRate, InvalidKeyRate   rate.Limit
	KeyBurst, InvalidKeyBurst int
	// MaxRequestBytes bounds a request body (default DefaultMaxRequestBytes).
	MaxRequestBytes int64
	// MaxWork is the work budget of one request (default DefaultMaxWork; budget.go).
	MaxWork int64
	// HeavySlots is how many heavy requests run at once (default: GOMAXPROCS, the cores the process may use).
	HeavySlots int
	Logger     *slog.Logger
}

// DefaultMaxRequestBytes bounds a request body unless Config says
// otherwise: room for resistance.MaxTotalBases nucleotides (10 million)
// with FASTA headers, line breaks and the envelope around them.
const DefaultMaxRequestBytes = 16 << 20

// Service is the Algorithm (SOAP) service; it implements server.Service and
// soapapi.SiteAlgorithm.
type Service struct {
	cfg         Config
	log         *slog.Logger
	keys        *keyStore
	keyLimits   *limiters
	badKeyLimit *limiters
	wsdl        []byte
	doc         []byte // the human-readable page, ?doc
	soap        *soap.Handler
	heavy       heavySlots
	waiting     atomic.Int64 // heavy requests waiting for a slot
}

var _ soapapi.SiteAlgorithm = (*Service)(nil)
var _ server.Service = (*Service)(nil)

// New builds the service.
func New(cfg Config) (*Service, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("algorithm: endpoint %q is not an absolute URL", cfg.Endpoint)
	}
	if cfg.RequestNamespace == "" {
		return nil, errors.New("algorithm: request namespace is required")
	}
	if cfg.Engine == nil {
		return nil, errors.New("algorithm: engine is required")
	}
	if cfg.KeysFile == "" {
		return nil, errors.New("algorithm: key file is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.KeyRate == 0 {
		cfg.KeyRate, cfg.KeyBurst = 20, 40
	}
	if cfg.MaxRequestBytes == 0 {
		cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if cfg.MaxWork <= 0 {
		cfg.MaxWork = DefaultMaxWork
	}
	if cfg.InvalidKeyRate == 0 {
		cfg.InvalidKeyRate, cfg.InvalidKeyBurst = 1, 5
	}
	if cfg.DevKeyFile != "" {
		key, created, err := EnsureDevKey(cfg.KeysFile, cfg.DevKeyFile)
		if err != nil {
			return nil, fmt.Errorf("algorithm: %w", err)
		}
		if created {
			cfg.Logger.Info("development mode: created a development SOAP API key; it is not shown again", "key", key, "key_file", cfg.DevKeyFile, "keys_file", cfg.KeysFile)
		} else {
			cfg.Logger.Info("development mode: the development SOAP API key is accepted", "key_file", cfg.DevKeyFile)
		}
	}
	keys, err := newKeyStore(cfg.KeysFile, cfg.DevKeyFile != "")
	if err != nil {
		return nil, fmt.Errorf("algorithm: %w", err)
	}
	if keys.missingAtStart {
		cfg.Logger.Warn("no SOAP API key file yet: every key is refused until `sitesvc keys add` creates one", "keys_file", cfg.KeysFile)
	}
	s := &Service{
		cfg:         cfg,
		log:         cfg.Logger,
		keys:        keys,
		keyLimits:   newLimiters(cfg.KeyRate, cfg.KeyBurst, 100_000),
		badKeyLimit: newLimiters(cfg.InvalidKeyRate, cfg.InvalidKeyBurst, 100_000),
		wsdl:        PublishedWSDL(cfg.Endpoint, cfg.RequestNamespace),
		heavy:       newHeavySlots(cfg.HeavySlots),
	}
	if s.doc, err = docPage(cfg.Endpoint, len(cfg.ReportsXSD) > 0); err != nil {
		return nil, err
	}
	s.soap, err = soap.NewHandler(soap.HandlerConfig{
		Operations:        soapapi.Operations(s),
		RequestNamespace:  cfg.RequestNamespace,
		ResponseNamespace: cfg.Endpoint,
		MaxRequestBytes:   cfg.MaxRequestBytes,
		Logger:            cfg.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("algorithm: %w", err)
	}
	return s, nil
}

// PublishedWSDL is the WSDL as served: the contract with its request
// namespace and endpoint address replaced by the configured ones.
func PublishedWSDL(endpoint, requestNamespace string) []byte {
	// One pass, so that a configured value equal to the other default is
	// not replaced twice.
	r := strings.NewReplacer(
		`"`+soapapi.TargetNamespace+`"`, `"`+attrEscape(requestNamespace)+`"`,
		`"`+soapapi.Address+`"`, `"`+attrEscape(endpoint)+`"`,
		// The SOAP encoding schema's location (the import's schemaLocation).
		`"`+soapapi.Address+`?xsd=soapenc"`, `"`+attrEscape(endpoint+"?xsd=soapenc")+`"`,
	)
	return []byte(r.Replace(string(soapapi.Document("wsdl"))))
}

func attrEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return strings.ReplaceAll(b.String(), `"`, "&#34;")
}

// Name implements server.Service.
func (s *Service) Name() string { return "soap" }

// Ready implements server.Service: the key file must still be readable.
func (s *Service) Ready(context.Context) error { return s.keys.err() }

// Close implements server.Service.
func (s *Service) Close() error { return nil }

// IndexLinks implements server.Indexer.
func (s *Service) IndexLinks() []server.Link {
	links := []server.Link{
		{Title: "Algorithm (SOAP) endpoint", URL: s.cfg.Endpoint},
		{Title: "Operations, parts and report types (documentation)", URL: s.cfg.Endpoint + "?doc"},
	}
	if len(s.cfg.ReportsXSD) > 0 {
		links = append(links, server.Link{Title: "Report XSD", URL: s.cfg.Endpoint + "?xsd=reports"})
	}
	return links
}

// Handler implements server.Service. It sees paths relative to the
// endpoint, so the endpoint itself is "/" (or "").
func (s *Service) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "" && r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			s.serveDocument(w, r)
			return
		}
		s.soap.ServeHTTP(w, r)
	})
}

func (s *Service) serveDocument(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	switch {
	case q.Has("wsdl") || q.Has("WSDL"):
		w.Header().Set("Content-Type", "text/xml; charset=utf-8")
		_, _ = w.Write(s.wsdl)
	case q.Has("doc"):
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(s.doc)
	case q.Get("xsd") == "soapenc":
		// The SOAP encoding types the WSDL's schema imports (its
		// schemaLocation): zeep loads a schema for every imported namespace.
		w.Header().Set("Content-Type", "text/xml; charset=utf-8")
		_, _ = w.Write(soapapi.Document("soapenc"))
	case q.Get("xsd") == "reports" && len(s.cfg.ReportsXSD) > 0:
		w.Header().Set("Content-Type", "text/xml; charset=utf-8")
		_, _ = w.Write(s.cfg.ReportsXSD)
	case len(q) == 0:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "Algorithm (SOAP): SOAP 1.1 (rpc/encoded) endpoint.\nPOST SOAP requests here.\nWSDL: %s?wsdl\nDocumentation: %s?doc\n", s.cfg.Endpoint, s.cfg.Endpoint)
		if len(s.cfg.ReportsXSD) > 0 {
			fmt.Fprintf(w, "Report XSD: %s?xsd=reports\n", s.cfg.Endpoint)
		}
	default:
		http.Error(w, "unknown document; the WSDL is at ?wsdl, its documentation at ?doc, the report XSD at ?xsd=reports and the SOAP encoding types it imports at ?xsd=soapenc", http.StatusNotFound)
	}
}
