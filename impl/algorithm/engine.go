package algorithm

import (
	"errors"
	"fmt"

	"github.com/sitelib/sitesvc/impl/asi"
	"github.com/sitelib/sitesvc/impl/resistance"
)

// ResistanceEngine adapts *resistance.Engine to Engine, sorting its errors
// into the caller's (InputError: unknown report type, bad reportOptions or
// algorithm selection, a broken user-submitted algorithm) and the service's.
type ResistanceEngine struct{ E *resistance.Engine }

// LoadResistanceEngine loads the engine from an hivdb data directory.
func LoadResistanceEngine(hivdbDir string) (ResistanceEngine, error) {
	if hivdbDir == "" {
		return ResistanceEngine{}, errors.New("no HIV-1 data directory given (--hivdb-dir)")
	}
	e, err := resistance.Load(hivdbDir)
	if err != nil {
		return ResistanceEngine{}, fmt.Errorf("loading the resistance engine from %s: %w", hivdbDir, err)
	}
	return ResistanceEngine{E: e}, nil
}

func options(o ReportOptions) resistance.Options {
	return resistance.Options{
		Algorithm:     o.Algorithm,
		UserAlgorithm: o.UserAlgorithm,
		ReportType:    o.ReportType,
		ReportOptions: o.ReportOptions,
		MethodName:    o.MethodName,
		ReportName:    o.ReportName,
		ReportDate:    o.ReportDate,
		Admit:         o.Admit,
	}
}

func classify(err error) error {
	var asiErr *asi.Error
	if errors.Is(err, resistance.ErrUnknownReportType) || errors.Is(err, resistance.ErrBadOptions) || errors.Is(err, resistance.ErrReportTooLarge) || errors.As(err, &asiErr) {
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

// ScoringMatrix implements Engine.
func (r ResistanceEngine) ScoringMatrix() string { return r.E.ScoringMatrix() }
