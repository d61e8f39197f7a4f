package store

import "testing"

// Stored periods read back even when they predate a stricter write rule;
// a malformed period is still an error.
func TestParseStoredPeriods(t *testing.T) {
	t.Parallel()
	ps, err := parseStoredPeriods("00:00-10:00,18:00-10:00")
	if err != nil || len(ps) != 2 {
		t.Errorf("older stored periods: %v, %v", ps, err)
	}
	if ps, err := parseStoredPeriods(""); err != nil || len(ps) != 0 {
		t.Errorf("no periods: %v, %v", ps, err)
	}
	if _, err := parseStoredPeriods("09:00-17:00,25:00-26:00"); err == nil {
		t.Error("malformed stored period read")
	}
}
