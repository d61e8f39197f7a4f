package hours_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/hours"
)

// benchService is the service over the sample data in SQLite.
func benchService(b *testing.B, refresh time.Duration) *hours.Service {
	b.Helper()
	svc, err := hours.New(context.Background(), hours.Config{
		BaseURL:    "http://localhost:8080/hours",
		DB:         filepath.Join(b.TempDir(), "hours.db"),
		SampleData: true,
		Now:        func() time.Time { return testNow },
		Refresh:    refresh,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Close() })
	return svc
}

// precomputed serves body with the headers the service sends: the
// baseline of "the same bytes, nothing computed".
func precomputed(b *testing.B, svc http.Handler, path string) http.Handler {
	b.Helper()
	rec := httptest.NewRecorder()
	svc.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		b.Fatalf("GET %s: %d", path, rec.Code)
	}
	body := rec.Body.Bytes()
	etag, ct := rec.Header().Get("ETag"), rec.Header().Get("Content-Type")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", ct)
		h.Set("ETag", etag)
		h.Set("Cache-Control", "public, max-age=60")
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	})
}

// sideBySide times the service and the precomputed baseline in alternation
// (so both see the same machine load) and reports each one's time per
// request and the throughput ratio service/baseline.
func sideBySide(b *testing.B, svc, baseline func() int) {
	b.Helper()
	var tSvc, tBase time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		n1 := svc()
		t1 := time.Now()
		n2 := baseline()
		t2 := time.Now()
		if n1 != n2 {
			b.Fatalf("service sent %d bytes, baseline %d", n1, n2)
		}
		tSvc += t1.Sub(t0)
		tBase += t2.Sub(t1)
	}
	b.StopTimer()
	b.ReportMetric(float64(tSvc.Nanoseconds())/float64(b.N), "service-ns/req")
	b.ReportMetric(float64(tBase.Nanoseconds())/float64(b.N), "precomputed-ns/req")
	b.ReportMetric(float64(tBase)/float64(tSvc), "throughput-ratio")
}

func inProcess(h http.Handler, path string) func() int {
	return func() int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			panic("status " + strconv.Itoa(rec.Code))
		}
		return rec.Body.Len()
	}
}

func overHTTP(b *testing.B, h http.Handler, path string) func() int {
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	client := srv.Client()
	return func() int {
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		return int(n)
	}
}

func benchPath(b *testing.B, path string) {
	for _, mode := range []struct {
		name    string
		refresh time.Duration
	}{{"cached", 0}, {"uncached", -1}} {
		svc := benchService(b, mode.refresh)
		base := precomputed(b, svc.Handler(), path)
		b.Run(mode.name+"/handler", func(b *testing.B) {
			sideBySide(b, inProcess(svc.Handler(), path), inProcess(base, path))
		})
		b.Run(mode.name+"/http", func(b *testing.B) {
			sideBySide(b, overHTTP(b, svc.Handler(), path), overHTTP(b, base, path))
		})
	}
}

// BenchmarkLibrariesJSON is GET /libraries.json (every library and
// location, this week) against serving the same bytes precomputed.
// "cached" is the service as deployed; "uncached" (Refresh < 0) reads the
// database and renders the document on every request.
func BenchmarkLibrariesJSON(b *testing.B) { benchPath(b, "/libraries.json") }

// BenchmarkLibrariesThreeMonths is GET /libraries.json over three months.
func BenchmarkLibrariesThreeMonths(b *testing.B) {
	benchPath(b, "/libraries.json?from=2026-03-01&to=2026-05-31")
}
