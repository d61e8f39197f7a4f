package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// BenchmarkEdgeGoClient is BenchmarkEdge's comparison driven by Go's
// http.Client instead of wrk. It is kept, labelled, beside the wrk figure
// because it shows what a Go client of the services sees; as a measure of
// the servers it is weak: the client saturates first (about 38k requests/s
// against a bare server that answers 90k/s under wrk), which pulls both
// sides' throughput toward the client's and the ratio toward 1.
//
// It runs the real sitesvc binary against a bare net/http server answering
// the same bytes (the binary's headers, but Date, and body), both separate
// processes with GOMAXPROCS=1 and one log line per request, over loopback,
// alternating between the two in rounds so that the shared machine's noise
// falls on both. It reports, per endpoint, each side's requests per second
// and ratio = the binary's throughput ÷ the bare server's.
//
// Bounded: a fixed number of requests per side and endpoint (see the
// constants below), edgeConns keep-alive connections, 127.0.0.1 only.
func BenchmarkEdgeGoClient(b *testing.B) {
	b.Setenv("GOMAXPROCS", "1") // read by the two server processes only
	srv := testkit.StartServer(b)
	purlBase := srv.URL + "/purl/"
	endpoints := edgeEndpoints(purlBase)
	client := edgeClient()
	answers := edgeAnswers(b, client, srv, endpoints)
	bareSrv := startBare(b, answers)

	for i, ep := range endpoints {
		want := answers[i]
		// Warm both (caches, connections) before timing.
		edgeLoad(b, client, srv.URL+ep.path, ep, want, edgeWarmup)
		edgeLoad(b, client, bareSrv.url+ep.path, ep, want, edgeWarmup)
		b.Run(ep.name, func(b *testing.B) {
			// edgeRounds alternating rounds of edgePerRound requests to
			// each side, whatever b.N (the comparison is the measurement;
			// it takes longer than the default -benchtime, so it runs
			// once). The ratio is the median of the rounds' ratios, so a
			// burst of another process's work on the shared machine
			// moves it less.
			per := edgePerRound
			var tBin, tBare time.Duration
			cpuBin0, cpuBare0 := cpuTicks(srv.Pid()), cpuTicks(bareSrv.pid)
			ratios := make([]float64, 0, edgeRounds)
			for r := 0; r < edgeRounds; r++ {
				var bin, bare time.Duration
				if r%2 == 0 {
					bin = edgeLoad(b, client, srv.URL+ep.path, ep, want, per)
					bare = edgeLoad(b, client, bareSrv.url+ep.path, ep, want, per)
				} else {
					bare = edgeLoad(b, client, bareSrv.url+ep.path, ep, want, per)
					bin = edgeLoad(b, client, srv.URL+ep.path, ep, want, per)
				}
				tBin, tBare = tBin+bin, tBare+bare
				ratios = append(ratios, bare.Seconds()/bin.Seconds())
			}
			cpuBin, cpuBare := cpuTicks(srv.Pid())-cpuBin0, cpuTicks(bareSrv.pid)-cpuBare0
			if cpuBin > 0 && cpuBare > 0 {
				// The servers' own CPU per request (user + system, all
				// threads), steadier than throughput on a shared machine.
				b.ReportMetric(float64(cpuBare)/float64(cpuBin), "cpu-ratio")
			}
			slices.Sort(ratios)
			n := float64(edgeRounds * per)
			b.ReportMetric(float64(tBin.Nanoseconds())/n, "ns/op")
			b.ReportMetric(n/tBin.Seconds(), "binary-req/s")
			b.ReportMetric(n/tBare.Seconds(), "bare-req/s")
			b.ReportMetric((ratios[(edgeRounds-1)/2]+ratios[edgeRounds/2])/2, "ratio")
		})
	}
}

// edgeEndpoint is one hot GET of the edge comparison, with the one request
// header it sends, if any ("Name: value").
type edgeEndpoint struct{ name, path, header string }

// request is the endpoint's GET of base + path.
func (ep edgeEndpoint) request(b *testing.B, base string) *http.Request {
	b.Helper()
	req, err := http.NewRequest(http.MethodGet, base+ep.path, nil)
	if err != nil {
		b.Fatal(err)
	}
	if name, value, ok := strings.Cut(ep.header, ": "); ok {
		req.Header.Set(name, value)
	}
	return req
}

// edgeEndpoints are the hot GETs both edge benchmarks compare: what
// citations, embeds, viewers and hours widgets ask for most.
func edgeEndpoints(purlBase string) []edgeEndpoint {
	return []edgeEndpoint{
		{"purl-xml", "/purl/bb000kk0000.xml", ""},
		{"purl-page", "/purl/bb000kk0000", ""},
		{"purl-manifest", "/purl/bb000kk0000/iiif/manifest", ""},
		{"purl-file-range", "/purl/bb000kk0000/file/reading-room-north.png", "Range: bytes=0-1023"},
		{"purl-tile", "/purl/bb000kk0000/iiif/image/reading-room-north.png/0,0,512,480/512,/0/default.jpg", ""},
		{"oembed-json", "/embed/embed?url=" + url.QueryEscape(purlBase+"bb000kk0000"), ""},
		{"embed-iframe", "/embed/iframe?url=" + url.QueryEscape(purlBase+"bb000kk0000"), ""},
		{"hours-week", "/hours/libraries.json", ""},
		{"hours-library", "/hours/libraries/green.json", ""},
		{"hours-location", "/hours/libraries/green/locations/stacks.json", ""},
		{"hours-legacy", "/hours/api/v1/library/green/location/stacks/hours/for/today", ""},
	}
}

// edgeAnswers takes the exact answers of the binary, which the bare server
// then serves: the binary's headers (but Date, which net/http writes
// itself, as for the binary) and body. Content-Length is kept: without it
// net/http sends a body over 2 KiB in chunks (one more write per answer
// than the binary, which says its length), so the bare server would not
// send the same bytes.
func edgeAnswers(b *testing.B, client *http.Client, srv *testkit.Server, endpoints []edgeEndpoint) []bareAnswer {
	b.Helper()
	var answers []bareAnswer
	for _, ep := range endpoints {
		resp, body := testkit.Do(b, client, ep.request(b, srv.URL))
		if want := ep.status(); resp.StatusCode != want {
			b.Fatalf("%s: %d %s, want %d", ep.path, resp.StatusCode, body, want)
		}
		header := resp.Header.Clone()
		header.Del("Date")
		answers = append(answers, bareAnswer{Path: ep.path, Status: resp.StatusCode, Header: header, Body: body})
	}
	return answers
}

// The load's bounds: per endpoint and side, edgeWarmup requests untimed,
// then edgeRounds rounds of edgePerRound (30,000 requests), over edgeConns
// connections: about 30 s for the six endpoints on the development machine.
const (
	edgeRounds   = 20
	edgePerRound = 1500
	edgeWarmup   = 500
	edgeConns    = 8
)

// edgeClient is the load generator's client: keep-alive connections, no
// compression, nothing but loopback.
func edgeClient() *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			MaxIdleConnsPerHost: edgeConns,
			MaxConnsPerHost:     edgeConns,
			DisableCompression:  true,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		},
	}
}

// status is the endpoint's answer: 206 for a range, else 200.
func (ep edgeEndpoint) status() int {
	if strings.HasPrefix(ep.header, "Range:") {
		return http.StatusPartialContent
	}
	return http.StatusOK
}

// edgeLoad sends n GETs of u (with ep's header) over edgeConns concurrent
// connections and returns the time they took. Every answer must have
// want's status and body length.
func edgeLoad(b *testing.B, client *http.Client, u string, ep edgeEndpoint, want bareAnswer, n int) time.Duration {
	b.Helper()
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < edgeConns; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				req, err := http.NewRequest(http.MethodGet, u, nil)
				if err != nil {
					failed.Store(err.Error())
					return
				}
				if name, value, ok := strings.Cut(ep.header, ": "); ok {
					req.Header.Set(name, value)
				}
				resp, err := client.Do(req)
				if err != nil {
					failed.Store(err.Error())
					return
				}
				got, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != want.Status || int(got) != len(want.Body) {
					failed.Store(fmt.Sprintf("GET %s: %d, %d bytes (want %d, %d bytes), %v", u, resp.StatusCode, got, want.Status, len(want.Body), err))
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if msg, ok := failed.Load().(string); ok {
		b.Fatal(msg)
	}
	return elapsed
}

// bareAnswer is one fixed answer of the bare server.
type bareAnswer struct {
	Path   string // with the query, as requested
	Status int
	Header http.Header
	Body   []byte
}

type bareServer struct {
	url string
	pid int
}

// cpuTicks is the user plus system CPU time of process pid in clock ticks
// (from /proc; 0 where there is none).
func cpuTicks(pid int) int64 {
	u, s := cpuTicksSplit(pid)
	return u + s
}

// cpuTicksSplit is the user and the system CPU time of process pid in
// clock ticks (from /proc; 0 where there is none): the server's own work,
// and the kernel's for its system calls (reading and writing the
// connections, the log).
func cpuTicksSplit(pid int) (user, system int64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	// The fields after the command name (in parentheses, which may hold
	// spaces): state is field 3, utime 14, stime 15.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0, 0
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0
	}
	return u, s
}

// bareEnv names the file of answers when the test binary runs as the bare
// server (see TestMain).
const bareEnv = "SITESVC_BENCH_BARE_ANSWERS"

// startBare runs this test binary again as the bare server (GOMAXPROCS=1
// is in the environment) and returns its URL once it listens.
func startBare(b *testing.B, answers []bareAnswer) *bareServer {
	b.Helper()
	file := filepath.Join(b.TempDir(), "answers.json")
	data, err := json.Marshal(answers)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), bareEnv+"="+file)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	// The request log is kept as the binary's is (testkit keeps its output
	// in a LogBuffer), so that neither side's logging costs the client more.
	cmd.Stderr = &testkit.LogBuffer{}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("bare server: %v", err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if !ok {
		b.Fatalf("bare server said %q", line)
	}
	return &bareServer{url: "http://" + addr, pid: cmd.Process.Pid}
}

// serveBare is the bare server: net/http's mux-free handler writing the
// fixed answer of the request URI (headers and body as the binary sent them), with one log line per request as the
// binary writes.
func serveBare(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("bare server: %w", err)
	}
	var answers []bareAnswer
	if err := json.Unmarshal(data, &answers); err != nil {
		return fmt.Errorf("bare server: %w", err)
	}
	byURI := map[string]bareAnswer{}
	for _, a := range answers {
		byURI[a.Path] = a
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("bare server: %w", err)
	}
	fmt.Printf("listening %s\n", ln.Addr())
	return http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		a, ok := byURI[r.URL.RequestURI()]
		status := http.StatusOK
		if !ok {
			status = http.StatusNotFound
			http.NotFound(w, r)
		} else {
			h := w.Header()
			for k, v := range a.Header {
				h[k] = v
			}
			status = a.Status
			w.WriteHeader(a.Status)
			w.Write(a.Body)
		}
		// The fields of the binary's request line.
		logger.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("request_id", a.Header.Get("X-Request-Id")),
			slog.String("service", "bare"),
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", status),
			slog.Int("bytes", len(a.Body)),
			slog.Duration("duration", time.Since(start)),
			slog.String("remote", r.RemoteAddr),
			slog.Bool("aborted", false),
		)
	}))
}

func TestMain(m *testing.M) {
	if file := os.Getenv(bareEnv); file != "" {
		if err := serveBare(file); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
