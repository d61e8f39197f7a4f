package main

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// The collector runs with serve's policy, as the runtime itself reports it
// in /metrics: the defaults, the flags, and GOGC / GOMEMLIMIT from the
// environment winning over both.
func TestGCPolicyThroughTheBinary(t *testing.T) {
	for _, tc := range []struct {
		name           string
		env            map[string]string
		args           []string
		percent, limit float64
		logged         string
	}{
		{"defaults", nil, nil, defaultGCPercent, defaultMemoryLimit, `gc_percent=400 memory_limit_bytes=536870912`},
		{"flags", nil, []string{"--gc-percent", "200", "--memory-limit", "0"}, 200, 1<<63 - 1, `gc_percent=200 memory_limit_bytes=9223372036854775807`},
		{"environment wins", map[string]string{"GOGC": "150", "GOMEMLIMIT": "300MiB"}, []string{"--gc-percent", "200"}, 150, 300 << 20, `gc_percent="200 (GOGC=150 wins)" memory_limit_bytes=314572800`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The test's own environment must not decide the case.
			t.Setenv("GOGC", tc.env["GOGC"])
			t.Setenv("GOMEMLIMIT", tc.env["GOMEMLIMIT"])
			s := testkit.StartServer(t, append([]string{"--services", "hours"}, tc.args...)...)
			_, body := s.Get(t, "/metrics")
			got := gaugeValues(t, body, "go_gc_gogc_percent", "go_gc_gomemlimit_bytes")
			if got["go_gc_gogc_percent"] != tc.percent || got["go_gc_gomemlimit_bytes"] != tc.limit {
				t.Errorf("/metrics: GOGC %v, GOMEMLIMIT %v; want %v, %v", got["go_gc_gogc_percent"], got["go_gc_gomemlimit_bytes"], tc.percent, tc.limit)
			}
			if logs := s.Logs(); !strings.Contains(logs, `msg="garbage collector" `+tc.logged) {
				t.Errorf("the log does not say %q:\n%s", tc.logged, logs)
			}
		})
	}
}

// gaugeValues reads the named unlabelled samples of a Prometheus text page.
func gaugeValues(t *testing.T, page []byte, names ...string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(page))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		for _, n := range names {
			if name == n {
				v, err := strconv.ParseFloat(value, 64)
				if err != nil {
					t.Fatalf("%s: %v", sc.Text(), err)
				}
				out[n] = v
			}
		}
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			t.Fatalf("/metrics has no %s", n)
		}
	}
	return out
}
