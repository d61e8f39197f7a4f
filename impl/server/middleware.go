package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

type requestInfoKey struct{}

// requestInfo is what the middleware learns about a request while it is
// served: its id and the service that answered it.
type requestInfo struct {
	id string
	// mount is the metrics of the service that answered, or the
	// process's own ("server": /healthz, /metrics, the index page and
	// unknown paths).
	mount *mountMetrics
	// writeDeadline is when the connection stops taking the response
	// (the start plus --write-timeout, or what ExtendWriteDeadline set);
	// zero when there is none. A response finished after it is lost.
	writeDeadline time.Time
	// writer is the response's writer, for ExtendWriteDeadline's
	// http.ResponseController (made only when it is called).
	writer http.ResponseWriter
}

// requestState is everything the middleware keeps for one request, in
// one allocation: the request's info, the context that carries it, the
// recorder of its response, its id header value and the URL handed to a
// service (its path without the base path).
type requestState struct {
	info    requestInfo
	ctx     requestContext
	rec     statusRecorder
	idValue [1]string
	url     url.URL
}

// requestContext is the request's context with its requestInfo: a value
// context of its own, so that it lives in requestState instead of an
// allocation of context.WithValue. Every other key, and cancellation, is
// the parent's.
type requestContext struct {
	context.Context
	info *requestInfo
}

func (c *requestContext) Value(key any) any {
	if _, ok := key.(requestInfoKey); ok {
		return c.info
	}
	return c.Context.Value(key)
}

// MaxWriteDeadline bounds how far ExtendWriteDeadline moves a request's write deadline.
const MaxWriteDeadline = 30 * time.Minute

// ExtendWriteDeadline gives the request in ctx until d from now to finish writing its
// response, for work known to run long (a heavy SOAP request, a pyramid build): past the
// server's --write-timeout the connection would drop the response while the work still
// finished. d is at most MaxWriteDeadline; a deadline is never moved earlier. Outside a
// request served by Server it does nothing.
func ExtendWriteDeadline(ctx context.Context, d time.Duration) error {
	info, ok := ctx.Value(requestInfoKey{}).(*requestInfo)
	if !ok || info.writer == nil || info.writeDeadline.IsZero() {
		return nil
	}
	d = min(d, MaxWriteDeadline)
	deadline := time.Now().Add(d)
	if !deadline.After(info.writeDeadline) {
		return nil
	}
	if err := http.NewResponseController(info.writer).SetWriteDeadline(deadline); err != nil {
		return fmt.Errorf("server: extending the write deadline: %w", err)
	}
	info.writeDeadline = deadline
	return nil
}

// RequestID returns the id the server gave the request in ctx ("" outside a
// request). It is also sent back in the X-Request-Id header.
func RequestID(ctx context.Context) string {
	if info, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		return info.id
	}
	return ""
}

// plainRequestID reports whether an incoming X-Request-Id is kept: short
// and plain ([A-Za-z0-9._-], 1 to 64 bytes), so ids can be followed
// across proxies without letting clients write arbitrary log text.
func plainRequestID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
	// process is the metrics of requests the process answers itself.
	process *mountMetrics
}

// mountMetrics is one service's metrics, its label values looked up once:
// the duration histogram when the server is built, each (method, status)
// counter the first time it is met, instead of on every request.
type mountMetrics struct {
	service  string
	duration prometheus.Observer
	vec      *prometheus.CounterVec

	mu       sync.RWMutex
	requests map[requestLabels]prometheus.Counter
}

// requestLabels are a request counter's labels besides the service.
type requestLabels struct {
	method string // methodLabel's, so the map stays bounded
	code   int
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sitesvc_http_requests_total",
			Help: "HTTP requests answered, by service, method and status code.",
		}, []string{"service", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sitesvc_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests, by service.",
			Buckets: prometheus.DefBuckets,
		}, []string{"service"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "sitesvc_http_requests_in_flight",
			Help: "HTTP requests being answered now.",
		}),
	}
	reg.MustRegister(m.requests, m.duration, m.inFlight)
	m.process = m.forService("server")
	return m
}

// forService is the metrics of the named service.
func (m *httpMetrics) forService(name string) *mountMetrics {
	return &mountMetrics{
		service:  name,
		duration: m.duration.WithLabelValues(name),
		vec:      m.requests,
		requests: map[requestLabels]prometheus.Counter{},
	}
}

// count counts one answered request.
func (mm *mountMetrics) count(method string, code int) {
	l := requestLabels{method: methodLabel(method), code: code}
	mm.mu.RLock()
	c, ok := mm.requests[l]
	mm.mu.RUnlock()
	if !ok {
		// Status codes are three digits (net/http refuses others), so
		// the map holds at most methods × 900 counters per service.
		c = mm.vec.WithLabelValues(mm.service, l.method, strconv.Itoa(code))
		mm.mu.Lock()
		mm.requests[l] = c
		mm.mu.Unlock()
	}
	c.Inc()
}

// statusRecorder remembers the status and size of a response.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	// writeErr is the first error writing the response met (the client went
	// away, the write deadline passed): the response was cut.
	writeErr error
}

func (r *statusRecorder) WriteHeader(code int) {
	// An informational answer (103 Early Hints) precedes the real one;
	// 101 Switching Protocols is final.
	if r.status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

// ReadFrom keeps the underlying writer's ReadFrom (sendfile for files served
// with io.Copy or http.ServeContent) while counting the bytes.
func (r *statusRecorder) ReadFrom(src io.Reader) (int64, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	var n int64
	var err error
	if rf, ok := r.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(src)
	} else {
		n, err = io.Copy(struct{ io.Writer }{r.ResponseWriter}, src)
	}
	r.bytes += n
	if err != nil && r.writeErr == nil {
		r.writeErr = err
	}
	return n, err
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	if err != nil && r.writeErr == nil {
		r.writeErr = err
	}
	return n, err
}

// Unwrap lets http.ResponseController reach Flush and deadlines.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush passes flushes through (streamed responses).
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// middleware wraps every request: id, body limit, panic recovery, metrics
// and one log line. next serves the request copy it is handed, whose
// context carries the request's info; r is the middleware's own copy, so
// next may change it in place (the mount dispatch sets its URL to st.url).
func (s *Server) middleware(next func(w http.ResponseWriter, r *http.Request, st *requestState)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		st := &requestState{}
		info := &st.info
		info.mount = s.metrics.process
		// "X-Request-Id" is canonical: reading the map is Header.Get
		// without canonicalising on every request.
		if ids := r.Header["X-Request-Id"]; len(ids) > 0 && plainRequestID(ids[0]) {
			info.id = ids[0]
		} else {
			info.id = newRequestID()
		}
		// A handler reading the header sees the id that is logged, not a
		// refused client value. One value slice serves both headers (a
		// field is replaced, never edited in place).
		st.idValue[0] = info.id
		idValue := st.idValue[:]
		w.Header()["X-Request-Id"] = idValue
		r.Header["X-Request-Id"] = idValue
		rec := &st.rec
		rec.ResponseWriter = w
		if s.cfg.WriteTimeout > 0 {
			// net/http set the connection's write deadline when it read the
			// request headers, just before this.
			info.writeDeadline = start.Add(s.cfg.WriteTimeout)
			info.writer = rec
		}
		st.ctx = requestContext{Context: r.Context(), info: info}
		// The one copy of the request, which next may change (the mount
		// dispatch sets its URL).
		r = r.WithContext(&st.ctx)
		// The path as received, for the log line (next may change r.URL).
		path := r.URL.Path

		s.metrics.inFlight.Inc()
		defer func() {
			s.metrics.inFlight.Dec()
			// abort is set when the response cannot be completed: the
			// connection is then closed (by re-panicking with
			// http.ErrAbortHandler once the request is logged), so the client
			// sees a broken response rather than a short one that looks whole.
			var abort bool
			if p := recover(); p != nil {
				if p != http.ErrAbortHandler {
					s.cfg.Logger.ErrorContext(r.Context(), "panic serving request",
						"request_id", info.id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				}
				if rec.status == 0 && p != http.ErrAbortHandler {
					http.Error(rec, "internal server error (request "+info.id+")", http.StatusInternalServerError)
				} else {
					abort = true
					if rec.status == 0 {
						rec.status = http.StatusInternalServerError
					}
				}
			}
			status := rec.status
			if status == 0 {
				status = http.StatusOK
			}
			end := time.Now()
			// A response finished past the write deadline never reaches the
			// client whole (net/http drops what it still buffers), and one
			// whose writing failed was cut: both are logged as aborted, with
			// the reason.
			cut := ""
			switch {
			case !info.writeDeadline.IsZero() && end.After(info.writeDeadline):
				cut = "the response was finished after the write deadline (--write-timeout)"
			case rec.writeErr != nil:
				cut = "writing the response failed: " + rec.writeErr.Error()
			}
			abort = abort || cut != ""
			elapsed := end.Sub(start)
			info.mount.count(r.Method, status)
			info.mount.duration.Observe(elapsed.Seconds())
			level := slog.LevelInfo
			if status >= 500 {
				level = slog.LevelError
			}
			s.cfg.Logger.LogAttrs(r.Context(), level, "request",
				slog.String("request_id", info.id),
				slog.String("service", info.mount.service),
				slog.String("method", r.Method),
				slog.String("path", path),
				slog.Int("status", status),
				slog.Int64("bytes", rec.bytes),
				slog.Duration("duration", elapsed),
				slog.String("remote", r.RemoteAddr),
				slog.Bool("aborted", abort),
			)
			if cut != "" {
				s.cfg.Logger.LogAttrs(r.Context(), slog.LevelWarn, "response cut",
					slog.String("request_id", info.id), slog.String("reason", cut), slog.Duration("duration", elapsed))
			}
			if abort {
				panic(http.ErrAbortHandler)
			}
		}()

		if r.ContentLength > s.cfg.MaxBodyBytes {
			http.Error(rec, fmt.Sprintf("request body too large (limit %d bytes)", s.cfg.MaxBodyBytes), http.StatusRequestEntityTooLarge)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(rec, r.Body, s.cfg.MaxBodyBytes)
		}
		next(rec, r, st)
	})
}

// methodLabel is the method as a metrics label: clients may send any token
// as a method, so anything but the standard methods counts as "other" (the
// label set stays bounded).
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}
