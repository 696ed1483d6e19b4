// The HTTP API and auth suites against a real server on PostgreSQL (a fresh
// schema per run). Fails, never skips, when PostgreSQL is not reachable.
import { apiSuite } from './api-suite.js';
import { authzSuite } from './authz-suite.js';

apiSuite('postgres');
authzSuite('postgres');
