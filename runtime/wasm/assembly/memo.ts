// Per-evaluation memo tables of user functions (compiler/codegen/wasm/rules.ts,
// emitFunctionMemo): an open-addressing hash table from argument tuples to results.
// A tuple matches exactly when every argument is equal in Rego (`compare` == 0), so the
// hash only has to agree for equal values: it looks at a value's type, size and, for
// the first VISITS values of a pre-order walk, its contents (a string's first and last
// four bytes; sets and objects are sorted, so equal composites hash alike). Unequal
// tuples with the same hash only make a longer probe; equal numbers written differently
// (`1e30` and its digits) hash alike through their double. Hashing stays this shallow
// because it is paid on every call (deep hashes made ACI's create_container 22% slower,
// this 7%). Up to four arguments are passed as they are (no tuple array is built); the
// compiler passes a function's arguments as one array when it has more.
//
//   table  [cap, count, slots]      slots: cap record pointers (0 = empty), cap a power of 2
//   record [hash, result, arg0 … argN-1]
import { T_NULL, T_BOOL, T_NUM, T_STR, T_OBJ, alloc, tag, len, item, objVal, numVal, strData, compare } from './values';

/** Values visited per argument (pre-order), beyond which composites count only by size. */
const VISITS: i32 = 8;

function mix(h: u32, x: u32): u32 {
  return (h ^ x) * 16777619;
}

let visits: i32 = 0;

function hashValue(v: usize): u32 {
  visits++;
  const t = tag(v);
  let h: u32 = mix(2166136261, <u32>t);
  if (t == T_NULL) return h;
  if (t == T_BOOL) return mix(h, <u32>load<i32>(v, 4));
  if (t == T_NUM) {
    const bits = reinterpret<u64>(numVal(v) + 0.0);
    return mix(mix(h, <u32>bits), <u32>(bits >> 32));
  }
  const n = len(v);
  h = mix(h, <u32>n);
  if (t == T_STR) {
    // a few bytes at each end (long strings mostly differ in either)
    const p = strData(v);
    if (n < 8) {
      for (let i = 0; i < n; i++) h = mix(h, <u32>load<u8>(p + i));
      return h;
    }
    return mix(mix(h, load<u32>(p)), load<u32>(p + <usize>(n - 4)));
  }
  // members in order while the visit budget lasts; object keys are not hashed (equal
  // objects have their values in the same order)
  for (let i = 0; i < n && visits < VISITS; i++) {
    h = mix(h, hashValue(t == T_OBJ ? objVal(v, i) : item(v, i)));
  }
  return h;
}

/** One argument's hash, within its own visit budget. */
function hashArg(v: usize): u32 {
  visits = 0;
  return hashValue(v);
}

/** The hash of the argument tuple (a0 … a{n-1}); 0 is never returned (an empty slot's hash). */
function hashArgs(n: i32, a0: usize, a1: usize, a2: usize, a3: usize): u32 {
  let h: u32 = mix(2166136261, <u32>n);
  if (n > 0) h = mix(h, hashArg(a0));
  if (n > 1) h = mix(h, hashArg(a1));
  if (n > 2) h = mix(h, hashArg(a2));
  if (n > 3) h = mix(h, hashArg(a3));
  return h == 0 ? 1 : h;
}

function same(a: usize, b: usize): bool {
  return a == b || compare(a, b) == 0;
}

function matches(r: usize, h: u32, n: i32, a0: usize, a1: usize, a2: usize, a3: usize): bool {
  if (load<u32>(r) != h) return false;
  if (n > 0 && !same(<usize>load<i32>(r, 8), a0)) return false;
  if (n > 1 && !same(<usize>load<i32>(r, 12), a1)) return false;
  if (n > 2 && !same(<usize>load<i32>(r, 16), a2)) return false;
  if (n > 3 && !same(<usize>load<i32>(r, 20), a3)) return false;
  return true;
}

/** A new, empty table. */
export function rt_memo_new(): usize {
  const t = alloc(12);
  const cap = 8;
  const slots = alloc(<usize>cap << 2);
  memory.fill(slots, 0, <usize>cap << 2);
  store<i32>(t, cap);
  store<i32>(t, 0, 4);
  store<i32>(t, <i32>slots, 8);
  return t;
}

let lastHash: u32 = 0;

/** The result kept for the arguments (0 when none); the tuple's hash is left for rt_memo_hash. */
export function rt_memo_get(t: usize, n: i32, a0: usize, a1: usize, a2: usize, a3: usize): usize {
  const h = hashArgs(n, a0, a1, a2, a3);
  lastHash = h;
  const mask = <u32>load<i32>(t) - 1;
  const slots = <usize>load<i32>(t, 8);
  let i = h & mask;
  while (true) {
    const r = <usize>load<i32>(slots + (<usize>i << 2));
    if (r == 0) return 0;
    if (matches(r, h, n, a0, a1, a2, a3)) return <usize>load<i32>(r, 4);
    i = (i + 1) & mask;
  }
  return 0;
}

/** The hash of the tuple the last rt_memo_get looked up (the caller keeps it for rt_memo_put). */
export function rt_memo_hash(): u32 {
  return lastHash;
}

function place(slots: usize, mask: u32, r: usize): void {
  let i = load<u32>(r) & mask;
  while (load<i32>(slots + (<usize>i << 2)) != 0) i = (i + 1) & mask;
  store<i32>(slots + (<usize>i << 2), <i32>r);
}

/** Keep `result` for the arguments (looked up before with hash `h`, not found). */
export function rt_memo_put(t: usize, h: u32, n: i32, a0: usize, a1: usize, a2: usize, a3: usize, result: usize): void {
  let cap = load<i32>(t);
  const count = load<i32>(t, 4) + 1;
  if (count * 2 > cap) {
    // grow to twice the size, re-placing every record by its stored hash
    const old = <usize>load<i32>(t, 8);
    const ncap = cap * 2;
    const slots = alloc(<usize>ncap << 2);
    memory.fill(slots, 0, <usize>ncap << 2);
    for (let i = 0; i < cap; i++) {
      const r = <usize>load<i32>(old + (<usize>i << 2));
      if (r != 0) place(slots, <u32>ncap - 1, r);
    }
    store<i32>(t, ncap);
    store<i32>(t, <i32>slots, 8);
    cap = ncap;
  }
  const r = alloc(<usize>(8 + (n << 2)));
  store<u32>(r, h);
  store<i32>(r, <i32>result, 4);
  if (n > 0) store<i32>(r, <i32>a0, 8);
  if (n > 1) store<i32>(r, <i32>a1, 12);
  if (n > 2) store<i32>(r, <i32>a2, 16);
  if (n > 3) store<i32>(r, <i32>a3, 20);
  place(<usize>load<i32>(t, 8), <u32>cap - 1, r);
  store<i32>(t, count, 4);
}
