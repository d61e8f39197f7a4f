package soap

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync"
)

// HandlerConfig configures a Handler.
type HandlerConfig struct {
	// Operations is the dispatch table (gen/soapapi.Operations(impl)).
	Operations []Operation
	// RequestNamespace is the namespace of request wrapper elements.
	RequestNamespace string
	// ResponseNamespace is the namespace of response wrapper elements
	// (the endpoint URL for SiteAlgorithm).
	ResponseNamespace string
	// MaxRequestBytes bounds the request body; 0 means 8 MiB.
	MaxRequestBytes int64
	// Limits bound the parsed envelope; zero fields take defaults.
	Limits Limits
	// Logger receives faults blamed on the server and recovered panics.
	Logger *slog.Logger
}

// Handler serves SOAP 1.1 rpc/encoded requests (POST only).
type Handler struct {
	dec      *Decoder
	respNS   string
	maxBytes int64
	log      *slog.Logger
	bufs     sync.Pool
}

// DefaultMaxRequestBytes is the request size limit when none is configured:
// room for a user-submitted algorithm (the largest shipped one is ~190 KB)
// and hundreds of sequences.
const DefaultMaxRequestBytes = 8 << 20

// maxPooledBuffer is the largest response buffer kept for reuse.
const maxPooledBuffer = 1 << 20

// NewHandler checks the dispatch table and returns the handler.
func NewHandler(cfg HandlerConfig) (*Handler, error) {
	if cfg.RequestNamespace == "" {
		return nil, errors.New("soap: RequestNamespace is required")
	}
	if cfg.ResponseNamespace == "" {
		return nil, errors.New("soap: ResponseNamespace is required")
	}
	maxBytes := cfg.MaxRequestBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxRequestBytes
	}
	limits := cfg.Limits
	if limits.MaxTextBytes <= 0 {
		// References may share text, never multiply it past what a request
		// without them could carry.
		limits.MaxTextBytes = int(maxBytes)
	}
	dec, err := NewDecoder(cfg.Operations, cfg.RequestNamespace, limits)
	if err != nil {
		return nil, fmt.Errorf("soap: %w", err)
	}
	h := &Handler{dec: dec, respNS: cfg.ResponseNamespace, maxBytes: maxBytes, log: cfg.Logger}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.bufs.New = func() any { return new(bytes.Buffer) }
	return h, nil
}

type requestKey struct{}

// RequestFromContext is the HTTP request being served, for implementations
// that need the client's address; nil outside a Handler.
func RequestFromContext(ctx context.Context) *http.Request {
	r, _ := ctx.Value(requestKey{}).(*http.Request)
	return r
}

// ServeHTTP decodes the call, invokes the implementation and writes the
// response or a fault (HTTP 500, as SOAP 1.1 over HTTP requires).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "SOAP requests are POSTed; the WSDL is at ?wsdl", http.StatusMethodNotAllowed)
		return
	}
	buf := h.bufs.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		// A buffer that grew for a large report is left to the collector rather than
		// kept: the pool would hold tens of MiB per P for as long as it lives.
		if buf.Cap() <= maxPooledBuffer {
			h.bufs.Put(buf)
		}
	}()
	// A panic anywhere in decoding, the implementation or encoding still
	// answers a Server fault (nothing has been written before the end).
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p) // a streamed response failed part-way: cut the connection
			}
			h.log.Error("soap: panic while serving a request", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			buf.Reset()
			h.writeFault(w, r, buf, ServerFault("internal error while processing the request"))
		}
	}()

	body := http.MaxBytesReader(w, r.Body, h.maxBytes)
	call, err := h.dec.Decode(body)
	if err != nil {
		h.writeFault(w, r, buf, err)
		return
	}
	results, err := h.invoke(context.WithValue(r.Context(), requestKey{}, r), call)
	if err != nil {
		h.writeFault(w, r, buf, err)
		return
	}
	if resultBytes(results) >= streamFrom {
		h.stream(w, call, results)
		return
	}
	if err := EncodeResponse(buf, call.Operation, h.respNS, results); err != nil {
		buf.Reset()
		h.writeFault(w, r, buf, fmt.Errorf("encoding the response: %w", err))
		return
	}
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

// streamFrom is the size of results from which the response is written to the connection
// as it is encoded rather than built whole first: a 16 MiB report escaped into an envelope
// would otherwise be held twice.
const streamFrom = 1 << 20

// resultBytes is the size of the text in results (strings, and strings in arrays).
func resultBytes(results []any) int {
	n := 0
	for _, r := range results {
		switch v := r.(type) {
		case string:
			n += len(v)
		case []any:
			n += resultBytes(v)
		case []string:
			for _, s := range v {
				n += len(s)
			}
		}
	}
	return n
}

// stream writes a large response through a buffered writer on the connection. The status
// is sent before encoding, so an encoding error (a result that does not match its part's
// type: the implementation's fault) cuts the connection instead of ending the body
// normally: the client cannot take a truncated envelope for a whole one.
func (h *Handler) stream(w http.ResponseWriter, call *Call, results []any) {
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := EncodeResponse(bw, call.Operation, h.respNS, results); err != nil {
		h.log.Error("soap: encoding a streamed response", "operation", call.Operation.Name, "error", err.Error())
		panic(http.ErrAbortHandler)
	}
	_ = bw.Flush() // a client that went away: nothing more to do
}

// invoke calls the implementation, turning a panic into an error.
func (h *Handler) invoke(ctx context.Context, call *Call) (results []any, err error) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p) // a streamed response failed part-way: cut the connection
			}
			h.log.Error("soap: panic in operation", "operation", call.Operation.Name, "method", call.Operation.Method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			results, err = nil, fmt.Errorf("panic in %s: %v", call.Operation.Method, p)
		}
	}()
	return call.Operation.Invoke(ctx, call.Args)
}

func (h *Handler) writeFault(w http.ResponseWriter, r *http.Request, buf *bytes.Buffer, err error) {
	var f *Fault
	if !errors.As(err, &f) {
		h.log.Error("soap: operation failed", "error", err.Error(), "path", r.URL.Path)
		f = ServerFault("internal error while processing the request")
	} else if f.Code == FaultServer {
		h.log.Warn("soap: server fault", "fault", f.String)
	}
	EncodeFault(buf, f)
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write(buf.Bytes())
}
