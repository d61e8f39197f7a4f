package resistance

import (
	"errors"
	"fmt"
	"iter"
	"runtime"
	"strings"

	"github.com/sitelib/sitesvc/impl/asi"
	"github.com/sitelib/sitesvc/impl/fasta"
)

// Work units. A request's work is the weight of its algorithm (units of one sample's
// evaluation and report) times the sum of its samples' costs (a mutation list costs 1).
// The weight counts what evaluating and reporting one sample visits in the worst case
// (every condition holding): the nodes of every condition (asi.Cost), the SCORE FROM items
// (each a partial score, and in the detailed, "XML 2009" and HTML reports a line with its
// matched mutations), the rules, the drugs (a result and its report elements), the
// comments (their text and $listMutsIn placeholders). One unit is about 0.8 ns of CPU in
// the worst shape of each construct on the shared development machine, so the 1.6 G units
// of a request are at most about 1.5 s of CPU (impl/algorithm's BenchmarkWorkShapes
// measures each; docs/security.md lists them).
const (
	// nodeUnits is a condition node (a residue, NOT, a chain, a SELECT group): up to 26 ns
	// (SELECT lists in the "XML 2009" report; 5–10 ns in AND/OR chains).
	nodeUnits = 32
	// itemUnits is a SCORE FROM item beside its nodes: its partial score (54 ns a leaf item
	// with its residue, up to 77 ns on a loaded machine; 40 ns inside MAX groups).
	itemUnits = 80
	// partialReportUnits is a partial score's line in the detailed, "XML 2009" and HTML
	// reports (its matched mutations formatted): 0.7–1.1 µs.
	partialReportUnits = 1400
	// ruleUnits is a rule's fixed cost beside its condition (its level or score range,
	// its place in the report): 53–170 ns, up to 290 ns on a loaded machine.
	ruleUnits = 320
	// drugUnits is a drug's result and report elements in the text report (1.4 µs);
	// drugXMLUnits in the XML reports (3.2–4.6 µs).
	drugUnits    = 2048
	drugXMLUnits = 5760
	// placeholderUnits is a $listMutsIn{…} placeholder filled in a comment: 0.6 µs.
	placeholderUnits = 800
	// resultUnits is a result-comment rule's fixed cost and each of its conditions and
	// comments.
	resultUnits = 16
	// bundledRuleUnits is a rule's fixed cost and each comment it names in bundledWeight.
	bundledRuleUnits = 16
)

// DefaultMaxReportBytes bounds one report (and, for the per-sample overload, the sum of
// its reports): 16 MiB holds some 700 "XML 2009" or 900 detailed HIVDB reports, and the
// text report of 10,000 samples. The SOAP envelope escapes it once more on the way out
// (about 1.5× for XML reports), which is what keeps a request under 256 MiB of heap.
const DefaultMaxReportBytes = 16 << 20

// ErrReportTooLarge is wrapped by the error of a report that would exceed the report limit.
var ErrReportTooLarge = errors.New("report too large")

// bundledWeight is the weight of a bundled algorithm (or one given with --hivdb-dir): the
// text of its conditions, its drugs and comments, measured on HIVDB 10.2 at 0.41 ns per
// unit for its text report. These algorithms are the operator's, not a client's: their
// worst sample (every position of every gene carrying every amino acid) costs 0.84 ms in
// the text report, and the request body limit admits some 700 such samples, so their CPU
// is bounded by the body limit; weighing them by the worst case of each construct (Weight)
// would refuse the 10,000 ordinary samples a request may hold.
func bundledWeight(alg *asi.Algorithm) int64 {
	w := int64(1024)
	for _, d := range alg.Drugs {
		w += drugUnits + int64(len(d.Name)+len(d.FullName))
		for _, r := range d.Rules {
			w += bundledRuleUnits + int64(len(r.Condition.Text)) + int64(len(r.Comments))*bundledRuleUnits
		}
	}
	for _, gc := range alg.MutationComments {
		for _, r := range gc.Rules {
			w += bundledRuleUnits + int64(len(r.Condition.Text)) + int64(len(r.Comments))*bundledRuleUnits
		}
	}
	for _, r := range alg.ResultComments {
		w += resultUnits * int64(1+len(r.Conditions)+len(r.Comments))
	}
	for _, c := range alg.Comments {
		w += int64(len(c.Text))
	}
	return w
}

// weight is the weight of the report s describes: Weight for a user-submitted algorithm,
// bundledWeight for the operator's.
func (s *settings) weight() int64 {
	if s.user {
		return Weight(s.alg, s.reportType)
	}
	return bundledWeight(s.alg)
}

// Weight is the work units of evaluating and reporting one sample under a user-submitted
// algorithm alg as a report of type rt, in the worst case: every condition holding.
func Weight(alg *asi.Algorithm, rt ReportType) int64 {
	detailed := rt == ReportDetailed || rt == Report2009 || rt == ReportHTML // they list partial scores
	drug := int64(drugUnits)
	if rt != ReportText {
		drug = drugXMLUnits
	}
	rule := func(c *asi.Condition, comments []string) int64 {
		k := c.Cost()
		eval := int64(k.Nodes)*nodeUnits + int64(k.Items)*itemUnits
		w := ruleUnits + eval + int64(len(comments))*resultUnits
		if detailed {
			w += int64(k.Items) * partialReportUnits
		}
		if len(comments) > 0 {
			w += eval // the matches the comments list: the condition once more
		}
		return w
	}
	w := int64(1024) // header, sample envelope
	for _, d := range alg.Drugs {
		w += drug + int64(len(d.Name)+len(d.FullName))
		for _, r := range d.Rules {
			w += rule(r.Condition, r.Comments)
		}
	}
	for _, gc := range alg.MutationComments {
		for _, r := range gc.Rules {
			w += rule(r.Condition, r.Comments)
		}
	}
	for _, r := range alg.ResultComments {
		w += resultUnits * int64(1+len(r.Conditions)+len(r.Comments))
	}
	for _, c := range alg.Comments {
		w += int64(len(c.Text)) + placeholderUnits*int64(strings.Count(c.Text, "$listMutsIn{"))
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
	return s.weight(), nil
}

// admit asks Options.Admit whether the report may run, with the algorithm's weight.
func (s *settings) admit() (release func(), err error) {
	if s.opts.Admit == nil {
		return func() {}, nil
	}
	return s.opts.Admit(s.weight())
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
