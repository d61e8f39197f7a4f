package record

import (
	"testing"
	"time"
)

// TestNextEmbargoEnd: the earliest embargo in force, of the object or of a
// file; released ones and none count for nothing.
func TestNextEmbargoEnd(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	day := func(d int) time.Time { return now.AddDate(0, 0, d) }
	r := Rights{
		Object: Access{EmbargoUntil: day(30)},
		Files: map[string]Access{
			"a": {EmbargoUntil: day(10)},
			"b": {EmbargoUntil: day(-5)}, // released
			"c": {},
		},
	}
	if got := r.NextEmbargoEnd(now); !got.Equal(day(10)) {
		t.Errorf("next end %v, want the file's %v", got, day(10))
	}
	if got := r.NextEmbargoEnd(day(10)); !got.Equal(day(30)) {
		t.Errorf("after the file's release: %v, want the object's %v", got, day(30))
	}
	if got := r.NextEmbargoEnd(day(31)); !got.IsZero() {
		t.Errorf("all released: %v, want zero", got)
	}
}
