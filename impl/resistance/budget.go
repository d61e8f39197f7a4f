package resistance

import (
	"errors"
	"fmt"
	"iter"
	"runtime"

	"github.com/sitelib/sitesvc/impl/asi"
	"github.com/sitelib/sitesvc/impl/fasta"
)

// Work units. A request's work is the weight of its algorithm (units of one sample's
// evaluation and report) times the sum of its samples' costs (a mutation list costs 1;
// sequence input will cost more per sample). Both evaluation time and the size of one
// sample's result and report grow with what the algorithm defines: the condition texts it
// evaluates, the drugs it reports on (each a result and several report elements), the
// comments it may print. HIVDB 10.2 weighs 0.16 M; a 4 MiB document of 25,000 scored drugs
// 52 M (see impl/algorithm's BenchmarkWorstAcceptedRequest for the time per unit of each).
const (
	// drugWeight is a drug's fixed cost: its result, its partial scores, its half kilobyte
	// of report elements, its cells of a text row (measured: a drug costs about as much
	// time as 2 KB of condition text).
	drugWeight = 2048
	// ruleWeight is a rule's fixed cost beside its condition text.
	ruleWeight = 16
)

// DefaultMaxReportBytes bounds one report (and, for the per-sample overload, the sum of
// its reports): 16 MiB holds some 700 "XML 2009" or 900 detailed HIVDB reports, and the
// text report of 10,000 samples. The SOAP envelope escapes it once more on the way out
// (about 1.5× for XML reports), which is what keeps a request under 256 MiB of heap.
const DefaultMaxReportBytes = 16 << 20

// ErrReportTooLarge is wrapped by the error of a report that would exceed the report limit.
var ErrReportTooLarge = errors.New("report too large")

// Weight is the work units of evaluating and reporting one sample under alg.
func Weight(alg *asi.Algorithm) int64 {
	w := int64(1024) // header, sample envelope
	for _, d := range alg.Drugs {
		w += drugWeight + int64(len(d.Name)+len(d.FullName))
		for _, r := range d.Rules {
			w += ruleWeight + int64(len(r.Condition.Text)) + int64(len(r.Comments))*ruleWeight
		}
	}
	for _, gc := range alg.MutationComments {
		for _, r := range gc.Rules {
			w += ruleWeight + int64(len(r.Condition.Text)) + int64(len(r.Comments))*ruleWeight
		}
	}
	for _, r := range alg.ResultComments {
		w += ruleWeight * int64(1+len(r.Conditions)+len(r.Comments))
	}
	for _, c := range alg.Comments {
		w += int64(len(c.Text))
	}
	return w
}

// AlgorithmWeight resolves opts (parsing a user-submitted algorithm through the cache) and
// returns the weight of the algorithm a report with these options would use. Its errors are
// those of the report itself (bad options, a broken user algorithm).
func (e *Engine) AlgorithmWeight(opts Options) (int64, error) {
	s, err := e.resolve(opts)
	if err != nil {
		return 0, err
	}
	return Weight(s.alg), nil
}

// admit asks Options.Admit whether the report may run, with the algorithm's weight.
func (s *settings) admit() (release func(), err error) {
	if s.opts.Admit == nil {
		return func() {}, nil
	}
	return s.opts.Admit(Weight(s.alg))
}

// batch is the inputs of one report — mutation lists or nucleotide sequences — evaluated
// while the report is written, so that a request holds the results of a few samples at a
// time rather than all of them, and stops as soon as the report outgrows the limit.
// Sequences are analysed a window of up to `workers` at a time in parallel (the alignment
// is what costs), and yielded in input order.
type batch struct {
	e     *Engine
	s     *settings
	lists [][][]string    // mutation-list input, or
	recs  []*fasta.Record // sequence input
	first int             // 1-based index of the first input in the request
	err   error
}

func (b *batch) Len() int {
	if b.recs != nil {
		return len(b.recs)
	}
	return len(b.lists)
}

// each evaluates and yields the samples in order; after each one it checks size() (the
// report written so far) against the limit, and stops with b.err set when it is over.
func (b *batch) each(size func() int) iter.Seq[*sample] {
	return func(yield func(*sample) bool) {
		n := b.Len()
		if b.recs == nil {
			for i, l := range b.lists {
				smp := b.e.evaluate(b.s, b.first+i, l)
				if !yield(&smp) || b.over(size(), i, n) {
					return
				}
			}
			return
		}
		window := make([]sample, min(max(runtime.GOMAXPROCS(0), 1), maxWorkers, n))
		for start := 0; start < n; start += len(window) {
			part := window[:min(len(window), n-start)]
			b.e.analyseInto(b.s, part, b.recs[start:start+len(part)], b.first+start)
			for k := range part {
				if !yield(&part[k]) || b.over(size(), start+k, n) {
					return
				}
				part[k] = sample{} // let its alignment go before the next window
			}
		}
	}
}

// over records ErrReportTooLarge when the report (size bytes so far, sample i of n) has
// passed the limit.
func (b *batch) over(size, i, n int) bool {
	if size <= b.s.maxBytes {
		return false
	}
	b.err = fmt.Errorf("%w: the report passed the limit of %d bytes at sample %d of %d; send fewer samples per request or a shorter report type", ErrReportTooLarge, b.s.maxBytes, b.first+i, b.first+n-1)
	return true
}

// sizeHint is the initial capacity of a report's buffer: per sample, but never more than
// a few samples' worth up front (a 10,000-sample request used to reserve 320 MB at once).
func sizeHint(s *settings, samples int) int {
	perSample := 32768
	if s.reportType == ReportText {
		perSample = 1024
	}
	return 4096 + perSample*min(samples, 16)
}
