-- Issue 19.3: the library and location forms' about URL, public flag and
-- staff note. public FALSE leaves the library or location out of the
-- public lists and pages (docs/hours.md, "Public and not public"); the
-- note is for staff and shown only in the editor and the JSON:API.
-- +goose Up
ALTER TABLE libraries ADD COLUMN about_url TEXT NOT NULL DEFAULT '';
ALTER TABLE libraries ADD COLUMN public BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE libraries ADD COLUMN note TEXT NOT NULL DEFAULT '';
ALTER TABLE locations ADD COLUMN about_url TEXT NOT NULL DEFAULT '';
ALTER TABLE locations ADD COLUMN public BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE locations ADD COLUMN note TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE locations DROP COLUMN note;
ALTER TABLE locations DROP COLUMN public;
ALTER TABLE locations DROP COLUMN about_url;
ALTER TABLE libraries DROP COLUMN note;
ALTER TABLE libraries DROP COLUMN public;
ALTER TABLE libraries DROP COLUMN about_url;
