package server

import (
	"io"
	"log/slog"
	"net/http"
	"syscall"
	"testing"
	"time"
)

// benchWriter is a ResponseWriter that drops what it is sent, so the
// benchmark measures the server's own work per request.
type benchWriter struct {
	h      http.Header
	status int
}

func (w *benchWriter) Header() http.Header         { return w.h }
func (w *benchWriter) WriteHeader(code int)        { w.status = code }
func (w *benchWriter) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkMiddleware is the process-wide part of every request (request
// id, in-flight gauge, mount, status recording, metrics, the request log
// line, written as text to a discarding writer) around a service that
// writes a fixed answer, against that service alone with the same log line
// (what BenchmarkEdge's bare server does). ratio = bare ns ÷ server ns,
// the two alternated in one loop.
func BenchmarkMiddleware(b *testing.B) {
	body := []byte(`{"data":{"type":"locations","id":"stacks"}}`)
	answer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/vnd.api+json")
		h.Set("ETag", `"abc"`)
		w.Write(body)
	})
	logger := slog.New(WithRequestIDs(slog.NewTextHandler(io.Discard, nil)))
	s, err := New(Config{Mounts: []Mount{{Path: "/hours", Service: funcService{name: "hours", h: answer}}}, Logger: logger})
	if err != nil {
		b.Fatal(err)
	}
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		answer(w, r)
		logger.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("request_id", "0123456789abcdef"),
			slog.String("service", "bare"),
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", http.StatusOK),
			slog.Int("bytes", len(body)),
			slog.Duration("duration", time.Since(start)),
			slog.String("remote", r.RemoteAddr),
			slog.Bool("aborted", false),
		)
	})
	req, err := http.NewRequest(http.MethodGet, "/hours/libraries/green/locations/stacks.json", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.RemoteAddr = "127.0.0.1:40000"
	serve := func(b *testing.B, h http.Handler) {
		w := &benchWriter{h: http.Header{}}
		h.ServeHTTP(w, req)
		if w.status != 0 && w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
	b.Run("server", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serve(b, s.Handler())
		}
	})
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serve(b, bare)
		}
	})
	// ratio alternates chunks of the two and compares the process's CPU
	// time spent on each (user + system, GC included), which other
	// processes on a shared machine move less than elapsed time.
	b.Run("ratio", func(b *testing.B) {
		const chunk = 256
		var cpuServer, cpuBare time.Duration
		for b.Loop() {
			t0 := processCPU(b)
			for range chunk {
				serve(b, s.Handler())
			}
			t1 := processCPU(b)
			for range chunk {
				serve(b, bare)
			}
			cpuServer += t1 - t0
			cpuBare += processCPU(b) - t1
		}
		b.ReportMetric(float64(cpuServer.Nanoseconds())/float64(b.N*chunk), "server-cpu-ns/req")
		b.ReportMetric(float64(cpuBare.Nanoseconds())/float64(b.N*chunk), "bare-cpu-ns/req")
		b.ReportMetric(float64(cpuBare)/float64(cpuServer), "ratio")
	})
}

// processCPU is the process's user plus system CPU time so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
