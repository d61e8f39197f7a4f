package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// funcService serves with a given handler.
type funcService struct {
	name   string
	h      http.HandlerFunc
	closed *atomic.Bool
}

func (f funcService) Name() string                { return f.name }
func (f funcService) Ready(context.Context) error { return nil }
func (f funcService) Handler() http.Handler       { return f.h }
func (f funcService) IndexLinks() []Link {
	return []Link{{Title: `<script>alert("t")</script>`, URL: `javascript:alert(1)`}}
}
func (f funcService) Close() error {
	if f.closed != nil {
		f.closed.Store(true)
	}
	return nil
}

// echoRaw answers with the path as the service sees it, encoded.
func echoRaw(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.EscapedPath()) }

func TestEncodedPathsAndMounts(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, io.Discard, Mount{Path: "/purl", Service: funcService{name: "purl", h: echoRaw}})
	for path, want := range map[string]string{
		"/purl/a%2Fb":     "/a%2Fb",
		"/purl/a%20b":     "/a%20b",
		"/purl/%70x":      "/px", // an encoded letter is the letter
		"/purl/x%2F..%2F": "/x%2F..%2F",
	} {
		rec := get(t, s.Handler(), "GET", path, nil)
		if rec.Code != 200 || rec.Body.String() != want {
			t.Errorf("GET %s = %d %q, want 200 %q", path, rec.Code, rec.Body.String(), want)
		}
	}
	// "/purl%2Fx" is a single segment at the root, not "/x" under /purl.
	if rec := get(t, s.Handler(), "GET", "/%70url/x", nil); rec.Body.String() != "/x" {
		t.Errorf("GET /%%70url/x = %q, want /x under /purl", rec.Body.String())
	}
	for _, path := range []string{"/purl%2Fx", "/purl%2F", "/purl%2fx"} {
		if rec := get(t, s.Handler(), "GET", path, nil); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d %q, want 404", path, rec.Code, rec.Body.String())
		}
	}
}

func TestRootMountServesAllButProcessEndpoints(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, io.Discard,
		Mount{Path: "", Service: funcService{name: "purl", h: echoRaw}},
		Mount{Path: "/embed", Service: funcService{name: "embed", h: echoRaw}},
	)
	for path, want := range map[string]string{"/embed/x": "/x", "/embedx": "/embedx", "/healthz/x": "/healthz/x", "/a%2Fb": "/a%2Fb"} {
		if rec := get(t, s.Handler(), "GET", path, nil); rec.Body.String() != want {
			t.Errorf("GET %s = %q, want %q", path, rec.Body.String(), want)
		}
	}
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		if rec := get(t, s.Handler(), "GET", path, nil); rec.Code != 200 || rec.Body.String() == path {
			t.Errorf("GET %s went to the root service (%d %q)", path, rec.Code, rec.Body.String())
		}
	}
}

func TestSamePathDifferentHostRefusedClearly(t *testing.T) {
	t.Parallel()
	_, err := New(Config{Mounts: []Mount{
		{Path: "", BaseURL: "http://purl.example", Service: pathService{name: "purl"}},
		{Path: "", BaseURL: "http://embed.example", Service: pathService{name: "embed"}},
	}})
	if err == nil || !strings.Contains(err.Error(), "purl") || !strings.Contains(err.Error(), "embed") {
		t.Fatalf("two services at the root of different hosts: %v", err)
	}
}

func TestMethodLabelBounded(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, io.Discard, Mount{Path: "/purl", Service: pathService{name: "purl"}})
	for i := range 20 {
		get(t, s.Handler(), "X"+strings.Repeat("Y", i), "/purl/x", nil)
	}
	m := get(t, s.Handler(), "GET", "/metrics", nil).Body.String()
	if strings.Contains(m, `method="XY`) {
		t.Errorf("client-chosen methods became labels")
	}
	if !strings.Contains(m, `sitesvc_http_requests_total{code="200",method="other",service="purl"} 20`) {
		t.Errorf("unknown methods not counted as other:\n%s", m)
	}
}

func TestIndexEscapes(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, io.Discard, Mount{Path: "/x", BaseURL: `http://e.test/x"><b>`, Service: funcService{name: "x", h: echoRaw}})
	idx := get(t, s.Handler(), "GET", "/", nil).Body.String()
	for _, bad := range []string{"<script>alert", `href="javascript:`, `"><b>`} {
		if strings.Contains(idx, bad) {
			t.Errorf("index page carries %q unescaped", bad)
		}
	}
}

// A panic after the response has started cannot become a 500; the
// connection is cut so the client cannot take the short body for a whole
// one, and the request is still logged once.
func TestPanicAfterPartialResponseAbortsConnection(t *testing.T) {
	t.Parallel()
	var logs testkit.LogBuffer
	s := newTestServer(t, &logs, Mount{Path: "/p", Service: funcService{name: "p", h: func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		panic("late boom")
	}}})
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Config.ErrorLog = slog.NewLogLogger(slog.DiscardHandler, slog.LevelError)
	ts.Start()
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/p/x")
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Fatal("the client read a complete response from a handler that panicked mid-way")
	}
	if n := strings.Count(logs.String(), `"msg":"request"`); n != 1 || !strings.Contains(logs.String(), `"aborted":true`) || !strings.Contains(logs.String(), "late boom") {
		t.Errorf("%d request lines; logs:\n%s", n, logs.String())
	}
}

// Past --shutdown-timeout, the remaining requests are cut off, the services
// are closed anyway, and Serve reports it.
func TestShutdownTimeoutExceeded(t *testing.T) {
	t.Parallel()
	var closed atomic.Bool
	started := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	svc := funcService{name: "slow", closed: &closed, h: func(w http.ResponseWriter, r *http.Request) {
		close(started)
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
	}}
	s, err := New(Config{Mounts: []Mount{{Path: "/slow", Service: svc}}, ShutdownTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	clientErr := make(chan error, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/slow/x")
		if err == nil {
			resp.Body.Close()
		}
		clientErr <- err
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "did not finish") {
			t.Errorf("Serve = %v, want a shutdown timeout error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve still running 5 s after a 100 ms shutdown timeout")
	}
	if !closed.Load() {
		t.Error("service not closed after the shutdown timeout")
	}
	if err := <-clientErr; err == nil {
		t.Error("the cut-off request looked complete to the client")
	}
	// New connections are refused once shut down.
	if c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		c.Close()
		t.Error("listener still accepts after shutdown")
	}
}

// A slow client sending headers byte by byte is dropped by the header
// timeout rather than holding a connection.
func TestSlowHeadersDropped(t *testing.T) {
	t.Parallel()
	s, err := New(Config{Mounts: []Mount{{Path: "/p", Service: pathService{name: "p"}}}, ReadTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", testkit.ServeLoopback(t, s.Serve))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET /p/x HTTP/1.1\r\nHost: x\r\n")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = bufio.NewReader(c).ReadByte()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("connection with unfinished headers still open after 5 s (read timeout 200 ms)")
	}
}

func TestRefusedRequestIDReplacedForHandlers(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := newTestServer(t, &logs, Mount{Path: "/p", Service: funcService{name: "p", h: func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Header.Get("X-Request-Id")+" "+RequestID(r.Context()))
	}}})
	req := httptest.NewRequest("GET", "/p/x", nil)
	req.Header.Set("X-Request-Id", "forged\nlevel=ERROR")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	id := rec.Header().Get("X-Request-Id")
	if rec.Body.String() != id+" "+id || strings.Contains(logs.String(), "forged") {
		t.Errorf("handler saw %q, response id %q; logs %s", rec.Body.String(), id, logs.String())
	}
}

// stuckService's readiness check never returns.
type stuckService struct{ pathService }

func (stuckService) Ready(context.Context) error { select {} }

func TestReadyzBoundedByItsDeadline(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, io.Discard,
		Mount{Path: "/a", Service: stuckService{pathService{name: "stuck"}}},
		Mount{Path: "/b", Service: pathService{name: "fine"}},
	)
	s.readyTimeout = 300 * time.Millisecond
	start := time.Now()
	rec := get(t, s.Handler(), "GET", "/readyz", nil)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "stuck: no answer") || strings.Contains(rec.Body.String(), "fine") {
		t.Errorf("/readyz = %d %q", rec.Code, rec.Body.String())
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("/readyz took %v with a 300 ms deadline", d)
	}
}

// An Early Hints answer is not the request's status; bytes sent through
// ReadFrom (file serving) are counted.
func TestStatusRecorderFinalStatusAndReadFrom(t *testing.T) {
	t.Parallel()
	var logs testkit.LogBuffer
	s := newTestServer(t, &logs, Mount{Path: "/p", Service: funcService{name: "p", h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.WriteHeader(http.StatusNotFound)
		io.Copy(w, strings.NewReader(strings.Repeat("x", 300)))
	}}})
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/p/x")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("status %d", resp.StatusCode)
	}
	ts.Close() // the log line is written before the handler returns
	if l := logs.String(); !strings.Contains(l, `"status":404`) || !strings.Contains(l, `"bytes":300`) {
		t.Errorf("log line: %s", l)
	}
	wantMetric(t, s, `sitesvc_http_requests_total{code="404",method="GET",service="p"} 1`)
}

// What a service logs with the request's context carries the request id,
// once, as does the request line.
func TestServiceLogsCarryRequestID(t *testing.T) {
	t.Parallel()
	var logs testkit.LogBuffer
	logger := slog.New(WithRequestIDs(slog.NewJSONHandler(&logs, nil)))
	s, err := New(Config{Logger: logger, Mounts: []Mount{{Path: "/p", Service: funcService{name: "p", h: func(w http.ResponseWriter, r *http.Request) {
		logger.WarnContext(r.Context(), "store slow")
		logger.Info("no context")
	}}}}})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/p/x", nil)
	req.Header.Set("X-Request-Id", "abc-123")
	s.Handler().ServeHTTP(httptest.NewRecorder(), req)
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d log lines:\n%s", len(lines), logs.String())
	}
	for i, want := range []int{1, 0, 1} {
		if n := strings.Count(lines[i], `"request_id":"abc-123"`); n != want {
			t.Errorf("line %d has the request id %d times, want %d: %s", i, n, want, lines[i])
		}
	}
}
