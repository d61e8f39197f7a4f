// Package storetest gives tests a fresh Hours database on every backend
// under test: SQLite always, PostgreSQL as well when
// SITESVC_TEST_POSTGRES_URL is set (scripts/postgres.sh starts one).
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// PostgresEnv names the variable holding the PostgreSQL server URL.
const PostgresEnv = "SITESVC_TEST_POSTGRES_URL"

// Backend is one database under test.
type Backend struct {
	Name string
	// DSN returns the address of a new, empty database (a file for SQLite,
	// a fresh schema for PostgreSQL), removed at the end of t.
	DSN func(t testing.TB) string
}

// Backends lists SQLite and, when configured, PostgreSQL.
func Backends() []Backend {
	out := []Backend{{Name: "sqlite", DSN: func(t testing.TB) string {
		return filepath.Join(t.TempDir(), "hours.db")
	}}}
	if base := os.Getenv(PostgresEnv); base != "" {
		out = append(out, Backend{Name: "postgres", DSN: func(t testing.TB) string { return freshSchema(t, base) }})
	}
	return out
}

// freshSchema creates a schema on the server at base and returns base with
// search_path set to it; the schema is dropped at cleanup.
func freshSchema(t testing.TB, base string) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schema := "hours_test_" + hex.EncodeToString(b[:])
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("opening %s: %v", PostgresEnv, err)
	}
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		db.Close()
		t.Fatalf("creating schema on %s: %v", PostgresEnv, err)
	}
	t.Cleanup(func() {
		if _, err := db.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
		}
		db.Close()
	})
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}
