package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// BenchmarkEdge measures the servers as their users meet them: the real
// sitesvc binary against a bare net/http server writing the same bytes
// (the binary's headers, but Date, and body), both separate processes with
// GOMAXPROCS=1 and one log line per request, driven over loopback by wrk,
// a C load generator that does not saturate before the servers do (Go's
// http.Client does: see BenchmarkEdgeGoClient). Rounds alternate between
// the two sides, so the shared machine's noise falls on both.
//
// Per endpoint it reports each side's requests per second, ratio = the
// binary's throughput ÷ the bare server's (the median of the rounds'
// ratios), and cpu-ratio = the bare server's CPU per request ÷ the
// binary's (user + system time of each server process, from /proc), which
// moves less with other processes' load than throughput does.
//
// Bounded: edgeWrkRounds rounds of edgeWrkSeconds per side and endpoint,
// edgeWrkConns connections from one wrk thread, 127.0.0.1 only. On a
// machine with two or more cores, the servers run on one core and wrk on
// another (taskset), so that the load generator and the server measured do
// not share one.
//
// With SITESVC_BENCH_BEFORE_BINARY naming another build of sitesvc (the
// tree before a change), that binary runs too, on the same core, in the
// same alternating rounds, and each endpoint also reports before-ratio and
// before-cpu-ratio: a before/after comparison measured side by side.
func BenchmarkEdge(b *testing.B) {
	wrk := testkit.RequireTool(b, "wrk")
	b.Setenv("GOMAXPROCS", "1") // read by the server processes only
	srv := testkit.StartServer(b)
	endpoints := edgeEndpoints(srv.URL + "/purl/")
	answers := edgeAnswers(b, edgeClient(), srv, endpoints)
	bare := startBare(b, answers)
	serverCPU, loadCPU := edgeCPUs()
	pin(b, srv.Pid(), serverCPU)
	pin(b, bare.pid, serverCPU)
	var before *testkit.Server
	if bin := os.Getenv(edgeBeforeEnv); bin != "" {
		b.Setenv("SITESVC_TEST_BINARY", bin)
		// The endpoints name PURLs under srv's URL (oEmbed's url=), which
		// the before binary takes as its own PURL base too, so that it
		// answers them, from its own PURL service, with the same bytes.
		before = testkit.StartServer(b, "--purl-base-url", srv.URL+"/purl")
		pin(b, before.Pid(), serverCPU)
	}

	rounds, seconds := wrkRounds(b)
	for _, ep := range endpoints {
		b.Run(ep.name, func(b *testing.B) {
			// The sides of a round: the binary, the bare server and, when
			// set, the binary before.
			sides := []*edgeSide{
				{url: srv.URL + ep.path, pid: srv.Pid()},
				{url: bare.url + ep.path, pid: bare.pid},
			}
			if before != nil {
				sides = append(sides, &edgeSide{url: before.URL + ep.path, pid: before.Pid()})
			}
			binSide, bareSide := sides[0], sides[1]
			// Warm every side (caches, connections) before measuring.
			for _, sd := range sides {
				runWrk(b, wrk, loadCPU, sd.url, ep.header, 1)
				sd.user0, sd.sys0 = cpuTicksSplit(sd.pid)
			}
			ratios := make([]float64, 0, rounds)
			var beforeRatios []float64
			for r := 0; r < rounds; r++ {
				// Each round starts with another side, so that none is
				// always measured first.
				starved := false
				for k := range sides {
					sd := sides[(r+k)%len(sides)]
					sd.last = runWrk(b, wrk, loadCPU, sd.url, ep.header, seconds)
					sd.requests, sd.seconds = sd.requests+sd.last.requests, sd.seconds+sd.last.seconds
					starved = starved || sd.last.requests == 0
				}
				if starved {
					// A side that answered nothing in the round was given
					// no CPU (a machine loaded by others): the round says
					// nothing about the servers.
					b.Logf("round %d left out: a side answered no request in %ds", r, seconds)
					continue
				}
				ratios = append(ratios, binSide.last.perSecond()/bareSide.last.perSecond())
				if before != nil {
					beforeRatios = append(beforeRatios, sides[2].last.perSecond()/bareSide.last.perSecond())
				}
			}
			if len(ratios) < (rounds+1)/2 {
				b.Fatalf("only %d of %d rounds had every side answering", len(ratios), rounds)
			}
			for _, sd := range sides {
				u, s := cpuTicksSplit(sd.pid)
				sd.user, sd.sys = u-sd.user0, s-sd.sys0
				sd.cpu = sd.user + sd.sys
			}
			if binSide.cpu > 0 && bareSide.cpu > 0 {
				b.ReportMetric(binSide.cpuPer10k(), "binary-cpu-ticks/10k-req")
				b.ReportMetric(bareSide.cpuPer10k(), "bare-cpu-ticks/10k-req")
				b.ReportMetric(bareSide.cpuPer10k()/binSide.cpuPer10k(), "cpu-ratio")
				// Where the CPU went (-v): the servers' own work (user) and
				// the kernel's for their system calls (system).
				for _, sd := range sides {
					b.Logf("%s: user %.1f, system %.1f CPU ticks per 10k requests", sd.url, float64(sd.user)/sd.requests*1e4, float64(sd.sys)/sd.requests*1e4)
				}
			}
			b.ReportMetric(1e9*binSide.seconds/binSide.requests, "ns/op")
			b.ReportMetric(binSide.requests/binSide.seconds, "binary-req/s")
			b.ReportMetric(bareSide.requests/bareSide.seconds, "bare-req/s")
			b.ReportMetric(median(ratios), "ratio")
			if before != nil {
				beforeSide := sides[2]
				b.ReportMetric(median(beforeRatios), "before-ratio")
				if beforeSide.cpu > 0 && bareSide.cpu > 0 {
					b.ReportMetric(bareSide.cpuPer10k()/beforeSide.cpuPer10k(), "before-cpu-ratio")
				}
			}
		})
	}
}

// edgeBeforeEnv names the binary BenchmarkEdge compares before and after.
const edgeBeforeEnv = "SITESVC_BENCH_BEFORE_BINARY"

// edgeSide is one server of BenchmarkEdge's rounds and what it measured.
type edgeSide struct {
	url               string
	pid               int
	last              wrkResult
	requests, seconds float64
	cpu               int64 // user + system over the rounds
	user0, sys0       int64 // at the start
	user, sys         int64 // over the rounds
}

// cpuPer10k is the side's CPU clock ticks per 10,000 requests.
func (sd *edgeSide) cpuPer10k() float64 { return float64(sd.cpu) / sd.requests * 1e4 }

// median is the median of xs (which it sorts).
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	return (xs[(n-1)/2] + xs[n/2]) / 2
}

// The wrk load's bounds: per endpoint and side, a one-second warm-up, then
// edgeWrkRounds rounds of edgeWrkSeconds over edgeWrkConns connections
// (about 3 minutes for the eleven endpoints, 4½ with a before binary).
// SITESVC_BENCH_EDGE_ROUNDS and SITESVC_BENCH_EDGE_SECONDS change the
// first two for a longer, steadier measurement (make bench-edge-long).
const (
	edgeWrkRounds  = 6
	edgeWrkSeconds = 1
	edgeWrkConns   = 32
)

// wrkRounds is BenchmarkEdge's number of rounds and their length.
func wrkRounds(b *testing.B) (rounds, seconds int) {
	return benchSetting(b, "SITESVC_BENCH_EDGE_ROUNDS", edgeWrkRounds, 100),
		benchSetting(b, "SITESVC_BENCH_EDGE_SECONDS", edgeWrkSeconds, 60)
}

// wrkResult is what one wrk run measured; requests may be 0 (a server
// given no CPU during the run), and BenchmarkEdge leaves such rounds out.
type wrkResult struct{ requests, seconds float64 }

func (r wrkResult) perSecond() float64 { return r.requests / r.seconds }

// wrkSummary is wrk's summary line: "12345 requests in 1.00s, 3.21MB read".
var wrkSummary = regexp.MustCompile(`(\d+) requests in ([0-9.]+)(us|ms|s|m),`)

// runWrk runs wrk (one thread, edgeWrkConns connections) against u for
// seconds, sending header ("Name: value") when it is not "", on cpu when
// it is not -1. Every answer must be a 2xx without
// socket errors (edgeAnswers checked the body once; the bare server's
// answers are those bytes).
func runWrk(b *testing.B, wrk string, cpu int, u, header string, seconds int) wrkResult {
	b.Helper()
	args := []string{"-t1", "-c" + strconv.Itoa(edgeWrkConns), "-d" + strconv.Itoa(seconds) + "s"}
	if header != "" {
		args = append(args, "-H", header)
	}
	args = append(args, u)
	cmd := exec.Command(wrk, args...)
	if cpu >= 0 {
		if taskset, err := exec.LookPath("taskset"); err == nil {
			cmd = exec.Command(taskset, append([]string{"-c", strconv.Itoa(cpu), wrk}, args...)...)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("wrk %s: %v\n%s", u, err, out)
	}
	res, err := parseWrk(string(out))
	if err != nil {
		b.Fatalf("wrk %s: %v\n%s", u, err, out)
	}
	if strings.Contains(string(out), "Non-2xx or 3xx responses") || strings.Contains(string(out), "Socket errors") {
		b.Fatalf("wrk %s: not every answer was a 2xx:\n%s", u, out)
	}
	return res
}

// parseWrk reads the request count and duration of wrk's summary line.
func parseWrk(out string) (wrkResult, error) {
	m := wrkSummary.FindStringSubmatch(out)
	if m == nil {
		return wrkResult{}, fmt.Errorf("no summary line in wrk's output")
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return wrkResult{}, fmt.Errorf("request count %q: %w", m[1], err)
	}
	d, err := strconv.ParseFloat(m[2], 64)
	if err != nil {
		return wrkResult{}, fmt.Errorf("duration %q: %w", m[2], err)
	}
	switch m[3] {
	case "us":
		d /= 1e6
	case "ms":
		d /= 1e3
	case "m":
		d *= 60
	}
	if d == 0 {
		return wrkResult{}, fmt.Errorf("wrk measured %v requests in %vs", n, d)
	}
	return wrkResult{requests: n, seconds: d}, nil
}

// edgeCPUs chooses the core the servers run on and the one wrk runs on:
// different cores where there are two, else -1 (no pinning).
func edgeCPUs() (server, load int) {
	if n := len(cpusAllowed()); n >= 2 {
		c := cpusAllowed()
		return c[n-1], c[0]
	}
	return -1, -1
}

// cpusAllowed lists the CPUs this process may run on (from /proc).
func cpusAllowed() []int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		list, ok := strings.CutPrefix(line, "Cpus_allowed_list:")
		if !ok {
			continue
		}
		var cpus []int
		for _, part := range strings.Split(strings.TrimSpace(list), ",") {
			lo, hi, isRange := strings.Cut(part, "-")
			a, err := strconv.Atoi(lo)
			if err != nil {
				return nil
			}
			z := a
			if isRange {
				if z, err = strconv.Atoi(hi); err != nil {
					return nil
				}
			}
			for c := a; c <= z; c++ {
				cpus = append(cpus, c)
			}
		}
		return cpus
	}
	return nil
}

// pin moves every thread of process pid onto cpu (taskset -a), when cpu is
// not -1 and taskset exists.
func pin(b *testing.B, pid, cpu int) {
	b.Helper()
	if cpu < 0 {
		return
	}
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		return
	}
	if out, err := exec.Command(taskset, "-a", "-p", "-c", strconv.Itoa(cpu), strconv.Itoa(pid)).CombinedOutput(); err != nil {
		b.Fatalf("taskset %d: %v\n%s", pid, err, out)
	}
}

// TestParseWrk reads wrk's summary as wrk 4.1 prints it.
func TestParseWrk(t *testing.T) {
	out := `Running 1s test @ http://127.0.0.1:8080/
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   355.12us  120.04us   3.12ms   90.12%
    Req/Sec    88.20k     2.10k   91.00k    80.00%
  87766 requests in 1.00s, 12.81MB read
Requests/sec:  87729.40
Transfer/sec:     12.80MB
`
	got, err := parseWrk(out)
	if err != nil || got.requests != 87766 || got.seconds != 1 {
		t.Fatalf("parseWrk = %+v, %v", got, err)
	}
	if _, err := parseWrk("unable to connect to 127.0.0.1:1 Connection refused"); err == nil {
		t.Fatal("parseWrk accepted output without a summary")
	}
	if got, err := parseWrk("  5 requests in 500.00ms, 1KB read"); err != nil || got.seconds != 0.5 {
		t.Fatalf("parseWrk(ms) = %+v, %v", got, err)
	}
	if got, err := parseWrk("  0 requests in 1.08s, 0.00B read"); err != nil || got.requests != 0 || got.seconds != 1.08 {
		t.Fatalf("parseWrk(no requests) = %+v, %v", got, err)
	}
}

// BenchmarkEdgeInProcess serves what the binary serves (runServe, with
// logging on) inside the test process and drives each of BenchmarkEdge's
// endpoints with wrk, so that
//
//	SITESVC_BENCH_PROFILE_SECONDS=10 GOMAXPROCS=1 go test -run '^$' -bench 'EdgeInProcess/purl-xml' -cpuprofile cpu.out ./cmd/sitesvc
//
// profiles the server's own work per request as users meet it (the
// connection, impl/server's middleware and log line, the edge, the
// handler), which the packages' benchmarks leave out. It reports the
// requests per second and ns/op of edgeInProcessSeconds of load per
// endpoint; BenchmarkEdge is the comparison with bare net/http.
func BenchmarkEdgeInProcess(b *testing.B) {
	wrk := testkit.RequireTool(b, "wrk")
	const publicURL = "http://sitesvc.test" // embed finds the PURL service in process
	logs := newListenWatcher()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- runServe(ctx, []string{"--addr", "127.0.0.1:0", "--public-url", publicURL,
			"--data", b.TempDir(), "--log-format", "text", "--dev"}, func(string) string { return "" }, io.Discard, logs)
	}()
	b.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			b.Errorf("serve: %v", err)
		}
	})
	var addr string
	select {
	case addr = <-logs.addr:
	case err := <-served:
		b.Fatalf("serve stopped before listening: %v", err)
	case <-time.After(time.Minute):
		b.Fatal("serve did not listen within a minute")
	}
	base := "http://" + addr
	waitReady(b, base)
	for _, ep := range edgeEndpoints(publicURL + "/purl/") {
		b.Run(ep.name, func(b *testing.B) {
			if resp, body := testkit.Do(b, edgeClient(), ep.request(b, base)); resp.StatusCode != ep.status() {
				b.Fatalf("%s: %d %s", ep.path, resp.StatusCode, body)
			}
			res := runWrk(b, wrk, -1, base+ep.path, ep.header, edgeInProcessSeconds(b))
			b.ReportMetric(1e9*res.seconds/res.requests, "ns/op")
			b.ReportMetric(res.perSecond(), "req/s")
		})
	}
}

// edgeInProcessSeconds is BenchmarkEdgeInProcess's load per endpoint: one
// second (make test runs every benchmark once), or what
// SITESVC_BENCH_PROFILE_SECONDS says, for a profile with more samples.
func edgeInProcessSeconds(b *testing.B) int {
	return benchSetting(b, "SITESVC_BENCH_PROFILE_SECONDS", 1, 600)
}

// benchSetting is the whole number the environment variable name gives, from
// 1 to most, or def when it is not set.
func benchSetting(b *testing.B, name string, def, most int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > most {
		b.Fatalf("%s=%q: want a whole number from 1 to %d", name, v, most)
	}
	return n
}

// listenWatcher is the in-process server's log: it hands over the address
// of the "listening" line and drops the rest (each line is still
// formatted, as the binary's are).
type listenWatcher struct {
	mu   sync.Mutex
	seen bool
	addr chan string
}

func newListenWatcher() *listenWatcher { return &listenWatcher{addr: make(chan string, 1)} }

var listeningLine = regexp.MustCompile(`msg=listening addr=(\S+)`)

func (w *listenWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.seen {
		if m := listeningLine.FindSubmatch(p); m != nil {
			w.seen = true
			w.addr <- string(m[1])
		}
	}
	return len(p), nil
}

// waitReady polls base's /readyz until it answers 200 (a minute at most).
func waitReady(b *testing.B, base string) {
	b.Helper()
	client := edgeClient()
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := client.Get(base + "/readyz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s/readyz did not answer 200 within a minute (last: %v)", base, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
