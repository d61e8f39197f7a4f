-- Browser sessions of the site's sign-in (impl/signin, docs/auth.md), kept
-- here so that every instance sharing a PostgreSQL database shares them.
-- token is the SHA-256 of the cookie's value (the cookie itself is never
-- stored); expiry is Unix milliseconds, the earlier of the idle and the
-- absolute timeout.
-- +goose Up
CREATE TABLE signin_sessions (
    token  TEXT PRIMARY KEY,
    data   BLOB NOT NULL,
    expiry BIGINT NOT NULL
);
CREATE INDEX signin_sessions_expiry ON signin_sessions (expiry);

-- +goose Down
DROP TABLE signin_sessions;
