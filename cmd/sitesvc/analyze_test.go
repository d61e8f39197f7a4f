package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// analyzeInput: the project's example sequence, one too short, one of only non-nucleotides.
const analyzeInput = ">too-short\nACGTACGT\n>junk\n12345-----\n"

// runBinary runs the real sitesvc binary from the repository root.
func runBinary(t *testing.T, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command(testkit.Binary(t), args...)
	cmd.Dir = testkit.RepoRoot(t)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

var reportDateLine = regexp.MustCompile(`(?m)^# reportDate\t.*$`)

// TestAnalyzeBinary: a FASTA file through `sitesvc analyze` on the real binary: one line per
// sequence in input order, failures inside the report (never stopping the batch), the same
// report with one or several workers, no progress bar when stderr is not a terminal.
func TestAnalyzeBinary(t *testing.T) {
	file := filepath.Join(t.TempDir(), "in.fasta")
	if err := os.WriteFile(file, []byte(testkit.ExampleFASTA(t)+analyzeInput), 0o600); err != nil {
		t.Fatal(err)
	}
	out1, errOut, err := runBinary(t, "", "analyze", file, "--report", "tsv", "-j", "1")
	if err != nil {
		t.Fatalf("analyze: %v\n%s", err, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out1), "\n")
	var rows []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 4 || !strings.HasPrefix(rows[0], "input\tname\t") {
		t.Fatalf("want a header and 3 rows:\n%s", out1)
	}
	for i, want := range []string{"1\texample-PR-RT\t", "2\ttoo-short\t", "3\tjunk\t"} {
		if !strings.HasPrefix(rows[i+1], want) {
			t.Errorf("row %d = %.80q, want it to start with %q", i+1, rows[i+1], want)
		}
	}
	if !strings.Contains(rows[2], "failure\tSequence too short: 8 nucleotides") || !strings.Contains(rows[3], "failure\tSequence too short: 0 nucleotides") {
		t.Errorf("failure rows:\n%s\n%s", rows[2], rows[3])
	}
	if !strings.Contains(errOut, "analysed 3 sequences") || strings.Contains(errOut, "\r") || strings.Contains(errOut, "seq/s") {
		t.Errorf("stderr (not a terminal) should hold only the summary: %q", errOut)
	}
	out3, _, err := runBinary(t, "", "analyze", "-j", "3", file)
	if err != nil {
		t.Fatal(err)
	}
	if reportDateLine.ReplaceAllString(out1, "") != reportDateLine.ReplaceAllString(out3, "") {
		t.Errorf("-j 3 (and the default report, tsv) differs from -j 1:\n%s\n---\n%s", out1, out3)
	}
}

// TestAnalyzeStdinXML: stdin ("-") and the XML 2009 report, valid against the report XSD.
func TestAnalyzeStdinXML(t *testing.T) {
	out, errOut, err := runBinary(t, testkit.ExampleFASTA(t)+analyzeInput, "analyze", "--report", "xml2009", "--algorithm", "ANRS", "-")
	if err != nil {
		t.Fatalf("analyze: %v\n%s", err, errOut)
	}
	if n := strings.Count(out, "<result>"); n != 3 || !strings.Contains(out, "<algorithmName>ANRS</algorithmName>") {
		t.Errorf("%d results:\n%.800s", n, out)
	}
	xmllint := testkit.RequireTool(t, "xmllint")
	doc := filepath.Join(t.TempDir(), "r.xml")
	if err := os.WriteFile(doc, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(xmllint, "--noout", "--nonet", "--schema", filepath.Join(testkit.RepoRoot(t), "wsdl", "reports.xsd"), doc).CombinedOutput(); err != nil {
		t.Errorf("the report does not validate: %v\n%s", err, b)
	}
}

// TestAnalyzeAlgorithms: a bundled algorithm by name and an ASI XML file.
func TestAnalyzeAlgorithms(t *testing.T) {
	file := filepath.Join(testkit.SharedDir(t), "data", "hivdb", "algorithms", "Rega_10.0.xml")
	for _, c := range []struct{ alg, want string }{
		{"HIVDB_9.8", "# algorithm\tHIVDB 9.8"},
		{"rega", "# algorithm\tRega"},
		{file, "# algorithm\tRega"},
	} {
		out, errOut, err := runBinary(t, testkit.ExampleFASTA(t), "analyze", "-", "--algorithm", c.alg)
		if err != nil || !strings.HasPrefix(out, c.want) || !strings.Contains(out, "\texample-PR-RT\t") {
			t.Errorf("--algorithm %s: %v %s\n%.200s", c.alg, err, errOut, out)
		}
	}
}

func TestAnalyzeErrors(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.xml")
	if err := os.WriteFile(broken, []byte("<ALGORITHM>"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.fasta")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze"}, "give one FASTA file"},
		{[]string{"analyze", filepath.Join(dir, "missing.fasta")}, "no such file"},
		{[]string{"analyze", empty}, "no sequence in the input"},
		{[]string{"analyze", empty, "--report", "pdf"}, `--report "pdf"`},
		{[]string{"analyze", empty, "-j", "0"}, "-j 0"},
		{[]string{"analyze", empty, "--algorithm", broken}, "user-submitted algorithm"},
		{[]string{"analyze", empty, "--algorithm", "HIVDB_1.0"}, "known algorithms"},
	} {
		_, errOut, err := runBinary(t, "", c.args...)
		if err == nil || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: %v, stderr %q, want an error containing %q", c.args, err, errOut, c.want)
		}
	}
}

// TestReadmeAnalyzeExample runs the README's `sitesvc analyze` command on the real binary.
func TestReadmeAnalyzeExample(t *testing.T) {
	block := testkit.MarkdownBlock(t, "README.md", "sh", "", "sitesvc analyze")
	// Run from an empty directory, the checkout's samples named by path: the block's
	// redirections (> report.html) must not leave files in the checkout.
	root := testkit.RepoRoot(t)
	script := strings.ReplaceAll(block, "bin/sitesvc", testkit.Binary(t))
	script = strings.ReplaceAll(script, " samples/", " "+filepath.Join(root, "samples")+"/")
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the README command failed: %v\n%s", err, block)
	}
	if !strings.Contains(string(out), "example-PR-RT") {
		t.Errorf("the README command printed no report for the example:\n%s", out)
	}
}

// TestAnalyzeProgressBarOnATerminal: with stderr on a terminal (script(1) provides one) the
// progress bar with its rate is drawn there, and stdout still holds only the report.
func TestAnalyzeProgressBarOnATerminal(t *testing.T) {
	scriptTool := testkit.RequireTool(t, "script") // util-linux (bsdutils)
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.fasta"), filepath.Join(dir, "out.tsv")
	if err := os.WriteFile(in, []byte(strings.Repeat(testkit.ExampleFASTA(t), 40)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(scriptTool, "-qec", testkit.Binary(t)+" analyze -j 1 "+in+" > "+out, filepath.Join(dir, "typescript"))
	cmd.Dir = testkit.RepoRoot(t)
	terminal, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, terminal)
	}
	if !strings.Contains(string(terminal), "analysing") || !strings.Contains(string(terminal), "seq/s") {
		t.Errorf("no progress bar on the terminal:\n%q", terminal)
	}
	report, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(report), "\texample-PR-RT\t"); n != 40 || strings.Contains(string(report), "analysing") {
		t.Errorf("stdout: %d rows, want 40 and no progress bar", n)
	}
}

// TestAnalyzeReportLimit: a report that passes --max-report-bytes stops there with an error
// naming the limit (exit status 1), having written only what fit; a wrong limit is refused.
func TestAnalyzeReportLimit(t *testing.T) {
	file := filepath.Join(t.TempDir(), "in.fasta")
	if err := os.WriteFile(file, []byte(strings.Repeat(testkit.ExampleFASTA(t), 20)), 0o600); err != nil {
		t.Fatal(err)
	}
	// -j 16 as well: the limit applies in input order however many workers finish first
	// (a machine with many cores once wrote no result at all)
	for _, jobs := range []string{"1", "16"} {
		out, errOut, err := runBinary(t, "", "analyze", file, "-j", jobs, "--report", "xml2009", "--max-report-bytes", "100000")
		if err == nil || !strings.Contains(errOut, "report too large") || !strings.Contains(errOut, "limit of 100000 bytes") {
			t.Fatalf("-j %s: 20 XML 2009 reports over a 100,000-byte limit: %v\n%s", jobs, err, errOut)
		}
		if len(out) > 100_000 || strings.Count(out, "<result>") == 0 || strings.Count(out, "<result>") >= 20 {
			t.Errorf("-j %s: wrote %d bytes, %d results before stopping", jobs, len(out), strings.Count(out, "<result>"))
		}
	}
	if _, errOut, err := runBinary(t, "", "analyze", file, "--max-report-bytes", "0"); err == nil || !strings.Contains(errOut, "--max-report-bytes 0") {
		t.Errorf("--max-report-bytes 0: %v %s", err, errOut)
	}
	if _, errOut, err := runBinary(t, "", "analyze", file, "--report", "xml2009"); err != nil {
		t.Errorf("the same input under the default limit: %v %s", err, errOut)
	}
}
