package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sitelib/sitesvc/impl/hours/store"
)

// TestAtomic: writes inside Atomic are all kept when it succeeds and none
// (nor their change-log entries) when one fails, on every backend.
func TestAtomic(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		libraryWithLocation(t, s)
		count := func() (exceptions, audit int) {
			t.Helper()
			snap, err := s.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			entries, err := s.Audit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return len(snap.Exceptions), len(entries)
		}
		_, audit0 := count()
		// The third write conflicts with the first: nothing is kept.
		err := s.Atomic(ctx, func(tx *store.Store) error {
			for _, day := range []string{"2026-07-01", "2026-07-02", "2026-07-01"} {
				if _, err := tx.CreateException(ctx, "w", "l", "m", store.ExceptionInput{Day: ptr(day), Closed: ptr(true)}); err != nil {
					return err
				}
			}
			return nil
		})
		if !errors.Is(err, store.ErrConflict) {
			t.Fatalf("a batch with a conflicting write: %v, want ErrConflict", err)
		}
		if n, a := count(); n != 0 || a != audit0 {
			t.Errorf("after a failed batch: %d exceptions, %d new change-log entries; want none", n, a-audit0)
		}
		// A good batch: create, then update the one created, in one transaction.
		err = s.Atomic(ctx, func(tx *store.Store) error {
			id, err := tx.CreateException(ctx, "w", "l", "m", store.ExceptionInput{Day: ptr("2026-07-03"), Closed: ptr(true)})
			if err != nil {
				return err
			}
			if _, err := tx.CreateException(ctx, "w", "l", "m", store.ExceptionInput{Day: ptr("2026-07-04"), Closed: ptr(true)}); err != nil {
				return err
			}
			return tx.UpdateException(ctx, "w", "l", "m", id, store.ExceptionInput{Periods: []string{"10:00-14:00"}})
		})
		if err != nil {
			t.Fatal(err)
		}
		if n, a := count(); n != 2 || a != audit0+3 {
			t.Errorf("after a good batch: %d exceptions, %d new change-log entries; want 2 and 3", n, a-audit0)
		}
	})
}
