-- Located build errors (Regent extension): the failed build's Rego errors as a
-- JSON array of {file,row,col,code,message,source?}, beside the spec'd status
-- record (whose error_message keeps OPA's text, without columns). NULL when the
-- build succeeded or its error has no location. Read by
-- GET /v1/bundles/{b}/status/latest/errors; retention and cascade are the row's.
ALTER TABLE bundle_statuses ADD COLUMN errors TEXT;
