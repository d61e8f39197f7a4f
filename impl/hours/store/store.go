// Package store is the Hours repository: libraries, locations, terms,
// weekly schedules, per-date exceptions, slug history and the audit log, in
// SQLite (modernc.org/sqlite, the embedded default) or PostgreSQL (pgx),
// through database/sql. Migrations are embedded and applied by Open.
// Every write is one transaction that also appends to the audit log.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/pressly/goose/v3"
	"modernc.org/sqlite" // database/sql driver "sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations
var migrations embed.FS

// Dialect is the SQL database behind a Store.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Store is the Hours repository.
type Store struct {
	db      *sql.DB
	dialect Dialect
	// outer, when set, is a transaction every write joins instead of
	// running its own (the sample data loads in one transaction).
	outer *sql.Tx
}

// Open connects to dsn — a postgres:// or postgresql:// URL for PostgreSQL,
// anything else is a SQLite file path — and applies the migrations.
func Open(ctx context.Context, dsn string) (*Store, error) {
	var (
		db      *sql.DB
		err     error
		dialect Dialect
	)
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		dialect = Postgres
		db, err = sql.Open("pgx", dsn)
	} else {
		dialect = SQLite
		// Foreign keys are per connection in SQLite; WAL lets reads run
		// beside a write; busy_timeout makes concurrent writers wait.
		db, err = sql.Open("sqlite", "file:"+dsn+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	}
	if err != nil {
		return nil, fmt.Errorf("hours store: opening %s database: %w", dialect, err)
	}
	s := &Store{db: db, dialect: dialect}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	sub, err := fs.Sub(migrations, "migrations/"+string(s.dialect))
	if err != nil {
		return fmt.Errorf("hours store: migrations: %w", err)
	}
	gd := goose.DialectSQLite3
	if s.dialect == Postgres {
		gd = goose.DialectPostgres
	}
	p, err := goose.NewProvider(gd, s.db, sub)
	if err != nil {
		return fmt.Errorf("hours store: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("hours store: applying migrations: %w", err)
	}
	return nil
}

// Dialect is the database in use.
func (s *Store) Dialect() Dialect { return s.dialect }

// Ping checks the database is reachable.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("hours store: %w", err)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// rebind turns the ? placeholders used throughout into $n for PostgreSQL.
func (s *Store) rebind(q string) string {
	if s.dialect != Postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// Errors the service maps to statuses.
var (
	// ErrNotFound: no such row (404).
	ErrNotFound = errors.New("not found")
	// ErrConflict: a unique value already in use (409).
	ErrConflict = errors.New("conflict")
)

// FieldError is invalid input; Field is a path below the resource's
// attributes ("timezone", "days/2/periods/0").
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

// isUniqueViolation recognises a unique-constraint failure from either
// driver by its code, never its wording: SQLite's extended result codes
// SQLITE_CONSTRAINT_UNIQUE and SQLITE_CONSTRAINT_PRIMARYKEY (both worded
// "UNIQUE constraint failed"), PostgreSQL's SQLSTATE 23505
// (unique_violation).
func isUniqueViolation(err error) bool {
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		return lite.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || lite.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == pgUniqueViolation
}

// pgUniqueViolation is PostgreSQL's SQLSTATE of a unique-constraint
// failure (Appendix A of its manual).
const pgUniqueViolation = "23505"

// tx runs fn in one transaction.
type tx struct {
	*sql.Tx
	s *Store
}

func (t tx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return t.ExecContext(ctx, t.s.rebind(q), args...)
}

func (t tx) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return t.QueryRowContext(ctx, t.s.rebind(q), args...)
}

func (t tx) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return t.QueryContext(ctx, t.s.rebind(q), args...)
}

// insertID runs an INSERT … RETURNING id.
func (t tx) insertID(ctx context.Context, q string, args ...any) (int64, error) {
	var id int64
	err := t.queryRow(ctx, q+" RETURNING id", args...).Scan(&id)
	return id, err
}

func (s *Store) inTx(ctx context.Context, fn func(tx) error) error {
	// one transaction mechanism: a write joins the batch it is part of
	// (Atomic, the sample data) or runs its own
	return s.Atomic(ctx, func(st *Store) error {
		err := fn(tx{Tx: st.outer, s: st})
		if isUniqueViolation(err) && !errors.Is(err, ErrConflict) {
			return fmt.Errorf("%w: %v", ErrConflict, err)
		}
		return err
	})
}
