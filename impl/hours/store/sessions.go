package store

import "database/sql"

// SessionsDB is the database that holds the sign-in's browser sessions
// (table signin_sessions, migration 00002), for impl/signin's session
// store: sessions live in the Hours database so instances sharing a
// PostgreSQL database share them. Placeholders are ? for SQLite and $n
// for PostgreSQL.
func (s *Store) SessionsDB() (*sql.DB, Dialect) { return s.db, s.dialect }
