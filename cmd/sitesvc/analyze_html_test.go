package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// apobecFASTA is the shared hypermutated sequence (PROBLEM_SEQUENCES_APOBEC) as FASTA.
func apobecFASTA(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testkit.SharedDir(t), "data", "hivdb", "sequences", "PROBLEM_SEQUENCES_APOBEC.json"))
	if err != nil {
		t.Fatal(err)
	}
	var genes map[string]struct {
		Sequence struct {
			Sequence string `json:"sequence"`
		} `json:"sequence"`
	}
	if err := json.Unmarshal(raw, &genes); err != nil {
		t.Fatal(err)
	}
	return ">apobec\n" + genes["HIV1PR"].Sequence.Sequence + "\n"
}

// TestAnalyzeHTMLReport: `sitesvc analyze --report html` on the real binary writes one
// self-contained document — the batch summary first, then a page per sequence — that
// headless Chromium shows without a single request beyond the file itself, that axe-core
// finds no serious accessibility problem in, whose levels carry words beside their colour,
// and that prints one sequence per page. SITESVC_SCREENSHOTS=DIR keeps a screenshot.
func TestAnalyzeHTMLReport(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.fasta")
	if err := os.WriteFile(in, []byte(testkit.ExampleFASTA(t)+apobecFASTA(t)+">too-short\nACGTACGT\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out1, errOut, err := runBinary(t, "", "analyze", "--report", "html", "-j", "1", in)
	if err != nil {
		t.Fatalf("analyze: %v\n%s", err, errOut)
	}
	out3, _, err := runBinary(t, "", "analyze", "--report", "HTML", "-j", "3", in)
	if err != nil {
		t.Fatal(err)
	}
	if reportDateDD.ReplaceAllString(out1, "") != reportDateDD.ReplaceAllString(out3, "") {
		t.Error("-j 3 writes another HTML report than -j 1")
	}
	summary, first := strings.Index(out1, `<section class="batch"`), strings.Index(out1, `<section class="input"`)
	if !strings.HasPrefix(out1, "<!DOCTYPE html>") || summary < 0 || first < summary || strings.Count(out1, `<section class="input"`) != 3 {
		t.Fatalf("want the summary, then 3 pages:\n%.600s", out1)
	}
	if !strings.Contains(errOut, "analysed 3 sequences (1 failed)") {
		t.Errorf("stderr: %q", errOut)
	}
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, []byte(out1), 0o600); err != nil {
		t.Fatal(err)
	}

	ctx := testkit.Browser(t, 60*time.Second, chromedp.WindowSize(1000, 1400))
	var mu sync.Mutex
	var requests []string
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requests = append(requests, e.Request.URL)
			mu.Unlock()
		}
	})
	url := "file://" + page
	var levels []string
	var title string
	if err := chromedp.Run(ctx,
		network.Enable(),
		chromedp.Navigate(url),
		chromedp.WaitVisible("#summary", chromedp.ByID),
		chromedp.Title(&title),
		chromedp.Evaluate(`Array.from(document.querySelectorAll(".level")).map(e => e.textContent.replace(/[●○]/g, "").trim())`, &levels),
	); err != nil {
		t.Fatal(err)
	}
	if title != "HIV-1 drug resistance report" {
		t.Errorf("title %q", title)
	}
	words := map[string]bool{"Susceptible": true, "Potential Low-Level Resistance": true, "Low-Level Resistance": true, "Intermediate Resistance": true, "High-Level Resistance": true}
	if len(levels) < 40 {
		t.Errorf("%d drug levels shown, want those of two PR+RT sequences", len(levels))
	}
	for _, l := range levels {
		if !words[l] {
			t.Errorf("a drug level reads %q: the colour must come with the level in words", l)
		}
	}
	testkit.Axe(t, ctx, "HTML report")
	testkit.Screenshot(t, ctx, "analyze-html-report")
	mu.Lock()
	for _, r := range requests {
		if r != url {
			t.Errorf("the report made a request of its own: %s", r)
		}
	}
	mu.Unlock()

	// printed: each sequence starts a page; the colours print
	var breaks []string
	var adjust string
	if err := chromedp.Run(ctx,
		emulation.SetEmulatedMedia().WithMedia("print"),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("section.input")).map(s => getComputedStyle(s).breakBefore)`, &breaks),
		chromedp.Evaluate(`getComputedStyle(document.querySelector(".level")).printColorAdjust || getComputedStyle(document.querySelector(".level")).webkitPrintColorAdjust`, &adjust),
	); err != nil {
		t.Fatal(err)
	}
	if len(breaks) != 3 {
		t.Errorf("%d pages", len(breaks))
	}
	for i, b := range breaks {
		if b != "page" {
			t.Errorf("printed, sequence %d breaks %q, want a new page", i+1, b)
		}
	}
	if adjust != "exact" {
		t.Errorf("print-color-adjust %q: the level colours would not print", adjust)
	}
}

// reportDateDD is the report time in the HTML report's header.
var reportDateDD = regexp.MustCompile(`<dt>Date</dt><dd>[^<]*</dd>`)
