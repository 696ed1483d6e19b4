// The fleet API suite (fleet-suite.ts) against a real control plane on SQLite.
import { fleetSuite } from './fleet-suite.js';

fleetSuite('sqlite');
