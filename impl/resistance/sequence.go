package resistance

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sitelib/sitesvc/impl/align"
	"github.com/sitelib/sitesvc/impl/asi"
	"github.com/sitelib/sitesvc/impl/fasta"
)

// Limits on sequence input (docs/algorithm-reports.md). A sequence outside the length limits
// fails alone, inside the report; a request over the count or total limits is refused whole
// (ErrTooMuchInput).
const (
	MinSequenceLength = align.MinNucleotides // nucleotides per sequence
	MaxSequenceLength = align.MaxNucleotides
	MaxSequences      = 10_000     // sequences per request
	MaxTotalBases     = 10_000_000 // nucleotides per request, all sequences together
)

// NucleotideWork is the work units (budget.go) of aligning one nucleotide: measured on the
// shared machine as the alignment time per nucleotide of generated PR+RT sequences over the
// time per unit of HIVDB 10.2 mutation-list samples (docs/security.md).
const NucleotideWork = 1024

// AlignmentWork is the work of aligning recs: the nucleotides of every sequence the engine
// will align (those within the length limits; the others fail without alignment).
func AlignmentWork(recs []*fasta.Record) int64 {
	var nt int64
	for _, r := range recs {
		if r.Length >= MinSequenceLength && r.Length <= MaxSequenceLength {
			nt += int64(r.Length)
		}
	}
	return nt * NucleotideWork
}

// ErrTooMuchInput is wrapped by the error for a request over MaxSequences or MaxTotalBases.
var ErrTooMuchInput = errors.New("too much sequence input")

// CheckSequenceLimits refuses a request with more than MaxSequences sequences or more than
// MaxTotalBases nucleotides in all, and one with no sequence at all.
func CheckSequenceLimits(recs []*fasta.Record) error {
	if len(recs) == 0 {
		return fmt.Errorf("%w: no sequence given", ErrBadOptions)
	}
	if len(recs) > MaxSequences {
		return fmt.Errorf("%w: %d sequences; at most %d per request", ErrTooMuchInput, len(recs), MaxSequences)
	}
	total := 0
	for _, r := range recs {
		total += r.Length
	}
	if total > MaxTotalBases {
		return fmt.Errorf("%w: %d nucleotides in all; at most %d per request", ErrTooMuchInput, total, MaxTotalBases)
	}
	return nil
}

// Validation levels of the sequence-quality checks, from least to most serious.
const (
	LevelNote          = "NOTE"
	LevelWarning       = "WARNING"
	LevelSevereWarning = "SEVERE WARNING"
)

// Validation is one sequence-quality finding.
type Validation struct {
	Level   string
	Message string
}

// qualityCounts are a sequence's quality figures over its present genes.
type qualityCounts struct {
	StopCodons        int
	APOBEC            int // APOBEC signature mutations (apobecs.csv)
	APOBECDRMs        int // drug-resistance mutations APOBEC can cause (apobec_drms.csv)
	Unusual           int
	Frameshifts       int
	AmbiguousCodons   int
	UnsequencedCodons int
	Removed           int // characters removed from the input
}

// sequenceInput is what a sample holds when its input was a nucleotide sequence.
type sequenceInput struct {
	Name     string
	Sequence string // the nucleotides as read (upper case, non-nucleotides removed)
	MD5      string // hex MD5 of Sequence
	Removed  string // which characters were removed and how many ("" when none)
	Align    *align.Result
	Genes    map[string]*align.GeneResult // present genes, by name
	Codons   map[string]map[int]*align.Mutation
	Counts   qualityCounts
}

// sequenceGenes are the genes a sequence report shows, in report order; CA only when present.
var sequenceGenes = [...]string{"CA", "PR", "RT", "IN"}

// Sequences are analysed in parallel within one request by at most this many goroutines
// (and at most GOMAXPROCS).
const maxWorkers = 16

// analyseInto analyses recs into out (same length), in parallel on up to len(out)
// goroutines; first is the 1-based index of recs[0] in the request.
func (e *Engine) analyseInto(s *settings, out []sample, recs []*fasta.Record, first int) {
	if len(out) <= 1 {
		for i, r := range recs {
			out[i] = e.analyseSequence(s, first+i, r)
		}
		return
	}
	var wg sync.WaitGroup
	for i := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = e.analyseSequence(s, first+i, recs[i])
		}()
	}
	wg.Wait()
}

// SequenceReport analyses nucleotide sequences and returns one report holding them all. A
// sequence that is too short, too long or holds no PR, RT or IN fails alone, inside the
// report. Errors: bad options (ErrUnknownReportType, ErrBadOptions), a broken user algorithm
// (*asi.Error), a request over the limits (ErrTooMuchInput), a report over its limit
// (ErrReportTooLarge), or what Options.Admit refused. Sequences are analysed a few at a time
// while the report is written (batch.each), never all before it.
func (e *Engine) SequenceReport(recs []*fasta.Record, opts Options) (string, error) {
	if err := CheckSequenceLimits(recs); err != nil {
		return "", err
	}
	s, err := e.resolve(opts)
	if err != nil {
		return "", err
	}
	s.sequences = true
	release, err := s.admit()
	if err != nil {
		return "", err
	}
	defer release()
	return e.render(s, &batch{e: e, s: s, recs: recs, first: 1})
}

// SequenceReports is SequenceReport with one complete report per sequence; the report limit
// applies to their sum.
func (e *Engine) SequenceReports(recs []*fasta.Record, opts Options) ([]string, error) {
	if err := CheckSequenceLimits(recs); err != nil {
		return nil, err
	}
	s, err := e.resolve(opts)
	if err != nil {
		return nil, err
	}
	s.sequences = true
	release, err := s.admit()
	if err != nil {
		return nil, err
	}
	defer release()
	return e.reports(s, &batch{e: e, s: s, recs: recs, first: 1})
}

// Batch renders one report in pieces, for inputs too large to hold at once (sitesvc analyze):
// Header, then Sample for every input in order (safe to call concurrently), then Footer.
// The concatenation equals the report SequenceReport would write for the same inputs. The
// report limit (Options.MaxReportBytes) applies to the pieces together: a Sample that takes
// the report past it returns ErrReportTooLarge. Options.Admit is not used (the input's size
// is not known in advance; analyze is the operator's own tool).
type Batch struct {
	e       *Engine
	s       *settings
	written atomic.Int64 // bytes of the pieces handed out so far
	rows    summaryRows  // the HTML report's summary rows (report_html.go)
}

// NewBatch resolves the options of a batch report.
func (e *Engine) NewBatch(opts Options) (*Batch, error) {
	s, err := e.resolve(opts)
	if err != nil {
		return nil, err
	}
	s.sequences = true
	return &Batch{e: e, s: s}, nil
}

// Header is the report's beginning.
func (b *Batch) Header() string {
	h := b.e.renderHeader(b.s)
	b.written.Add(int64(len(h)))
	return h
}

// Sample analyses one sequence (index is its 1-based position) and renders its part of the
// report; ok is false when the sequence failed (its failure entry is still rendered). Safe
// to call concurrently; the report limit is applied by Take, in input order.
func (b *Batch) Sample(index int, rec *fasta.Record) (part string, ok bool) {
	smp := b.e.analyseSequence(b.s, index, rec)
	part = b.e.renderSample(b.s, &smp)
	b.rows.add(b.e, b.s, &smp)
	return part, smp.Err == ""
}

// Take counts the part of sequence index against the report limit (Options.MaxReportBytes)
// before it is written; call it in input order, so what is written is the longest prefix of
// the report that fits, however the samples were scheduled. It wraps ErrReportTooLarge when
// the part would take the report past its limit; every later Take fails too.
func (b *Batch) Take(index int, part string) error {
	if n := b.written.Add(int64(len(part))); n > int64(b.s.maxBytes) {
		return fmt.Errorf("%w: the report passed the limit of %d bytes at sequence %d", ErrReportTooLarge, b.s.maxBytes, index)
	}
	return nil
}

// Footer is the report's end.
func (b *Batch) Footer() string { return b.e.renderFooter(b.s) }

// Align runs the aligner alone on one sequence. With Interpret it splits the cost of Sample
// in two (for benchmarks): Interpret runs everything after the alignment (mutations, ASI,
// quality, the report part).
func (b *Batch) Align(rec *fasta.Record) (*align.Result, error) {
	return b.e.aligner.Align(rec.Sequence)
}

// Interpret renders the report part of one sequence from an alignment made by Align.
func (b *Batch) Interpret(index int, rec *fasta.Record, res *align.Result) string {
	smp := b.e.sequenceSample(b.s, index, rec)
	b.e.interpret(b.s, &smp, res)
	return b.e.renderSample(b.s, &smp)
}

func (e *Engine) sequenceSample(_ *settings, index int, rec *fasta.Record) sample {
	seq := string(rec.Sequence)
	sum := md5.Sum(rec.Sequence)
	return sample{Index: index, Seq: &sequenceInput{
		Name: rec.Name, Sequence: seq, MD5: hex.EncodeToString(sum[:]), Removed: rec.RemovedSummary(),
		Counts: qualityCounts{Removed: rec.RemovedCount()},
	}}
}

// analyseSequence aligns one sequence and interprets it; failures stay inside the sample.
func (e *Engine) analyseSequence(s *settings, index int, rec *fasta.Record) sample {
	smp := e.sequenceSample(s, index, rec)
	switch {
	case rec.Length < MinSequenceLength:
		smp.Err = fmt.Sprintf("Sequence too short: %d nucleotides; at least %d are needed", rec.Length, MinSequenceLength)
		return smp
	case rec.Length > MaxSequenceLength:
		smp.Err = fmt.Sprintf("Sequence too long: %d nucleotides; at most %d are analysed", rec.Length, MaxSequenceLength)
		return smp
	}
	res, err := e.aligner.Align(rec.Sequence)
	if err != nil {
		switch {
		case errors.Is(err, align.ErrNoGene):
			smp.Err = fmt.Sprintf("no PR, RT or IN found in the sequence (%d nucleotides): it does not align to HIV-1 protease, reverse transcriptase or integrase", rec.Length)
		default:
			smp.Err = "the sequence could not be aligned: " + err.Error()
		}
		return smp
	}
	e.interpret(s, &smp, res)
	return smp
}

// interpret turns an alignment into the sample's genes, quality and ASI result.
func (e *Engine) interpret(s *settings, smp *sample, res *align.Result) {
	sq := smp.Seq
	sq.Align = res
	sq.Genes = map[string]*align.GeneResult{}
	sq.Codons = map[string]map[int]*align.Mutation{}
	for i := range res.Genes {
		g := &res.Genes[i]
		sq.Genes[string(g.Gene)] = g
	}
	if sq.Genes["PR"] == nil && sq.Genes["RT"] == nil && sq.Genes["IN"] == nil {
		smp.Err = "no PR, RT or IN found in the sequence (only capsid aligned): drug-resistance analysis needs protease, reverse transcriptase or integrase"
		return
	}
	if res.NotHIV1 != nil {
		smp.Err = notHIV1Failure(res.NotHIV1) // quality.go
		return
	}
	in := asi.Input{Genes: map[string]*asi.Mutations{}}
	for _, gene := range sequenceGenes {
		g := sq.Genes[gene]
		gi := geneInput{Gene: gene, Sequenced: g != nil}
		if g != nil {
			gi, sq.Codons[gene] = e.ref.geneFromAlignment(gene, g)
			in.Genes[gene] = gi.Set
		}
		if gene == "CA" {
			if g != nil {
				smp.Extra = append(smp.Extra, gi)
			}
			continue
		}
		smp.Genes = append(smp.Genes, gi)
	}
	e.countQuality(smp, res)
	in.Format = func(gene string, m asi.Match) string {
		return Mutation{Gene: gene, Pos: m.Pos, Consensus: e.ref.consensusAt(gene, m.Pos), AAs: m.AAs}.String()
	}
	smp.Result = s.alg.Evaluate(in)
	sortComments(smp.Result.Comments)
}

// geneFromAlignment builds a gene's mutations from the aligner's, exactly as parseGene builds
// them from mutation strings, so that the ASI rules see sequences and lists alike.
func (r *reference) geneFromAlignment(gene string, g *align.GeneResult) (geneInput, map[int]*align.Mutation) {
	consensus := r.consensus[gene]
	gi := geneInput{Gene: gene, Sequenced: true}
	codons := make(map[int]*align.Mutation, len(g.Mutations))
	for i := range g.Mutations {
		am := &g.Mutations[i]
		if am.Position < 1 || am.Position > len(consensus) {
			continue
		}
		m := Mutation{Gene: gene, Pos: am.Position, Consensus: consensus[am.Position-1]}
		if am.Deletion {
			m.AAs |= asi.Deletion
		}
		for _, c := range []byte(am.AAs) {
			switch c {
			case '*':
				m.AAs |= asi.Stop
			case 'X':
				m.AAs |= asi.Unknown
			default:
				m.AAs |= asi.SymbolSet(c)
			}
		}
		if am.Insertion {
			m.AAs |= asi.Insertion
			m.Inserted = am.InsertedAAs
		}
		m = normalizeUnknown(m)
		if m.AAs == asi.SymbolSet(m.Consensus) && m.Inserted == "" || m.AAs == 0 {
			continue
		}
		gi.Mutations = append(gi.Mutations, m)
		codons[am.Position] = am
	}
	sort.Slice(gi.Mutations, func(i, j int) bool { return gi.Mutations[i].Pos < gi.Mutations[j].Pos })
	gi.Set = asi.NewMutations(len(consensus))
	gi.display = make(map[int]string, len(gi.Mutations))
	for _, m := range gi.Mutations {
		gi.Set.Add(m.Pos, m.AAs&^asi.SymbolSet(m.Consensus))
		gi.display[m.Pos] = m.String()
		gi.Raw = append(gi.Raw, m.String())
	}
	return gi, codons
}

// countQuality fills the sequence's quality counts and validation findings (validate,
// quality.go: Stanford's rules and levels, each finding naming its mutations).
func (e *Engine) countQuality(smp *sample, res *align.Result) {
	sq := smp.Seq
	c := &sq.Counts
	for _, list := range [][]geneInput{smp.Extra, smp.Genes} {
		for _, gi := range list {
			g := sq.Genes[gi.Gene]
			if g == nil {
				continue
			}
			c.StopCodons += g.StopCodons
			c.Frameshifts += len(g.Frameshifts)
			c.AmbiguousCodons += g.AmbiguousCodons
			c.UnsequencedCodons += g.UnsequencedCodons
			for _, m := range gi.Mutations {
				if _, _, unusual := e.ref.flags(m); unusual {
					c.Unusual++
				}
				apobec, drm := e.apobecFlags(m)
				if apobec {
					c.APOBEC++
				}
				if drm {
					c.APOBECDRMs++
				}
			}
		}
	}
	smp.Validation = e.validate(smp, res) // quality.go: the findings named, with their levels
}

// hypermutated is the reference doc's APOBEC flag: two or more signature mutations.
func (c qualityCounts) hypermutated() bool { return c.APOBEC >= 2 }

// apobecFlags tells whether any of a mutation's amino acids is an APOBEC signature mutation
// (apobecs.csv), and whether one is a drug-resistance mutation APOBEC can cause
// (apobec_drms.csv; these are not signature mutations themselves). The signature table is
// the aligner's, read once by align.NewAligner.
func (e *Engine) apobecFlags(m Mutation) (apobec, drm bool) {
	for _, c := range []byte(m.AAs.String()) {
		if c == m.Consensus {
			continue
		}
		aa := c
		if aa == 'Z' { // the asi stop symbol; the aligner's tables write a stop as '*'
			aa = '*'
		}
		apobec = apobec || e.aligner.IsAPOBEC(align.Gene(m.Gene), m.Pos, aa)
		drm = drm || e.ref.apobecDRMs[typeKey{m.Gene, m.Pos, c}]
	}
	return apobec, drm
}

// percent prints a percentage with at most two decimals.
func percent(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// geneRange is "firstAA-lastAA" for the text report.
func geneRange(g *align.GeneResult) string {
	return strconv.Itoa(g.FirstAA) + "-" + strconv.Itoa(g.LastAA)
}

// frameshiftList names a gene's frameshifts ("PR7ins1bp_C, PR13del2bp").
func frameshiftList(gs ...*align.GeneResult) string {
	var out []string
	for _, g := range gs {
		if g == nil {
			continue
		}
		for _, f := range g.Frameshifts {
			out = append(out, f.String())
		}
	}
	return strings.Join(out, ", ")
}
