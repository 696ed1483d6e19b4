// The fleet API suite (fleet-suite.ts) against a real control plane on
// PostgreSQL (a fresh schema per run). Fails, never skips, when PostgreSQL is
// not reachable.
import { fleetSuite } from './fleet-suite.js';

fleetSuite('postgres');
