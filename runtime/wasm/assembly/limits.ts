// The evaluation deadline inside the module. Policy code counts loop iterations down in
// the global `rt_steps` (compiler/codegen/wasm/body.ts, scanLoop; the linker finds it by
// its export and hides it), and so do the natives that loop over a whole input (walk,
// numbers.range: `tick`); every evaluation starts with a full count (stepsReset). When
// the count runs out, rt_steps_out refills it. With the deadline off (the default, and
// always for OPA's SDKs) that is all it does.
// With it on (Regent's host passes 1 as `opa_eval`'s reserved first argument when it
// has a deadline) it asks the host every STEP_INTERVAL iterations through
// `opa_builtin0` with the reserved id -1, which no module lists in `builtins()`: the
// host throws eval_cancel_error once the deadline has passed, and otherwise returns.
// The module's imports stay exactly OPA's ABI.

@external('env', 'opa_builtin0') declare function opa_builtin0(id: i32, ctx: i32): usize;

/** Loop iterations between two deadline checks (as the JS back end's `tick`). */
const STEP_INTERVAL: i32 = 1024;
/** The count with the deadline off: refilled without asking anyone when it runs out. */
const STEPS_OFF: i32 = 0x3fffffff;
/** The builtin id Regent's host answers with the deadline check (never in `builtins()`). */
const DEADLINE_BUILTIN: i32 = -1;

let deadlineOn: bool = false;

/** Loop steps left before the next refill (and, with a deadline, the next check). */
export let rt_steps: i32 = STEPS_OFF;

/** Start an evaluation, checking a deadline or not (opa_eval's reserved argument). */
export function stepsReset(on: bool): void {
  deadlineOn = on;
  rt_steps = on ? STEP_INTERVAL : STEPS_OFF;
}

/** The step count ran out: ask the host (which throws past the deadline); the new count. */
export function rt_steps_out(): i32 {
  if (deadlineOn) opa_builtin0(DEADLINE_BUILTIN, 0);
  return deadlineOn ? STEP_INTERVAL : STEPS_OFF;
}

/** One step of a native's loop over its input. */
@inline export function tick(): void {
  if (--rt_steps < 0) rt_steps = rt_steps_out();
}
