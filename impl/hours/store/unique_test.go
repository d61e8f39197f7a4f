package store

import (
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sitelib/sitesvc/impl/hours/store/storetest"
)

// TestUniqueViolationByCode: a unique or primary-key failure is known by
// the driver's code (SQLite's extended result code, PostgreSQL's
// SQLSTATE), wrapped or not; another constraint, or an error that only
// has the words, is not one.
func TestUniqueViolationByCode(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			driver := map[string]string{"sqlite": "sqlite", "postgres": "pgx"}[b.Name]
			db, err := sql.Open(driver, b.DSN(t))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, slug TEXT UNIQUE, name TEXT NOT NULL)`); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`INSERT INTO t (id, slug, name) VALUES (1, 'art', 'Art')`); err != nil {
				t.Fatal(err)
			}
			_, dupSlug := db.Exec(`INSERT INTO t (id, slug, name) VALUES (2, 'art', 'Art again')`)
			_, dupID := db.Exec(`INSERT INTO t (id, slug, name) VALUES (1, 'law', 'Law')`)
			_, noName := db.Exec(`INSERT INTO t (id, slug, name) VALUES (3, 'music', NULL)`)
			for _, c := range []struct {
				name string
				err  error
				want bool
			}{
				{"UNIQUE", dupSlug, true},
				{"PRIMARY KEY", dupID, true},
				{"UNIQUE, wrapped", fmt.Errorf("creating: %w", dupSlug), true},
				{"NOT NULL", noName, false},
			} {
				if got := isUniqueViolation(c.err); got != c.want {
					t.Errorf("%s (%v): %v, want %v", c.name, c.err, got, c.want)
				}
			}
		})
	}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"PostgreSQL 23505, wrapped", fmt.Errorf("insert: %w", &pgconn.PgError{Code: "23505"}), true},
		{"PostgreSQL 23502 (not null)", &pgconn.PgError{Code: "23502"}, false},
		{"only the words", errors.New("UNIQUE constraint failed: t.slug (SQLSTATE 23505)"), false},
		{"nil", nil, false},
	} {
		if got := isUniqueViolation(c.err); got != c.want {
			t.Errorf("%s (%v): %v, want %v", c.name, c.err, got, c.want)
		}
	}
}
