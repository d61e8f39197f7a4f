package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sitelib/sitesvc/impl/hours/schedule"
)

// checkExceptionTimes refuses an exception whose periods open or close at a time that does
// not exist on its date in its library's time zone (a spring-forward gap): such a period is
// a mistake for that one date, not something to shift (schedule/dst.go).
func (t tx) checkExceptionTimes(ctx context.Context, libID int64, row exceptionRow) error {
	if row.closed || row.periods == "" {
		return nil
	}
	var zone string
	if err := t.queryRow(ctx, `SELECT timezone FROM libraries WHERE id = ?`, libID).Scan(&zone); err != nil {
		return fmt.Errorf("reading the library's time zone: %w", err)
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return fmt.Errorf("library time zone %q: %w", zone, err)
	}
	day, err := schedule.ParseDate(row.day)
	if err != nil {
		return fieldErr("day", "%v", err)
	}
	ps, err := schedule.ParsePeriods(schedule.SplitStored(row.periods))
	if err != nil {
		return fieldErr("periods", "%v", err)
	}
	if err := schedule.CheckTimesExist(day, ps, loc); err != nil {
		var pe *schedule.PeriodError
		if errors.As(err, &pe) {
			return fieldErr(fmt.Sprintf("periods/%d", pe.Index), "%s", pe.Error())
		}
		return fieldErr("periods", "%v", err)
	}
	return nil
}
