package apidocs_test

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/sitelib/sitesvc/gen/soapapi"
	"github.com/sitelib/sitesvc/impl/apidocs"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// pageProblems collects what a page reports as going wrong: console
// errors, uncaught exceptions, log entries of level error (failed loads,
// blocked resources), and requests to any host but the server's.
type pageProblems struct {
	mu       sync.Mutex
	problems []string
}

func (p *pageProblems) add(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.problems = append(p.problems, fmt.Sprintf(format, args...))
}

func (p *pageProblems) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.problems
	p.problems = nil
	return out
}

func browser(t *testing.T, allowedHost string) (context.Context, *pageProblems) {
	t.Helper()
	ctx := testkit.Browser(t, 120*time.Second, chromedp.WindowSize(1280, 900))
	problems := &pageProblems{}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range ev.Args {
					if a.Value != nil {
						args = append(args, string(a.Value))
					} else {
						args = append(args, a.Description)
					}
				}
				problems.add("console.%s: %s", ev.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			problems.add("exception: %s", ev.ExceptionDetails.Error())
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.LevelError {
				problems.add("log error (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			u, err := url.Parse(ev.Request.URL)
			if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != allowedHost {
				problems.add("request to another host: %s", ev.Request.URL)
			}
		}
	})
	if err := chromedp.Run(ctx, network.Enable(), log.Enable(), runtime.Enable()); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx, problems
}

func operationCount(t *testing.T, specPath string) int {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, item := range doc.Paths.Map() {
		n += len(item.Operations())
	}
	return n
}

// TestDocsPagesInBrowser opens {base}/docs of the three OpenAPI services
// and the Algorithm (SOAP) service's ?doc page of the real binary in headless
// Chromium: each renders every operation of its contract, with no console
// error, no failed load and no request to another host.
func TestDocsPagesInBrowser(t *testing.T) {
	if d, err := apidocs.New("probe"); err != nil || !d.Bundled() {
		testkit.Missing(t, "the Redoc bundle built in (scripts/build-apidocs.sh; make test does) (%v)", err)
	}
	root := testkit.RepoRoot(t)
	srv := testkit.StartServer(t)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx, problems := browser(t, u.Host)

	for _, svc := range []string{"purl", "embed", "hours"} {
		t.Run(svc, func(t *testing.T) {
			want := operationCount(t, filepath.Join(root, "api", svc+".yaml"))
			if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/"+svc+"/docs")); err != nil {
				t.Fatalf("navigate: %v", err)
			}
			// Redoc marks each operation's section with its operationId.
			count := `document.querySelectorAll('[data-section-id*="operation/"]').length`
			if err := testkit.WaitJS(ctx, count+` >= `+fmt.Sprint(want), 60*time.Second); err != nil {
				var got int
				_ = chromedp.Run(ctx, chromedp.Evaluate(count, &got))
				t.Fatalf("Redoc rendered %d of %d operations: %v; problems: %q", got, want, err, problems.take())
			}
			var title string
			if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector('.api-info h1') ? document.querySelector('.api-info h1').textContent : ''`, &title)); err != nil {
				t.Fatal(err)
			}
			if title == "" {
				t.Errorf("no API title rendered")
			}
			testkit.Screenshot(t, ctx, "docs-"+svc)
			if p := problems.take(); len(p) > 0 {
				t.Errorf("the page reported problems:\n%s", strings.Join(p, "\n"))
			}
		})
	}

	t.Run("soap", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/soap/SiteAlgorithm?doc")); err != nil {
			t.Fatalf("navigate: %v", err)
		}
		var sections, reportTypes int
		var text string
		if err := chromedp.Run(ctx,
			chromedp.WaitReady("body"),
			chromedp.Evaluate(`document.querySelectorAll('section.operation').length`, &sections),
			chromedp.Evaluate(`document.querySelectorAll('table.report-types tr').length - 1`, &reportTypes),
			chromedp.Evaluate(`document.body.innerText`, &text),
		); err != nil {
			t.Fatal(err)
		}
		ops := soapapi.Operations(nil)
		if sections != len(ops) {
			t.Errorf("%d operation sections, want %d", sections, len(ops))
		}
		for _, op := range ops {
			for _, p := range op.Input.Parts {
				if !strings.Contains(text, p.Name) {
					t.Errorf("part %s of %s is not on the page", p.Name, op.Method)
				}
			}
			if !strings.Contains(text, op.Input.Name) {
				t.Errorf("message %s is not on the page", op.Input.Name)
			}
		}
		if reportTypes != 5 {
			t.Errorf("%d report types, want 5 (0–3 and the HTML report, 4)", reportTypes)
		}
		testkit.Screenshot(t, ctx, "docs-soap")
		if p := problems.take(); len(p) > 0 {
			t.Errorf("the page reported problems:\n%s", strings.Join(p, "\n"))
		}
	})
}
