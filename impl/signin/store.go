package signin

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sitelib/sitesvc/impl/hours/store"
)

// sessionStore is scs's Store over the Hours database's signin_sessions
// table (SQLite or PostgreSQL, through database/sql). The tokens it sees
// are already hashed (scs HashTokenInStore), so the table never holds a
// cookie's value.
type sessionStore struct {
	db      *sql.DB
	dialect store.Dialect
}

func (s *sessionStore) q(sqlite, postgres string) string {
	if s.dialect == store.Postgres {
		return postgres
	}
	return sqlite
}

// FindCtx returns a session's data unless it has expired.
func (s *sessionStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	var data []byte
	err := s.db.QueryRowContext(ctx, s.q(
		`SELECT data FROM signin_sessions WHERE token = ? AND expiry > ?`,
		`SELECT data FROM signin_sessions WHERE token = $1 AND expiry > $2`),
		token, time.Now().UnixMilli()).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("sessions: reading a session: %w", err)
	}
	return data, true, nil
}

// CommitCtx stores a session's data and expiry, replacing what it had.
func (s *sessionStore) CommitCtx(ctx context.Context, token string, data []byte, expiry time.Time) error {
	_, err := s.db.ExecContext(ctx, s.q(
		`INSERT INTO signin_sessions (token, data, expiry) VALUES (?, ?, ?)
		 ON CONFLICT (token) DO UPDATE SET data = excluded.data, expiry = excluded.expiry`,
		`INSERT INTO signin_sessions (token, data, expiry) VALUES ($1, $2, $3)
		 ON CONFLICT (token) DO UPDATE SET data = excluded.data, expiry = excluded.expiry`),
		token, data, expiry.UnixMilli())
	if err != nil {
		return fmt.Errorf("sessions: storing a session: %w", err)
	}
	return nil
}

// insertIfAbsent stores a row unless its token is taken.
func (s *sessionStore) insertIfAbsent(ctx context.Context, token string, data []byte, expiry time.Time) error {
	_, err := s.db.ExecContext(ctx, s.q(
		`INSERT INTO signin_sessions (token, data, expiry) VALUES (?, ?, ?) ON CONFLICT (token) DO NOTHING`,
		`INSERT INTO signin_sessions (token, data, expiry) VALUES ($1, $2, $3) ON CONFLICT (token) DO NOTHING`),
		token, data, expiry.UnixMilli())
	if err != nil {
		return fmt.Errorf("sessions: storing: %w", err)
	}
	return nil
}

// DeleteCtx ends a session (a missing one is no error).
func (s *sessionStore) DeleteCtx(ctx context.Context, token string) error {
	_, err := s.db.ExecContext(ctx, s.q(
		`DELETE FROM signin_sessions WHERE token = ?`,
		`DELETE FROM signin_sessions WHERE token = $1`), token)
	if err != nil {
		return fmt.Errorf("sessions: deleting a session: %w", err)
	}
	return nil
}

// deleteExpired removes the sessions past their expiry (Find already
// ignores them; this keeps the table small).
func (s *sessionStore) deleteExpired(ctx context.Context) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.q(
		`DELETE FROM signin_sessions WHERE expiry <= ?`,
		`DELETE FROM signin_sessions WHERE expiry <= $1`), time.Now().UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("sessions: deleting expired sessions: %w", err)
	}
	return res.RowsAffected()
}

// The context-free methods scs.Store requires (scs prefers the Ctx ones).

func (s *sessionStore) Find(token string) ([]byte, bool, error) {
	return s.FindCtx(context.Background(), token)
}

func (s *sessionStore) Commit(token string, data []byte, expiry time.Time) error {
	return s.CommitCtx(context.Background(), token, data, expiry)
}

func (s *sessionStore) Delete(token string) error {
	return s.DeleteCtx(context.Background(), token)
}
