package testkit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Browser starts headless Chromium (Debian's chromium package) for the test
// and returns a context driving its first tab; chromedp.NewContext on it
// opens further tabs of the same browser. limit bounds everything done
// through the context. extra options (a window size, a flag) are applied
// after the defaults and override them.
//
// Every browser test starts Chromium here, so every one gets the flags this
// machine and CI need: headless; no sandbox (CI runs as root, where
// Chromium refuses its sandbox, and the pages are our own, on loopback);
// no GPU, no QUIC, no first-run, sync, component-update or background
// requests (nothing leaves loopback); /tmp instead of a small /dev/shm; and
// a fresh profile. Without chromium the test is skipped, or fails when
// SITESVC_REQUIRE_TOOLS is set (RequireTool). Under go test -short every
// browser test is skipped here.
func Browser(t testing.TB, limit time.Duration, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("starts Chromium (go test -short skips it)")
	}
	chromium := RequireTool(t, "chromium")
	// Chromium's helper processes can still be writing to the profile when
	// the browser has exited, so the directory is removed with retries
	// after the browser is stopped (t.TempDir's removal would fail the
	// test). Registered first, this cleanup runs last.
	profile, err := os.MkdirTemp("", "sitesvc-chromium-")
	if err != nil {
		t.Fatalf("browser profile: %v", err)
	}
	t.Cleanup(func() {
		for range 20 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not remove the browser profile %s", profile)
	})
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("mute-audio", true),
		chromedp.UserDataDir(profile),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(opts, extra...)...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, limit)
	t.Cleanup(cancelTimeout)
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// WaitJS polls the expression expr in the page ctx shows, every 100 ms,
// until it is true or timeout passes (an error then). A document replaced
// while it polls (a navigation or redirect still settling, a frame
// reloading) is polled again in the new one: chromedp reports the lost
// execution context as an error, not as false, and a test must not fail
// on how fast the machine loads the page.
func WaitJS(ctx context.Context, expr string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		// The context bounds the wait: chromedp's own polling timeout
		// (30 s unless told) would cut a longer timeout short.
		err := chromedp.Run(ctx, chromedp.Poll(expr, nil, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(0)))
		if err == nil || !documentReplaced(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// documentReplaced reports whether err is the DevTools protocol saying the
// page's JavaScript context went away under an evaluation (a generic
// -32000 error: only its message tells).
func documentReplaced(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context") || strings.Contains(msg, "context was destroyed")
}

// Screenshot saves the page ctx shows as <dir>/<name>.png when the
// environment variable SITESVC_SCREENSHOTS names a directory: a way to look
// at what a test saw. Otherwise it does nothing; a failure is only logged.
func Screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("SITESVC_SCREENSHOTS")
	if dir == "" {
		return
	}
	var png []byte
	// Let images finish painting: only when looking, never in a normal run.
	if err := chromedp.Run(ctx, chromedp.Sleep(time.Second), chromedp.FullScreenshot(&png, 100)); err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	KeepScreenshot(t, name, png)
}

// KeepScreenshot saves png, a screenshot the test took anyway (to measure
// its pixels), as <dir>/<name>.png when SITESVC_SCREENSHOTS names a
// directory, as Screenshot does. A failure to write it is only logged.
func KeepScreenshot(t testing.TB, name string, png []byte) {
	t.Helper()
	dir := os.Getenv("SITESVC_SCREENSHOTS")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Logf("screenshot %s: %v", name, err)
	}
}

// AxeViolation is one axe-core rule a page breaks.
type AxeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

// Serious reports whether the violation is one the tests refuse (serious or
// critical); the others are logged.
func (v AxeViolation) Serious() bool { return v.Impact == "serious" || v.Impact == "critical" }

// axeDir is the one install of the pinned axe-core every browser test uses:
// impl/purl/webcheck (package-lock.json), installed by
// scripts/build-webcheck.sh (make webcheck, which make test runs).
const axeDir = "impl/purl/webcheck"

// AxeViolations runs the pinned axe-core on the page ctx shows and returns
// every violation. Frames are not checked: each page is checked on its own
// (an embedded viewer belongs to the Embed service). Without the npm
// package the test is skipped, or fails when SITESVC_REQUIRE_TOOLS is set.
func AxeViolations(t testing.TB, ctx context.Context) []AxeViolation {
	t.Helper()
	src, err := os.ReadFile(Installed(t, axeDir+"/node_modules/axe-core/axe.min.js", "scripts/build-webcheck.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var out string
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(string(src), nil),
		chromedp.Evaluate(`axe.run(document, {iframes: false, resultTypes: ["violations"]}).then(function (r) {
  return JSON.stringify(r.violations.map(function (v) {
    return {id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map(function (n) { return String(n.target); })};
  }));
})`, &out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
	); err != nil {
		t.Fatalf("running axe-core: %v", err)
	}
	var violations []AxeViolation
	if err := json.Unmarshal([]byte(out), &violations); err != nil {
		t.Fatalf("axe-core's result %q: %v", out, err)
	}
	return violations
}

// Axe runs the pinned axe-core on the page ctx shows (named page in the
// messages) and reports every serious or critical violation as a test
// error; lesser ones are logged.
func Axe(t testing.TB, ctx context.Context, page string) {
	t.Helper()
	for _, v := range AxeViolations(t, ctx) {
		if v.Serious() {
			t.Errorf("%s: axe-core %s (%s): %s at %s", page, v.ID, v.Impact, v.Help, strings.Join(v.Targets, "; "))
		} else {
			t.Logf("%s: axe-core %s (%s): %s", page, v.ID, v.Impact, v.Help)
		}
	}
}
