package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

type requestInfoKey struct{}

// requestInfo is what the middleware learns about a request while it is
// served: its id and the service that answered it.
type requestInfo struct {
	id      string
	service string
	// writeDeadline is when the connection stops taking the response
	// (the start plus --write-timeout, or what ExtendWriteDeadline set);
	// zero when there is none. A response finished after it is lost.
	writeDeadline time.Time
	controller    *http.ResponseController
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
	if !ok || info.controller == nil || info.writeDeadline.IsZero() {
		return nil
	}
	d = min(d, MaxWriteDeadline)
	deadline := time.Now().Add(d)
	if !deadline.After(info.writeDeadline) {
		return nil
	}
	if err := info.controller.SetWriteDeadline(deadline); err != nil {
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

func setService(ctx context.Context, name string) {
	if info, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		info.service = name
	}
}

// An incoming X-Request-Id is kept when it is short and plain, so ids can be
// followed across proxies without letting clients write arbitrary log text.
var plainRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
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
	return m
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
// and one log line.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &requestInfo{id: r.Header.Get("X-Request-Id"), service: "server"}
		if !plainRequestID.MatchString(info.id) {
			info.id = newRequestID()
		}
		// A handler reading the header sees the id that is logged, not a
		// refused client value. One value slice serves both headers (a
		// field is replaced, never edited in place).
		idValue := []string{info.id}
		w.Header()["X-Request-Id"] = idValue
		r.Header["X-Request-Id"] = idValue
		rec := &statusRecorder{ResponseWriter: w}
		if s.cfg.WriteTimeout > 0 {
			// net/http set the connection's write deadline when it read the
			// request headers, just before this.
			info.writeDeadline = start.Add(s.cfg.WriteTimeout)
			info.controller = http.NewResponseController(rec)
		}
		r = r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, info))

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
			// A response finished past the write deadline never reaches the
			// client whole (net/http drops what it still buffers), and one
			// whose writing failed was cut: both are logged as aborted, with
			// the reason.
			cut := ""
			switch {
			case !info.writeDeadline.IsZero() && time.Now().After(info.writeDeadline):
				cut = "the response was finished after the write deadline (--write-timeout)"
			case rec.writeErr != nil:
				cut = "writing the response failed: " + rec.writeErr.Error()
			}
			abort = abort || cut != ""
			elapsed := time.Since(start)
			s.metrics.requests.WithLabelValues(info.service, methodLabel(r.Method), strconv.Itoa(status)).Inc()
			s.metrics.duration.WithLabelValues(info.service).Observe(elapsed.Seconds())
			level := slog.LevelInfo
			if status >= 500 {
				level = slog.LevelError
			}
			s.cfg.Logger.LogAttrs(r.Context(), level, "request",
				slog.String("request_id", info.id),
				slog.String("service", info.service),
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
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
		next.ServeHTTP(rec, r)
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
