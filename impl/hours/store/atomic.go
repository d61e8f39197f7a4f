package store

import (
	"context"
	"fmt"
)

// Atomic runs fn with a Store whose writes all join one transaction:
// committed when fn returns nil, rolled back (nothing written, nothing in
// the change log) when it returns an error, which Atomic returns as it is.
// It is how a batch of writes (JSON:API atomic operations, the editor's CSV
// import) is all or nothing. Inside an Atomic, Atomic joins the same
// transaction.
func (s *Store) Atomic(ctx context.Context, fn func(*Store) error) error {
	if s.outer != nil {
		return fn(s)
	}
	sqlTx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("hours store: begin: %w", err)
	}
	defer sqlTx.Rollback() //nolint:errcheck // after Commit it is a no-op
	if err := fn(&Store{db: s.db, dialect: s.dialect, outer: sqlTx}); err != nil {
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		if isUniqueViolation(err) {
			return fmt.Errorf("%w: %v", ErrConflict, err)
		}
		return fmt.Errorf("hours store: commit: %w", err)
	}
	return nil
}
