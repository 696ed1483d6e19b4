-- Initial schema (SQLite). All definitions share one table keyed by (kind, name);
-- `refs` records which definition requires which source or secret, so a
-- referenced row cannot be deleted (FOREIGN KEY without cascade on the target).
-- Timestamps are ISO 8601 UTC text written by the application.
CREATE TABLE definitions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('bundle', 'source', 'stack', 'secret')),
  name TEXT NOT NULL,
  owner TEXT NOT NULL,
  body TEXT NOT NULL,
  secret_value TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CONSTRAINT definitions_kind_name UNIQUE (kind, name)
);

CREATE TABLE refs (
  from_kind TEXT NOT NULL,
  from_name TEXT NOT NULL,
  to_kind TEXT NOT NULL,
  to_name TEXT NOT NULL,
  PRIMARY KEY (from_kind, from_name, to_kind, to_name),
  CONSTRAINT refs_from FOREIGN KEY (from_kind, from_name) REFERENCES definitions (kind, name) ON DELETE CASCADE,
  CONSTRAINT refs_to FOREIGN KEY (to_kind, to_name) REFERENCES definitions (kind, name)
);
CREATE INDEX refs_to_idx ON refs (to_kind, to_name);

CREATE TABLE source_data (
  source_kind TEXT NOT NULL DEFAULT 'source' CHECK (source_kind = 'source'),
  source_name TEXT NOT NULL,
  path TEXT NOT NULL,
  data TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (source_name, path),
  CONSTRAINT source_data_source FOREIGN KEY (source_kind, source_name) REFERENCES definitions (kind, name) ON DELETE CASCADE
);

CREATE TABLE bundle_statuses (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  bundle_kind TEXT NOT NULL DEFAULT 'bundle' CHECK (bundle_kind = 'bundle'),
  bundle_name TEXT NOT NULL,
  revision TEXT NOT NULL,
  phase TEXT NOT NULL,
  status TEXT NOT NULL,
  error_message TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CONSTRAINT bundle_statuses_revision UNIQUE (bundle_name, revision),
  CONSTRAINT bundle_statuses_bundle FOREIGN KEY (bundle_kind, bundle_name) REFERENCES definitions (kind, name) ON DELETE CASCADE
);
CREATE INDEX bundle_statuses_bundle_idx ON bundle_statuses (bundle_name, id);
