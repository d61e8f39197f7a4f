package algorithm

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/sitelib/sitesvc/impl/asi"
	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/resistance"
)

// ResistanceEngine adapts *resistance.Engine to Engine, sorting its errors
// into the caller's (InputError: unknown report type, bad reportOptions or
// algorithm selection, a broken user-submitted algorithm) and the service's.
type ResistanceEngine struct{ E *resistance.Engine }

// LoadResistanceEngine loads the engine from an hivdb data set
// (algorithms/*.xml, reference/*): bundled/hivdb.FS() or os.DirFS of a
// directory given with --hivdb-dir.
func LoadResistanceEngine(fsys fs.FS) (ResistanceEngine, error) {
	if fsys == nil {
		return ResistanceEngine{}, errors.New("no HIV-1 data given")
	}
	e, err := resistance.Load(fsys)
	if err != nil {
		return ResistanceEngine{}, fmt.Errorf("loading the resistance engine: %w", err)
	}
	return ResistanceEngine{E: e}, nil
}

func options(o ReportOptions) resistance.Options { return o }

func classify(err error) error {
	var asiErr *asi.Error
	if errors.Is(err, resistance.ErrUnknownReportType) || errors.Is(err, resistance.ErrBadOptions) || errors.Is(err, resistance.ErrTooMuchInput) || errors.Is(err, resistance.ErrReportTooLarge) || errors.As(err, &asiErr) {
		return &InputError{Err: err}
	}
	return err
}

// MutationListReport implements Engine.
func (r ResistanceEngine) MutationListReport(lists [][][]string, opts ReportOptions) (string, error) {
	s, err := r.E.MutationListReport(lists, options(opts))
	if err != nil {
		return "", classify(err)
	}
	return s, nil
}

// MutationListReports implements Engine.
func (r ResistanceEngine) MutationListReports(lists [][][]string, opts ReportOptions) ([]string, error) {
	s, err := r.E.MutationListReports(lists, options(opts))
	if err != nil {
		return nil, classify(err)
	}
	return s, nil
}

// SequenceReport implements Engine.
func (r ResistanceEngine) SequenceReport(recs []*fasta.Record, opts ReportOptions) (string, error) {
	s, err := r.E.SequenceReport(recs, options(opts))
	if err != nil {
		return "", classify(err)
	}
	return s, nil
}

// SequenceReports implements Engine.
func (r ResistanceEngine) SequenceReports(recs []*fasta.Record, opts ReportOptions) ([]string, error) {
	s, err := r.E.SequenceReports(recs, options(opts))
	if err != nil {
		return nil, classify(err)
	}
	return s, nil
}

// ScoringMatrix implements Engine.
func (r ResistanceEngine) ScoringMatrix() string { return r.E.ScoringMatrix() }
