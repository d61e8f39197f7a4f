package main

import (
	"bytes"
	"debug/elf"
	"encoding/xml"
	"errors"
	"html"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/testkit"
	"github.com/sitelib/sitesvc/samples"
)

// loneBinary is the built sitesvc binary copied alone into an empty
// directory, run from there with a clean environment (no SITESVC_*), as a
// user who downloaded it would.
type loneBinary struct {
	dir, path string
}

func newLoneBinary(t *testing.T) *loneBinary {
	t.Helper()
	src := testkit.Binary(t)
	dir := t.TempDir()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "sitesvc")
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return &loneBinary{dir: dir, path: dst}
}

// env is the process environment without SITESVC_* settings.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SITESVC_") {
			env = append(env, kv)
		}
	}
	return env
}

func (b *loneBinary) command(args ...string) *exec.Cmd {
	cmd := exec.Command(b.path, args...)
	cmd.Dir = b.dir
	cmd.Env = cleanEnv()
	return cmd
}

// run runs the binary to completion and returns stdout, stderr and the error.
func (b *loneBinary) run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := b.command(args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// serve starts `sitesvc serve` with --data and the loopback address (and
// the public URL naming it, since the port is random); it waits for
// /readyz and returns the base URL and the logs.
func (b *loneBinary) serve(t *testing.T, data string, extra ...string) (string, *testkit.LogBuffer) {
	t.Helper()
	addr := freeLoopbackAddr(t)
	base := "http://" + addr
	logs := &testkit.LogBuffer{}
	cmd := b.command(append([]string{"serve", "--data", data, "--addr", addr, "--public-url", base}, extra...)...)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("sitesvc exited: %v\n%s", err, logs.String())
		default:
		}
		if strings.Contains(logs.String(), "msg=listening") || strings.Contains(logs.String(), `"msg":"listening"`) {
			if resp, err := client.Get(base + "/readyz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					return base, logs
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("sitesvc not ready after 90s\n%s", logs.String())
	return "", nil
}

func get(t *testing.T, url string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

func soapPost(t *testing.T, endpoint, body string) string {
	t.Helper()
	env := `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:alg="http://algorithm.sitesvc.org"><soapenv:Body>` + body + `</soapenv:Body></soapenv:Envelope>`
	resp, err := http.Post(endpoint, "text/xml; charset=utf-8", strings.NewReader(env))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var r struct {
		Inner struct {
			Text string `xml:",chardata"`
		} `xml:"Body>getScoringMatrixResponse>getScoringMatrixReturn"`
		Report struct {
			Text string `xml:",chardata"`
		} `xml:"Body>processMutationListsResponse>processMutationListsReturn"`
	}
	if err := xml.Unmarshal(b, &r); err != nil || resp.StatusCode != 200 {
		t.Fatalf("SOAP %d %v\n%.2000s", resp.StatusCode, err, b)
	}
	return r.Inner.Text + r.Report.Text
}

// TestBinaryRunsAnywhere is issue 12's "done when": the built binary, copied
// alone into an empty directory and started from there with only --data
// (and a key made with `sitesvc keys add`), serves a SOAP report, a sample's
// PURL page with its viewer (Mirador included) and the hours; it writes
// nothing beside itself; `sitesvc --version` and every help exit 0.
func TestBinaryRunsAnywhere(t *testing.T) {
	if os.Getenv("SITESVC_TEST_BINARY") == "" {
		testkit.Missing(t, "the binary make build makes, with its bundles built in (SITESVC_TEST_BINARY)")
	}
	b := newLoneBinary(t)

	// Statically linked, as the Dockerfile's build stage (make build) makes it.
	f, err := elf.Open(b.path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary is dynamically linked (has an ELF interpreter); make build sets CGO_ENABLED=0")
		}
	}
	f.Close()

	out, stderr, err := b.run(t, "--version")
	if err != nil || !strings.Contains(out, "HIVDB 10.2") || !strings.Contains(out, "commit ") || !regexp.MustCompile(`Mirador bundle: \d+ bytes`).MatchString(out) {
		t.Errorf("--version: %v\n%s%s", err, out, stderr)
	}
	for _, args := range helpInvocations() {
		out, stderr, err := b.run(t, args...)
		if err != nil || !strings.Contains(out, "usage: sitesvc") {
			t.Errorf("sitesvc %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
		}
	}

	data := filepath.Join(t.TempDir(), "data")
	key, stderr, err := b.run(t, "keys", "add", "--data", data, "--label", "anywhere test")
	key = strings.TrimSpace(key)
	if err != nil || len(key) < 20 {
		t.Fatalf("keys add: %v %q %s", err, key, stderr)
	}
	base, logs := b.serve(t, data)
	if !strings.Contains(logs.String(), `"msg":"soap: HIV-1 algorithms loaded","source":"built in","algorithms":"ANRS 34`) {
		t.Errorf("the start does not say which algorithms run from where:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), `"msg":"purl: loaded sample objects into an empty store","count":12,"from":"built in"`) {
		t.Errorf("the built-in samples were not loaded:\n%s", logs.String())
	}

	// SOAP: the scoring matrix and a report, with the key made by keys add.
	endpoint := base + "/soap/SiteAlgorithm"
	if m := soapPost(t, endpoint, `<alg:getScoringMatrix><key>`+key+`</key></alg:getScoringMatrix>`); !strings.HasPrefix(m, "# HIVDB 10.2") {
		t.Errorf("getScoringMatrix: %.300q", m)
	}
	report := soapPost(t, endpoint, `<alg:processMutationLists><key>`+key+`</key><reportTypeInt>0</reportTypeInt><mutationsList><sample><PR/><RT><m>M184V</m></RT><IN/></sample></mutationsList></alg:processMutationLists>`)
	if !strings.Contains(report, "<algorithmVersion>10.2</algorithmVersion>") || !strings.Contains(report, ">M184V<") {
		t.Errorf("processMutationLists: %.600s", report)
	}

	// PURL: a sample object's page, its viewer and the Mirador bundle.
	code, ct, page := get(t, base+"/purl/bb000kk0000")
	if code != 200 || !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("PURL page: %d %s", code, ct)
	}
	m := regexp.MustCompile(`data-iframe="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the PURL page has no viewer:\n%.1500s", page)
	}
	iframe := html.UnescapeString(m[1])
	if !strings.HasPrefix(iframe, base+"/embed/iframe?url=") {
		t.Fatalf("viewer URL %q", iframe)
	}
	code, _, viewer := get(t, iframe)
	mm := regexp.MustCompile(`data-mirador-uri="([^"]+)"`).FindStringSubmatch(viewer)
	if code != 200 || mm == nil {
		t.Fatalf("viewer: %d\n%.1500s", code, viewer)
	}
	miradorURL := html.UnescapeString(mm[1])
	if !strings.HasPrefix(miradorURL, "http") {
		miradorURL = base + miradorURL
	}
	if code, ct, js := get(t, miradorURL); code != 200 || !strings.Contains(ct, "javascript") || len(js) < 1<<20 {
		t.Errorf("Mirador bundle %s: %d %s %d bytes", miradorURL, code, ct, len(js))
	}

	// Hours: this week of every library, from the sample data.
	code, ct, hours := get(t, base+"/hours/libraries.json")
	if code != 200 || !strings.Contains(ct, "json") || !strings.Contains(hours, `"type":"libraries"`) {
		t.Errorf("hours: %d %s %.300s", code, ct, hours)
	}

	// Nothing was written beside the binary (everything went to --data).
	entries, err := os.ReadDir(b.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the working directory holds %v, want only the binary", names)
	}
}

// helpInvocations are every way of asking for help: the bare command,
// help, --help, and each command's --help and help form.
func helpInvocations() [][]string {
	out := [][]string{{}, {"help"}, {"--help"}, {"-h"}}
	for name := range commands {
		out = append(out, []string{name, "--help"}, []string{name, "-h"}, []string{"help", name})
	}
	return out
}

// TestEveryCommandHasHelp: every command has a one-line summary, its
// --help exits 0 with its usage and flags, and `sitesvc help` lists it.
func TestEveryCommandHasHelp(t *testing.T) {
	env := func(string) string { return "" }
	var all bytes.Buffer
	if err := run(t.Context(), []string{"help"}, env, &all, io.Discard); err != nil {
		t.Fatal(err)
	}
	for name := range commands {
		if s := summaries[name]; s == "" || strings.Contains(s, "\n") {
			t.Errorf("%s: no one-line summary in summaries (help.go)", name)
		}
		var out, errOut bytes.Buffer
		if err := run(t.Context(), []string{name, "--help"}, env, &out, &errOut); err != nil {
			t.Errorf("%s --help: %v", name, err)
		}
		if !strings.Contains(out.String()+errOut.String(), "usage: sitesvc "+name) {
			t.Errorf("%s --help:\n%s%s", name, out.String(), errOut.String())
		}
		if !strings.Contains(all.String(), "usage: sitesvc "+name) || !strings.Contains(all.String(), "  "+name+"  ") {
			t.Errorf("sitesvc help does not cover %s", name)
		}
	}
	// Every flag of serve is listed with its description.
	if !strings.Contains(all.String(), "--hivdb-dir string") || !strings.Contains(all.String(), "--dev ") {
		t.Errorf("sitesvc help lacks serve's flags:\n%s", all.String())
	}
}

// TestCLIErrorsSayWhatToDo: mistakes get one line that says what to do,
// without Go package prefixes, and exit status 1.
func TestCLIErrorsSayWhatToDo(t *testing.T) {
	b := newLoneBinary(t)
	data := filepath.Join(t.TempDir(), "data")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate": run 'sitesvc help'`},
		{[]string{"tokens", "add", "--data", data, "--name", "n", "--role", "x"}, `sitesvc: unknown role "x": use admin, publisher`},
		{[]string{"tokens", "add", "--data", data, "--name", "n"}, "give --role"},
		{[]string{"serve", "--bogus"}, "see sitesvc serve --help"},
		{[]string{"purl"}, "sitesvc purl publish DIR"},
		{[]string{"keys", "add", "--data", data, "--label", "development key (created by the embedded default)"}, "choose another --label"},
	} {
		out, stderr, err := b.run(t, c.args...)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr, c.want) || out != "" {
			t.Errorf("sitesvc %s: %v\nstdout %q\nstderr %q\nwant %q", strings.Join(c.args, " "), err, out, stderr, c.want)
		}
		if regexp.MustCompile(`\b(auth|algorithm|purl|serve|tokens|keys|server): `).MatchString(stderr) {
			t.Errorf("sitesvc %s: a package prefix in %q", strings.Join(c.args, " "), stderr)
		}
	}
}

// TestServePortTaken: with its port taken, serve fails at once, before any
// service starts or says it is ready, and leaves no data directory behind.
func TestServePortTaken(t *testing.T) {
	b := newLoneBinary(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	data := filepath.Join(t.TempDir(), "data")
	out, stderr, err := b.run(t, "serve", "--data", data, "--addr", ln.Addr().String())
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("serve on a taken port: %v\n%s%s", err, out, stderr)
	}
	if !strings.Contains(stderr, "cannot listen on "+ln.Addr().String()) || !strings.Contains(stderr, "--addr") {
		t.Errorf("error: %s", stderr)
	}
	if strings.Contains(stderr, "service ready") || strings.Contains(stderr, "loaded") {
		t.Errorf("a service started before the port was checked:\n%s", stderr)
	}
	if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the data directory was made: %v", err)
	}
}

// TestHivdbDirOverride: --hivdb-dir runs the algorithms of a directory and
// the log names it; a directory without the data stops the start with an
// error naming the flag.
func TestHivdbDirOverride(t *testing.T) {
	dir := filepath.Join(testkit.SharedDir(t), "data", "hivdb")
	s := testkit.StartServer(t, "--services", "soap", "--hivdb-dir", dir)
	if !strings.Contains(s.Logs(), "source="+dir+" ") || !strings.Contains(s.Logs(), "HIVDB 10.2") {
		t.Errorf("log does not name the directory:\n%s", s.Logs())
	}
	b := newLoneBinary(t)
	empty := t.TempDir()
	_, stderr, err := b.run(t, "serve", "--data", filepath.Join(t.TempDir(), "d"), "--addr", freeLoopbackAddr(t), "--services", "soap", "--hivdb-dir", empty)
	if err == nil || !strings.Contains(stderr, "--hivdb-dir "+empty) || !strings.Contains(stderr, "leave it out to use the built-in data") {
		t.Errorf("empty --hivdb-dir: %v\n%s", err, stderr)
	}
}

// TestPublishOneLevel: purl publish DIR publishes DIR's objects one level
// deep: an object directory itself, or the object directories directly in
// DIR; objects nested deeper are not published.
func TestPublishOneLevel(t *testing.T) {
	testkit.RequireTool(t, "xmllint")
	env := func(string) string { return "" }
	objects := t.TempDir()
	for _, id := range []string{"bb000kk0000", "bc000df0001"} {
		sub, err := fs.Sub(samples.PURL(), id)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(filepath.Join(objects, id), sub); err != nil {
			t.Fatal(err)
		}
	}
	nested := filepath.Join(t.TempDir(), "outer")
	if err := os.CopyFS(filepath.Join(nested, "inner"), os.DirFS(objects)); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	var out bytes.Buffer
	err := run(t.Context(), []string{"purl", "publish", "--data", data, nested}, env, &out, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "holds no object") {
		t.Errorf("objects two levels down: %v %s", err, out.String())
	}
	out.Reset()
	// Flags may follow the directory too.
	if err := run(t.Context(), []string{"purl", "publish", objects, "--data", data}, env, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "published druid:bb000kk0000") }) {
		t.Errorf("published:\n%s", out.String())
	}
	out.Reset()
	if err := run(t.Context(), []string{"purl", "publish", "--data", data, filepath.Join(objects, "bc000df0001")}, env, &out, io.Discard); err != nil || !strings.HasPrefix(out.String(), "published druid:bc000df0001") {
		t.Errorf("one object directory: %v %s", err, out.String())
	}
}
