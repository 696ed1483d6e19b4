// The `fleet` section of the control plane's configuration (a Regent extension):
//
//   fleet:
//     stale_after: 60s     # an engine whose last report is older is `stale`
//     forget_after: 168h   # an engine silent this long is deleted from the fleet
//
// Both are Go durations, parsed as `rebuild_interval` is (scheduler.ts).
// OPA engines get a new random `labels.id` at every start, so without
// forget_after every restart would leave a stale engine behind forever.
import { ConfigError } from '../errors.js';
import { parseDuration } from '../scheduler.js';
import type { FleetConfig } from '../types.js';

export const DEFAULT_FLEET_CONFIG: FleetConfig = { staleAfterMs: 60_000, forgetAfterMs: 168 * 3_600_000 };

function durationOf(raw: unknown, key: string, fallback: number): number {
  if (raw === undefined || raw === null) return fallback;
  const ms = typeof raw === 'string' ? parseDuration(raw.trim()) : undefined;
  if (ms === undefined || !(ms > 0)) {
    throw new ConfigError(`configuration error: fleet.${key}: ${JSON.stringify(raw)} is not a positive duration (for example "60s", "5m", "1h30m")`);
  }
  return ms;
}

/** The validated `fleet` section (schema-checked already: only string keys). */
export function fleetConfigOf(raw: Record<string, unknown> | undefined): FleetConfig {
  const staleAfterMs = durationOf(raw?.stale_after, 'stale_after', DEFAULT_FLEET_CONFIG.staleAfterMs);
  const forgetAfterMs = durationOf(raw?.forget_after, 'forget_after', Math.max(DEFAULT_FLEET_CONFIG.forgetAfterMs, 2 * staleAfterMs));
  if (forgetAfterMs <= staleAfterMs) {
    throw new ConfigError('configuration error: fleet.forget_after must be longer than fleet.stale_after');
  }
  return { staleAfterMs, forgetAfterMs };
}
