// Runs every benchmark and prints each one's ratio against its same-run baseline.
import { runRbacBench } from './rbac.bench.js';

const rbac = await runRbacBench();
console.log(
  `rbac allow (in process): regent ${rbac.regentNs.toFixed(0)} ns/decision, ` +
    `hand-written JS ${rbac.baselineNs.toFixed(0)} ns/decision, ratio ${rbac.ratio.toFixed(2)}x (target ≤ 3x); ` +
    `as an ad-hoc query ${rbac.queryNs.toFixed(0)} ns (${rbac.queryRatio.toFixed(2)}x)`,
);
