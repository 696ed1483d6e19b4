-- Engine status reports (Regent extension, fleet/) (SQLite). One row per engine id with
-- its labels, the summary the fleet list shows, the last raw report, and when
-- it was first and last seen; one row per (engine, bundle, revision) with the
-- first time that engine reported serving that revision (time to first serve).
-- Timestamps are ISO 8601 UTC text written by the application (control-plane clock).
CREATE TABLE fleet_engines (
  id TEXT PRIMARY KEY,
  labels TEXT NOT NULL,
  summary TEXT NOT NULL,
  report TEXT NOT NULL,
  first_seen TEXT NOT NULL,
  last_seen TEXT NOT NULL
);
CREATE INDEX fleet_engines_last_seen_idx ON fleet_engines (last_seen);

CREATE TABLE fleet_revisions (
  engine_id TEXT NOT NULL,
  bundle_name TEXT NOT NULL,
  revision TEXT NOT NULL,
  first_reported_at TEXT NOT NULL,
  PRIMARY KEY (engine_id, bundle_name, revision),
  CONSTRAINT fleet_revisions_engine FOREIGN KEY (engine_id) REFERENCES fleet_engines (id) ON DELETE CASCADE
);
CREATE INDEX fleet_revisions_bundle_idx ON fleet_revisions (bundle_name, revision, first_reported_at);
