package algorithm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/sitelib/sitesvc/gen/soap"
	"github.com/sitelib/sitesvc/gen/soapapi"
	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/resistance"
)

// ReportOptions tells the engine what report to write; the algorithm
// selectors and report types are resistance's (declared there once), and
// Admit is the work budget and heavy-request queue (budget.go).
type ReportOptions = resistance.Options

// Engine writes resistance reports. lists is [sample][gene PR, RT, IN][mutation].
// Errors the caller caused (unknown report type, broken user algorithm)
// are *InputError; anything else is the service's fault.
//
// Sequence reports analyse nucleotide sequences; a sequence that fails (too short, too long,
// no PR, RT or IN) fails alone inside the report.
type Engine interface {
	MutationListReport(lists [][][]string, opts ReportOptions) (string, error)
	MutationListReports(lists [][][]string, opts ReportOptions) ([]string, error)
	SequenceReport(recs []*fasta.Record, opts ReportOptions) (string, error)
	SequenceReports(recs []*fasta.Record, opts ReportOptions) ([]string, error)
	ScoringMatrix() string
}

// InputError is an engine error caused by the request; it becomes a SOAP
// Client fault with its message.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// InvalidKeyReport is the report every operation returns for an invalid
// key, in place of the report asked for: the service's existing clients
// look for it inside the normal report string rather than for a fault.
const InvalidKeyReport = `<failure><errorMessage>Invalid key.</errorMessage></failure>`

// keyed answers one operation for the holder of key: the key is checked (and its rate
// limited); an invalid key is answered with invalid (InvalidKeyReport) in place of the
// report, a valid one with what report makes. wrap puts a report into the operation's
// response.
func keyed[T, R any](ctx context.Context, s *Service, op, key string, invalid T, wrap func(T) *R, report func() (T, error)) (*R, error) {
	valid, err := s.checkKey(ctx, op, key)
	if err != nil {
		return nil, err
	}
	if !valid {
		return wrap(invalid), nil
	}
	rep, err := report()
	if err != nil {
		return nil, err
	}
	return wrap(rep), nil
}

// checkKey applies the key check and the rate limits. valid is false for
// an invalid key (the caller answers InvalidKeyReport); err is a fault
// when a limit is exceeded.
func (s *Service) checkKey(ctx context.Context, op, key string) (valid bool, err error) {
	now := time.Now()
	if s.keys.valid(key) {
		if ok, retry := s.keyLimits.allow(HashKey(key), now); !ok {
			return false, rateFault(retry)
		}
		return true, nil
	}
	client := clientAddress(ctx)
	ok, retry := s.badKeyLimit.allow(client, now)
	s.log.Warn("SOAP request with an invalid API key", "operation", op, "client", client, "limited", !ok)
	if !ok {
		return false, rateFault(retry)
	}
	return false, nil
}

func rateFault(retry time.Duration) error {
	secs := int(retry.Seconds() + 0.999)
	if secs < 1 {
		secs = 1
	}
	return soap.ClientFault("rate limit exceeded; retry in %d s", secs)
}

func clientAddress(ctx context.Context) string {
	r := soap.RequestFromContext(ctx)
	if r == nil {
		return "unknown"
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// engineError turns an engine error into a fault: InputError → Client with
// its message; anything else stays an error (a Server fault, logged).
func engineError(op string, err error) error {
	var in *InputError
	if errors.As(err, &in) {
		return soap.ClientFault("%s: %v", op, in.Err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// GetScoringMatrix implements soapapi.SiteAlgorithm.
func (s *Service) GetScoringMatrix(ctx context.Context, in *soapapi.GetScoringMatrixRequest) (*soapapi.GetScoringMatrixResponse, error) {
	wrap := func(r string) *soapapi.GetScoringMatrixResponse {
		return &soapapi.GetScoringMatrixResponse{GetScoringMatrixReturn: r}
	}
	return keyed(ctx, s, "getScoringMatrix", in.Key, InvalidKeyReport, wrap, func() (string, error) {
		return s.cfg.Engine.ScoringMatrix(), nil
	})
}

// ProcessMutationLists implements soapapi.SiteAlgorithm: the default
// algorithm (HIVDB) over mutationsList[sample][gene PR, RT, IN][mutation].
func (s *Service) ProcessMutationLists(ctx context.Context, in *soapapi.ProcessMutationListsRequest) (*soapapi.ProcessMutationListsResponse, error) {
	wrap := func(r string) *soapapi.ProcessMutationListsResponse {
		return &soapapi.ProcessMutationListsResponse{ProcessMutationListsReturn: r}
	}
	return keyed(ctx, s, "processMutationLists", in.Key, InvalidKeyReport, wrap, func() (string, error) {
		if err := checkLists(in.MutationsList, "mutationsList"); err != nil {
			return "", err
		}
		opts := ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: resistance.ReportType(in.ReportTypeInt)}
		opts.Admit = s.admit(ctx, "processMutationLists", listCost(in.MutationsList), 0) // work budget (budget.go)
		report, err := s.cfg.Engine.MutationListReport(in.MutationsList, opts)
		if err != nil {
			return "", engineError("processMutationLists", err)
		}
		return report, nil
	})
}

// ProcessSequences1 implements soapapi.SiteAlgorithm (overload 2: one
// report string).
func (s *Service) ProcessSequences1(ctx context.Context, in *soapapi.ProcessSequencesRequest1) (*soapapi.ProcessSequencesResponse1, error) {
	wrap := func(r string) *soapapi.ProcessSequencesResponse1 {
		return &soapapi.ProcessSequencesResponse1{ProcessSequencesReturn: r}
	}
	return keyed(ctx, s, "processSequences", in.Key, InvalidKeyReport, wrap, func() (string, error) {
		input, opts, err := overloadInput(in.InAlgorithmInterface, in.Algorithm, in.UserSubmittedAlgorithm, in.InputData)
		if err != nil {
			return "", err
		}
		opts.ReportOptions, opts.MethodName, opts.ReportName, opts.ReportDate = in.ReportOptions, in.MethodName, in.ReportName, in.ReportDate
		reports, err := s.overloadReports(ctx, input, opts, true)
		if err != nil {
			return "", err
		}
		return reports[0], nil
	})
}

// ProcessSequences2 implements soapapi.SiteAlgorithm (overload 3: one
// report string per input, as an array).
func (s *Service) ProcessSequences2(ctx context.Context, in *soapapi.ProcessSequencesRequest2) (*soapapi.ProcessSequencesResponse2, error) {
	wrap := func(r []any) *soapapi.ProcessSequencesResponse2 {
		return &soapapi.ProcessSequencesResponse2{ProcessSequencesReturn: r}
	}
	return keyed(ctx, s, "processSequences", in.Key, []any{InvalidKeyReport}, wrap, func() ([]any, error) {
		input, opts, err := overloadInput(in.InAlgorithmInterface, in.Algorithm, in.UserSubmittedAlgorithm, in.InputData)
		if err != nil {
			return nil, err
		}
		opts.MethodName, opts.ReportName, opts.ReportDate = in.MethodName, in.ReportName, in.ReportDate
		reports, err := s.overloadReports(ctx, input, opts, false)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(reports))
		for i, r := range reports {
			out[i] = r
		}
		return out, nil
	})
}

// ProcessSequences implements soapapi.SiteAlgorithm (overload 1: one
// sequence per array element; an element may be a one-record FASTA).
func (s *Service) ProcessSequences(ctx context.Context, in *soapapi.ProcessSequencesRequest) (*soapapi.ProcessSequencesResponse, error) {
	wrap := func(r string) *soapapi.ProcessSequencesResponse {
		return &soapapi.ProcessSequencesResponse{ProcessSequencesReturn: r}
	}
	return keyed(ctx, s, "processSequences", in.Key, InvalidKeyReport, wrap, func() (string, error) {
		recs, err := sequenceArray(in.Sequence, "sequence")
		if err != nil {
			return "", err
		}
		return s.sequenceReport(ctx, "processSequences", recs, ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: resistance.ReportType(in.ReportTypeInt)})
	})
}

// ProcessSequence implements soapapi.SiteAlgorithm: one sequence (bare or
// a one-record FASTA), HIVDB, the simple report.
func (s *Service) ProcessSequence(ctx context.Context, in *soapapi.ProcessSequenceRequest) (*soapapi.ProcessSequenceResponse, error) {
	wrap := func(r string) *soapapi.ProcessSequenceResponse {
		return &soapapi.ProcessSequenceResponse{ProcessSequenceReturn: r}
	}
	return keyed(ctx, s, "processSequence", in.Key, InvalidKeyReport, wrap, func() (string, error) {
		recs, err := oneSequence(in.Sequence, "sequence")
		if err != nil {
			return "", err
		}
		return s.sequenceReport(ctx, "processSequence", []*fasta.Record{recs}, ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: resistance.ReportSimple})
	})
}

// ProcessSequencesInFasta implements soapapi.SiteAlgorithm.
func (s *Service) ProcessSequencesInFasta(ctx context.Context, in *soapapi.ProcessSequencesInFastaRequest) (*soapapi.ProcessSequencesInFastaResponse, error) {
	wrap := func(r string) *soapapi.ProcessSequencesInFastaResponse {
		return &soapapi.ProcessSequencesInFastaResponse{ProcessSequencesInFastaReturn: r}
	}
	return keyed(ctx, s, "processSequencesInFasta", in.Key, InvalidKeyReport, wrap, func() (string, error) {
		return s.sequenceReport(ctx, "processSequencesInFasta", fasta.Parse(in.SequencesInFasta), ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: resistance.ReportType(in.ReportTypeInt)})
	})
}

// ProcessSequencesString implements soapapi.SiteAlgorithm: a bare sequence
// or FASTA.
func (s *Service) ProcessSequencesString(ctx context.Context, in *soapapi.ProcessSequencesStringRequest) (*soapapi.ProcessSequencesStringResponse, error) {
	wrap := func(r string) *soapapi.ProcessSequencesStringResponse {
		return &soapapi.ProcessSequencesStringResponse{ProcessSequencesStringReturn: r}
	}
	return keyed(ctx, s, "processSequencesString", in.Key, InvalidKeyReport, wrap, func() (string, error) {
		return s.sequenceReport(ctx, "processSequencesString", fasta.Parse(in.Sequences), ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: resistance.ReportType(in.ReportTypeInt)})
	})
}

// overloadReports runs the engine on what overloadInput read for overloads 2 and 3, within
// the work budget: one report of all the input (whole), or one report per input.
func (s *Service) overloadReports(ctx context.Context, input overloadData, opts ReportOptions, whole bool) ([]string, error) {
	const op = "processSequences"
	var reports []string
	var err error
	if input.sequences != nil {
		opts.Admit = s.admitSequences(ctx, op, input.sequences) // work budget (budget.go)
		if whole {
			reports, err = oneReport(s.cfg.Engine.SequenceReport(input.sequences, opts))
		} else {
			reports, err = s.cfg.Engine.SequenceReports(input.sequences, opts)
		}
	} else {
		opts.Admit = s.admit(ctx, op, listCost(input.lists), 0)
		if whole {
			reports, err = oneReport(s.cfg.Engine.MutationListReport(input.lists, opts))
		} else {
			reports, err = s.cfg.Engine.MutationListReports(input.lists, opts)
		}
	}
	if err != nil {
		return nil, engineError(op, err)
	}
	return reports, nil
}

func oneReport(report string, err error) ([]string, error) { return []string{report}, err }

// sequenceReport runs the engine on sequences within the work budget, turning its errors
// into faults.
func (s *Service) sequenceReport(ctx context.Context, op string, recs []*fasta.Record, opts ReportOptions) (string, error) {
	opts.Admit = s.admitSequences(ctx, op, recs) // work budget (budget.go)
	report, err := s.cfg.Engine.SequenceReport(recs, opts)
	if err != nil {
		return "", engineError(op, err)
	}
	return report, nil
}

// oneSequence reads a part holding one sequence: bare, or a FASTA of one
// record.
func oneSequence(text, part string) (*fasta.Record, error) {
	recs := fasta.Parse(text)
	switch {
	case len(recs) == 0:
		return nil, soap.ClientFault("%s is empty: give a nucleotide sequence (bare or as one FASTA record)", part)
	case len(recs) > 1:
		return nil, soap.ClientFault("%s holds %d FASTA records; it takes one sequence (processSequencesInFasta takes many)", part, len(recs))
	}
	return recs[0], nil
}

// sequenceArray reads an array of sequences, one per element (bare or a
// one-record FASTA). An empty element is a sequence of length 0, which
// fails alone inside the report.
func sequenceArray(items []string, part string) ([]*fasta.Record, error) {
	if len(items) == 0 {
		return nil, soap.ClientFault("%s is empty: give at least one sequence", part)
	}
	if len(items) > resistance.MaxSequences {
		return nil, soap.ClientFault("%s has %d sequences; at most %d per request", part, len(items), resistance.MaxSequences)
	}
	recs := make([]*fasta.Record, len(items))
	for i, item := range items {
		r := fasta.Parse(item)
		switch len(r) {
		case 0:
			recs[i] = &fasta.Record{}
		case 1:
			recs[i] = r[0]
		default:
			return nil, soap.ClientFault("%s item %d holds %d FASTA records; give one sequence per item", part, i+1, len(r))
		}
	}
	return recs, nil
}

// maxSamples bounds the samples of one request, so that one request cannot
// ask for an unbounded amount of work. Limits per gene and per mutation
// string are the engine's: a sample over them fails inside the report.
const maxSamples = 10_000

// checkLists bounds a [sample][gene][mutation] input.
func checkLists(lists [][][]string, part string) error {
	if len(lists) == 0 {
		return soap.ClientFault("%s is empty: give at least one sample", part)
	}
	if len(lists) > maxSamples {
		return soap.ClientFault("%s has %d samples; at most %d per request", part, len(lists), maxSamples)
	}
	for i, sample := range lists {
		if len(sample) > 3 {
			return soap.ClientFault("%s sample %d has %d genes; genes are PR, RT, IN (at most 3)", part, i+1, len(sample))
		}
	}
	return nil
}

// overloadData is inputData read: mutation lists or sequences.
type overloadData struct {
	lists     [][][]string
	sequences []*fasta.Record
}

// overloadInput reads the shared parts of overloads 2 and 3: the report
// type (inAlgorithmInterface), the algorithm selector and inputData:
// mutation lists ([sample][gene][mutation]), a string (FASTA when it
// starts with ">", else one unnamed sequence) or an array of strings (one
// sequence each).
func overloadInput(reportType, algorithm int32, userAlgorithm string, inputData any) (overloadData, ReportOptions, error) {
	opts := ReportOptions{Algorithm: resistance.AlgorithmSelector(algorithm), ReportType: resistance.ReportType(reportType)}
	switch opts.Algorithm {
	case resistance.AlgorithmANRS, resistance.AlgorithmHIVDB, resistance.AlgorithmRega:
	default:
		if userAlgorithm == "" {
			return overloadData{}, opts, soap.ClientFault("algorithm %d is not 0 (ANRS), 1 (HIVDB) or 2 (Rega), and userSubmittedAlgorithm is empty", algorithm)
		}
		opts.UserAlgorithm = userAlgorithm
	}
	lists, isSequences, err := mutationLists(inputData)
	if err != nil {
		return overloadData{}, opts, err
	}
	if isSequences {
		var recs []*fasta.Record
		switch v := inputData.(type) {
		case string:
			if fasta.IsFASTA(v) {
				recs = fasta.Parse(v)
			} else if recs = fasta.Parse(v); len(recs) == 0 {
				return overloadData{}, opts, soap.ClientFault("inputData is an empty string: give mutation lists ([sample][gene][mutation]) or sequences")
			}
		case []any:
			items := make([]string, len(v))
			for i, item := range v {
				items[i], _ = item.(string) // nil: an empty sequence, which fails alone
			}
			if recs, err = sequenceArray(items, "inputData"); err != nil {
				return overloadData{}, opts, err
			}
		}
		return overloadData{sequences: recs}, opts, nil
	}
	if err := checkLists(lists, "inputData"); err != nil {
		return overloadData{}, opts, err
	}
	return overloadData{lists: lists}, opts, nil
}

// mutationLists interprets inputData. A string or an array of strings is
// sequence input (isSequences). An array of samples, each an array of
// genes (PR, RT, IN), each an array of mutation strings, nil or empty, is
// mutation lists. Numbers among the mutations are taken as their text
// (clients that guess types may send "41" as an int).
func mutationLists(inputData any) (lists [][][]string, isSequences bool, err error) {
	switch v := inputData.(type) {
	case nil:
		return nil, false, soap.ClientFault("inputData is empty: give mutation lists ([sample][gene][mutation]) or sequences")
	case string:
		return nil, true, nil
	case []any:
		if len(v) == 0 {
			return nil, false, soap.ClientFault("inputData is an empty array: give mutation lists ([sample][gene][mutation]) or sequences")
		}
		allText := true
		for _, item := range v {
			if _, ok := item.(string); !ok && item != nil {
				allText = false
			}
		}
		if allText {
			return nil, true, nil
		}
		lists = make([][][]string, len(v))
		for i, item := range v {
			sample, ok := item.([]any)
			if !ok {
				return nil, false, soap.ClientFault("inputData item %d: expected an array of genes (PR, RT, IN), got %s", i+1, describe(item))
			}
			lists[i] = make([][]string, len(sample))
			for g, geneItem := range sample {
				// An empty element without xsi:type (<gene/>) decodes
				// as "": like nil, a gene that was not sequenced.
				if geneItem == nil || geneItem == "" {
					continue
				}
				gene, ok := geneItem.([]any)
				if !ok {
					return nil, false, soap.ClientFault("inputData item %d, gene %d: expected an array of mutations, got %s", i+1, g+1, describe(geneItem))
				}
				muts := make([]string, 0, len(gene))
				for m, mut := range gene {
					switch mv := mut.(type) {
					case string:
						muts = append(muts, mv)
					case int64:
						muts = append(muts, strconv.FormatInt(mv, 10))
					case nil:
					default:
						return nil, false, soap.ClientFault("inputData item %d, gene %d, mutation %d: expected a string, got %s", i+1, g+1, m+1, describe(mut))
					}
				}
				lists[i][g] = muts
			}
		}
		return lists, false, nil
	}
	return nil, false, soap.ClientFault("inputData: expected mutation lists ([sample][gene][mutation]) or sequences, got %s", describe(inputData))
}

func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "nothing"
	case string:
		return fmt.Sprintf("the string %q", clip(v))
	case []any:
		return fmt.Sprintf("an array of %d items", len(v))
	}
	return fmt.Sprintf("the value %v", v)
}
