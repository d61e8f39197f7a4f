package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// requestLine is the "request" log line of path in logs.
func requestLine(t *testing.T, logs *testkit.LogBuffer, path string) map[string]any {
	t.Helper()
	// The line is written when the handler returns, which a client that saw its
	// connection close may not wait for.
	for range 100 {
		for _, line := range strings.Split(logs.String(), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "request" && rec["path"] == path {
				return rec
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no request line for %s in\n%s", path, logs.String())
	return nil
}

// A response finished after --write-timeout is lost: it is logged as aborted (it used to
// be logged 200 with aborted:false); work that extends its own write deadline
// (ExtendWriteDeadline, as heavy SOAP requests do) is answered whole.
func TestWriteTimeoutCutIsLoggedAndExtendable(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	var closed atomic.Bool
	svc := funcService{name: "work", closed: &closed, h: func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/long" {
			if err := ExtendWriteDeadline(r.Context(), 10*time.Second); err != nil {
				t.Error(err)
			}
		}
		time.Sleep(2 * timeout)
		io.WriteString(w, strings.Repeat("done ", 2000))
	}}
	logs := &testkit.LogBuffer{}
	s, err := New(Config{Mounts: []Mount{{Path: "/w", Service: svc}}, WriteTimeout: timeout, ShutdownTimeout: time.Second,
		Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	addr := testkit.ServeLoopback(t, s.Serve)
	get := func(path string) (string, error) {
		resp, err := http.Get("http://" + addr + "/w" + path)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}

	if body, err := get("/short"); err == nil && len(body) == 10000 {
		t.Errorf("a response finished after the write timeout reached the client whole")
	}
	if rec := requestLine(t, logs, "/w/short"); rec["aborted"] != true {
		t.Errorf("the cut response is logged %v", rec)
	}
	body, err := get("/long")
	if err != nil || len(body) != 10000 {
		t.Errorf("with an extended deadline: %d bytes, %v", len(body), err)
	}
	if rec := requestLine(t, logs, "/w/long"); rec["aborted"] != false || rec["status"] != float64(200) {
		t.Errorf("the extended response is logged %v", rec)
	}
}
