package algorithm

import (
	"context"
	"runtime"
	"time"

	"github.com/sitelib/sitesvc/gen/soap"
	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/resistance"
	"github.com/sitelib/sitesvc/impl/server"
)

// DefaultMaxWork is the work budget of one request, in work units: the weight of its
// algorithm (resistance.Weight: the condition text it evaluates, the drugs and comments it
// reports) times the sum of its samples' costs. 1.6 G units admit the 10,000 samples
// allowed per request under any bundled algorithm (HIVDB 10.2 weighs 0.16 M) and some 30
// samples of the heaviest user algorithm that fits the 4 MiB document limit; the worst
// accepted request runs a few seconds on one core (BenchmarkWorstAcceptedRequest).
const DefaultMaxWork = 1_600_000_000

// heavyWork is the work from which a request takes one of the heavy-request slots: some
// 125 samples under HIVDB 10.2, a report of at most about 3 MiB and a few hundredths of a
// second. Lighter requests never wait; what one of them holds is small.
const heavyWork = 20_000_000

// heavyWriteDeadline is how long a heavy request has to write its response, from when it is
// admitted: waiting for a slot, the work (at most about 2 s of CPU for interpretation, 5–9 s
// for 10,000,000 nucleotides of alignment on a loaded 2-core machine) and writing up to
// 16 MiB to a slow client.
const heavyWriteDeadline = 5 * time.Minute

// AlgorithmWeight is the work units of one sample under the algorithm opts select (for
// benchmarks and tools; requests are weighed through ReportOptions.Admit).
func (r ResistanceEngine) AlgorithmWeight(opts ReportOptions) (int64, error) {
	w, err := r.E.AlgorithmWeight(options(opts))
	if err != nil {
		return 0, classify(err)
	}
	return w, nil
}

// listCost is the per-sample cost of mutation-list input: every list costs one unit of its
// algorithm's weight (evaluation does not grow with the few mutations a gene may hold).
func listCost(lists [][][]string) int64 { return int64(len(lists)) }

// admitSequences is admit for sequence input: each sequence is one sample of interpretation
// (its mutations through the algorithm, its report part: the algorithm's weight, as a
// mutation list), plus its alignment, which does not depend on the algorithm
// (resistance.AlignmentWork: proportional to its nucleotides).
func (s *Service) admitSequences(ctx context.Context, op string, recs []*fasta.Record) func(weight int64) (func(), error) {
	return s.admit(ctx, op, int64(len(recs)), resistance.AlignmentWork(recs))
}

// heavySlots is the queue heavy requests wait in: one slot per core, so that concurrent
// heavy requests take turns instead of multiplying their memory. At most twice as many
// wait; more are refused with a Server fault saying the server is busy.
type heavySlots chan struct{}

func newHeavySlots(n int) heavySlots {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return make(heavySlots, n)
}

// admit returns the ReportOptions.Admit of a request whose samples cost samples units in
// all, plus alignWork units of sequence alignment: the engine calls it with the algorithm's
// weight (known once the algorithm is parsed, so a user algorithm is parsed once per
// request) before it evaluates or aligns anything. Interpretation work (weight × samples)
// over the budget is a Client fault naming it; the alignment work, bounded by the sequence
// limits already (resistance.MaxTotalBases), is not charged against the budget but counts
// towards making a request heavy: heavy work waits for a slot, released when the report is
// written.
func (s *Service) admit(ctx context.Context, op string, samples, alignWork int64) func(weight int64) (func(), error) {
	return func(weight int64) (func(), error) {
		work := weight * samples
		if samples != 0 && work/samples != weight || work > s.cfg.MaxWork {
			return nil, soap.ClientFault("%s: the request needs %d work units (algorithm weight %d × %d samples), over the work budget of %d per request; send fewer samples per request or a smaller algorithm", op, work, weight, samples, s.cfg.MaxWork)
		}
		if work+alignWork < heavyWork {
			return func() {}, nil
		}
		// A heavy request may wait for a slot and then run for seconds: it gets its own
		// write deadline rather than the server's --write-timeout, which would drop the
		// finished response.
		if err := server.ExtendWriteDeadline(ctx, heavyWriteDeadline); err != nil {
			return nil, soap.ServerFault("%s: %v", op, err)
		}
		release := func() { <-s.heavy }
		select {
		case s.heavy <- struct{}{}:
			return release, nil
		default:
		}
		// Waiting requests hold their input and parsed algorithm: their number is
		// bounded too, so memory is at most (slots + waiting) heavy requests.
		maxWaiting := int64(2 * cap(s.heavy))
		if n := s.waiting.Add(1); n > maxWaiting {
			s.waiting.Add(-1)
			return nil, soap.ServerFault("%s: the server is busy (%d heavy requests running, %d waiting); retry in a few seconds", op, cap(s.heavy), maxWaiting)
		}
		defer s.waiting.Add(-1)
		select {
		case s.heavy <- struct{}{}:
			return release, nil
		case <-ctx.Done():
			return nil, soap.ServerFault("%s: gave up waiting for a heavy-request slot: %v", op, context.Cause(ctx))
		}
	}
}
