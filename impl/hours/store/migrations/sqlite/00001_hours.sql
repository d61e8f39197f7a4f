-- +goose Up
CREATE TABLE libraries (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    slug     TEXT NOT NULL UNIQUE,
    name     TEXT NOT NULL,
    timezone TEXT NOT NULL
);
CREATE TABLE locations (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    library_id  INTEGER NOT NULL REFERENCES libraries(id) ON DELETE CASCADE,
    slug        TEXT NOT NULL,
    name        TEXT NOT NULL,
    is_primary  BOOLEAN NOT NULL DEFAULT FALSE,
    keeps_hours BOOLEAN NOT NULL DEFAULT TRUE,
    UNIQUE (library_id, slug)
);
CREATE TABLE terms (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    library_id INTEGER NOT NULL REFERENCES libraries(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    first_day  TEXT NOT NULL,
    last_day   TEXT NOT NULL
);
CREATE TABLE schedules (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    location_id INTEGER NOT NULL REFERENCES locations(id) ON DELETE CASCADE,
    term_id     INTEGER NOT NULL REFERENCES terms(id) ON DELETE CASCADE,
    UNIQUE (location_id, term_id)
);
-- One row per weekday of a schedule (schedule_id, weekday) or per
-- exception date (day): one id sequence, so the legacy API's record id
-- names the rule that produced a day whichever kind it is.
CREATE TABLE rules (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    location_id INTEGER NOT NULL REFERENCES locations(id) ON DELETE CASCADE,
    schedule_id INTEGER REFERENCES schedules(id) ON DELETE CASCADE,
    weekday     INTEGER,
    day         TEXT,
    kind        TEXT NOT NULL CHECK (kind IN ('closed', 'open24', 'hours')),
    periods     TEXT NOT NULL DEFAULT '',
    type        TEXT NOT NULL,
    notes       TEXT NOT NULL DEFAULT '',
    CHECK ((schedule_id IS NOT NULL AND weekday BETWEEN 0 AND 6 AND day IS NULL)
        OR (schedule_id IS NULL AND weekday IS NULL AND day IS NOT NULL)),
    UNIQUE (schedule_id, weekday),
    UNIQUE (location_id, day)
);
CREATE TABLE slug_history (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    library_id  INTEGER NOT NULL REFERENCES libraries(id) ON DELETE CASCADE,
    location_id INTEGER REFERENCES locations(id) ON DELETE CASCADE,
    old_slug    TEXT NOT NULL
);
CREATE TABLE audit_log (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    at            TEXT NOT NULL,
    who           TEXT NOT NULL,
    action        TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    resource_id   TEXT NOT NULL,
    detail        TEXT NOT NULL
);
CREATE INDEX locations_library ON locations (library_id);
CREATE INDEX terms_library ON terms (library_id);
CREATE INDEX rules_location ON rules (location_id);

-- +goose Down
DROP TABLE audit_log;
DROP TABLE slug_history;
DROP TABLE rules;
DROP TABLE schedules;
DROP TABLE terms;
DROP TABLE locations;
DROP TABLE libraries;
