// The HTTP API and auth suites against a real server on SQLite.
import { apiSuite } from './api-suite.js';
import { authzSuite } from './authz-suite.js';

apiSuite('sqlite');
authzSuite('sqlite');
