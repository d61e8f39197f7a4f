package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/resistance"
)

// analyzeReports maps --report to report types.
var analyzeReports = map[string]resistance.ReportType{
	"simple": resistance.ReportSimple, "detail": resistance.ReportDetailed, "detailed": resistance.ReportDetailed,
	"xml2009": resistance.Report2009, "tsv": resistance.ReportText, "html": resistance.ReportHTML,
}

// defaultAnalyzeReportBytes is analyze's report limit: the report goes to a file or a pipe
// one sequence at a time, so memory does not grow with it; the limit only stops a runaway
// input from filling a disk (64 GiB holds the XML 2009 report of about 1.5 million sequences).
const defaultAnalyzeReportBytes = 64 << 30

// maxAlgorithmFile bounds a --algorithm FILE.xml (the engine refuses more than 4 MiB anyway).
const maxAlgorithmFile = 4 << 20

// runAnalyze is `sitesvc analyze FILE.fasta|- [--report simple|detail|xml2009|tsv|html]
// [--algorithm HIVDB|ANRS|Rega|NAME|FILE.xml] [-j N] [--hivdb-dir DIR]`: it analyses every
// sequence of a FASTA file (or stdin) on N cores and writes one report to stdout, in input
// order. A progress bar with rate and ETA goes to stderr when stderr is a terminal. A
// sequence that fails (too short, too long, no PR/RT/IN) gets its failure entry in the
// report; it never stops the batch.
// analyzeUsage and analyzeSummary are what `sitesvc analyze --help` shows.
const (
	analyzeUsage   = "sitesvc analyze [flags] FILE.fasta|-"
	analyzeSummary = `Analyses the HIV-1 nucleotide sequences of a FASTA file (or stdin with -) and writes one
resistance report for all of them to stdout: simple, detail, xml2009, tsv (tab-separated) or
html (for people: a summary table, then one printable page per sequence; self-contained).
Sequences are aligned and interpreted on all cores; a progress bar with rate and ETA goes to
stderr when it is a terminal. A sequence that fails gets its own failure entry.`
)

func runAnalyze(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	report := fs.String("report", "tsv", "report: simple, detail, xml2009, tsv or html")
	algorithm := fs.String("algorithm", "HIVDB", "algorithm: HIVDB (10.2), ANRS, Rega, HIVDB_9.8, or an ASI XML file")
	jobs := fs.Int("j", runtime.NumCPU(), "sequences analysed in parallel (default: all cores)")
	maxReport := fs.Int64("max-report-bytes", defaultAnalyzeReportBytes, "stop with an error when the report passes this many bytes")
	hivdb := fs.String("hivdb-dir", env("SITESVC_HIVDB_DIR"), "directory of HIV-1 algorithms/ and reference/ overriding the built-in ones (env SITESVC_HIVDB_DIR)")
	// flags may come before or after the file name
	var positional []string
	for rest := args; ; {
		if err := parseFlags(fs, rest, analyzeUsage, analyzeSummary, stdout); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(positional) != 1 {
		fs.Usage()
		return fmt.Errorf("analyze: give one FASTA file (or - for stdin), got %d arguments", len(positional))
	}
	rt, ok := analyzeReports[strings.ToLower(*report)]
	if !ok {
		return fmt.Errorf("analyze: --report %q: use simple, detail, xml2009, tsv or html", *report)
	}
	if *jobs < 1 {
		return fmt.Errorf("analyze: -j %d: give at least 1", *jobs)
	}
	if *maxReport < 1 || *maxReport > math.MaxInt {
		return fmt.Errorf("analyze: --max-report-bytes %d: give a positive size", *maxReport)
	}
	opts := resistance.Options{ReportType: rt, Algorithm: resistance.AlgorithmHIVDB, MaxReportBytes: int(*maxReport)}
	switch a := *algorithm; {
	case strings.EqualFold(a, "HIVDB"):
	case strings.EqualFold(a, "ANRS"):
		opts.Algorithm = resistance.AlgorithmANRS
	case strings.EqualFold(a, "Rega"):
		opts.Algorithm = resistance.AlgorithmRega
	case strings.HasSuffix(strings.ToLower(a), ".xml"):
		data, err := readLimited(a, maxAlgorithmFile)
		if err != nil {
			return fmt.Errorf("analyze: --algorithm: %w", err)
		}
		opts.Algorithm, opts.UserAlgorithm = -1, string(data)
	default:
		opts.ReportOptions = "algorithm=" + a // a bundled algorithm by name (HIVDB_9.8, …)
	}

	var in io.Reader = os.Stdin
	total := -1
	if name := positional[0]; name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("analyze: %w", err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			// a regular file is read twice: once to count its records for the progress bar
			if total, err = countRecords(f); err != nil {
				return fmt.Errorf("analyze: %s: %w", name, err)
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("analyze: %s: %w", name, err)
			}
		}
		in = f
	}

	data, _, err := hivdbData(*hivdb)
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	engine, err := resistance.Load(data)
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	batch, err := engine.NewBatch(opts)
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}

	var bar *progressbar.ProgressBar
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("analysing"),
			progressbar.OptionSetItsString("seq"),
			progressbar.OptionShowIts(),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	start := time.Now()
	out := bufio.NewWriterSize(stdout, 256<<10)
	n, failed, err := analyzeReport(ctx, batch, fasta.NewReader(in), *jobs, out, func() {
		if bar != nil {
			_ = bar.Add(1)
		}
	})
	if bar != nil {
		_ = bar.Finish()
	}
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("writing the report: %w", ferr)
	}
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	fmt.Fprintf(stderr, "analysed %d sequences (%d failed) in %s\n", n, failed, time.Since(start).Round(time.Millisecond))
	return nil
}

// analyzeReport writes the whole report: its header, the part of every sequence, its end.
// A report that begins with a summary of all sequences (HTML) has its parts written to a
// temporary file first and copied after the summary, so memory stays bounded for it too.
func analyzeReport(ctx context.Context, batch *resistance.Batch, rd *fasta.Reader, jobs int, out io.Writer, done func()) (n, failed int, err error) {
	if !batch.SummaryFirst() {
		if _, err := io.WriteString(out, batch.Header()); err != nil {
			return 0, 0, err
		}
		if n, failed, err = analyzeStream(ctx, batch, rd, jobs, out, done); err != nil {
			return n, failed, err
		}
		_, err = io.WriteString(out, batch.Footer())
		return n, failed, err
	}
	spool, err := os.CreateTemp("", "sitesvc-analyze-*.part")
	if err != nil {
		return 0, 0, fmt.Errorf("a temporary file for the report's pages: %w", err)
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	buf := bufio.NewWriterSize(spool, 256<<10)
	if n, failed, err = analyzeStream(ctx, batch, rd, jobs, buf, done); err != nil {
		return n, failed, err
	}
	if err := buf.Flush(); err != nil {
		return n, failed, fmt.Errorf("writing the report's pages: %w", err)
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return n, failed, fmt.Errorf("reading the report's pages: %w", err)
	}
	if _, err := io.WriteString(out, batch.Header()+batch.Summary()); err != nil {
		return n, failed, err
	}
	if _, err := io.Copy(out, spool); err != nil {
		return n, failed, err
	}
	_, err = io.WriteString(out, batch.Footer())
	return n, failed, err
}

// analyzeStream reads records, analyses them on jobs goroutines and writes their parts of
// the report in input order. At most 4×jobs results wait to be written, so memory stays
// bounded however long the input is.
func analyzeStream(ctx context.Context, batch *resistance.Batch, rd *fasta.Reader, jobs int, out io.Writer, done func()) (n, failed int, err error) {
	rd.MaxKeep = resistance.MaxSequenceLength + 1 // longer ones fail anyway; their length is still counted
	type result struct {
		part string
		ok   bool
	}
	type job struct {
		index int
		rec   *fasta.Record
		res   chan result
	}
	work := make(chan job)
	order := make(chan job, 4*jobs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range jobs {
		go func() {
			for j := range work {
				part, ok := batch.Sample(j.index, j.rec)
				j.res <- result{part, ok}
			}
		}()
	}
	readErr := make(chan error, 1)
	go func() {
		defer close(order)
		defer close(work)
		for i := 1; ; i++ {
			rec, err := rd.Next()
			if err == io.EOF {
				readErr <- nil
				return
			}
			if err != nil {
				readErr <- err
				return
			}
			j := job{index: i, rec: rec, res: make(chan result, 1)}
			select {
			case order <- j:
			case <-ctx.Done():
				readErr <- ctx.Err()
				return
			}
			select {
			case work <- j:
			case <-ctx.Done():
				readErr <- ctx.Err()
				return
			}
		}
	}()
	for j := range order {
		r := <-j.res
		n++
		if !r.ok {
			failed++
		}
		err := batch.Take(j.index, r.part) // in input order: what is written is the report's longest prefix that fits
		if err == nil {
			_, err = io.WriteString(out, r.part)
		}
		if err != nil {
			cancel()
			for range order { // let the reader finish
			}
			return n, failed, err
		}
		done()
	}
	if err := <-readErr; err != nil {
		return n, failed, fmt.Errorf("reading the sequences: %w", err)
	}
	if n == 0 {
		return 0, 0, errors.New("no sequence in the input")
	}
	return n, failed, nil
}

// countRecords counts the FASTA headers of a file (1 for a bare sequence), for the progress
// bar's total.
func countRecords(r io.Reader) (int, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	n, atLineStart, any := 0, true, false
	buf := make([]byte, 64<<10)
	for {
		k, err := br.Read(buf)
		for _, c := range buf[:k] {
			if atLineStart && c == '>' {
				n++
			}
			if c != '\n' && c != '\r' && c != ' ' && c != '\t' {
				any = true
			}
			atLineStart = c == '\n'
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if n == 0 && any {
		n = 1
	}
	return n, nil
}

// readLimited reads a file of at most limit bytes.
func readLimited(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := io.Copy(&b, io.LimitReader(f, limit+1)); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(b.Len()) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, limit)
	}
	return b.Bytes(), nil
}
