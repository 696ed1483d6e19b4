// The decision-log buffer: events waiting for upload, kept as UTF-8 bytes in large
// blocks outside the JS heap, with their offsets in number arrays. An event is
// buffered for the whole reporting delay (seconds), so kept as strings (the event
// JSON is built by concatenation: a tree of small strings per event) every young
// generation collection copied and traced all of them until they were promoted;
// as bytes, the collector sees a few blocks. Events come back as strings only on
// the rare paths (requeue after a failed upload); uploads join ranges of bytes.
// Each event is followed by a comma in its block, so the events of one block are
// one contiguous slice of an upload's JSON array: a chunk is a copy per block.
// Blocks of a store that was uploaded (or dropped) go back to a pool: a fresh
// 256 KB block is new memory from the system, and the page faults of its first writes
// cost about as much per event as building the event's JSON.

const BLOCK_BYTES = 256 * 1024;

/**
 * Standard blocks given back by released stores, reused before allocating. The pool
 * keeps about as many blocks as the last released store held (one reporting interval's
 * events, so the next interval allocates nothing), at least POOL_MIN and at most
 * POOL_MAX (64 MB); a quieter interval's release trims it.
 */
const pool: Buffer[] = [];
const POOL_MIN = 16;
const POOL_MAX = 256;

function takeBlock(most: number): Buffer {
  if (most <= BLOCK_BYTES) {
    const b = pool.pop();
    if (b !== undefined) return b;
  }
  return Buffer.allocUnsafeSlow(Math.max(BLOCK_BYTES, most));
}

function giveBack(blocks: readonly Buffer[], trim: boolean): void {
  const cap = Math.min(POOL_MAX, Math.max(POOL_MIN, blocks.length));
  if (trim && pool.length > cap) pool.length = cap;
  for (const b of blocks) if (b.length === BLOCK_BYTES && pool.length < cap) pool.push(b);
}

export class EventStore {
  private blocks: Buffer[] = [];
  /** Write position in the last block. */
  private used = 0;
  /** Per event, from `head` on: its block index, start and byte length. */
  private readonly block: number[] = [];
  private readonly start: number[] = [];
  private readonly size: number[] = [];
  /** Events before `head` were dropped (oldest first); the arrays are compacted now and then. */
  private head = 0;
  /** Bytes of the buffered events. */
  bytes = 0;

  static of(events: readonly string[]): EventStore {
    const s = new EventStore();
    for (const e of events) s.push(e);
    return s;
  }

  /** Blocks waiting in the pool for reuse (for tests and diagnostics). */
  static pooledBlocks(): number {
    return pool.length;
  }

  get length(): number {
    return this.block.length - this.head;
  }

  /** Append an event's JSON text; returns its size in bytes. */
  push(json: string): number {
    // A UTF-8 encoding is at most 3 bytes per UTF-16 unit; then the comma.
    const most = json.length * 3 + 1;
    let last = this.blocks[this.blocks.length - 1];
    if (last === undefined || this.used + most > last.length) {
      last = takeBlock(most);
      this.blocks.push(last);
      this.used = 0;
    }
    const n = last.write(json, this.used, 'utf8');
    this.block.push(this.blocks.length - 1);
    this.start.push(this.used);
    this.size.push(n);
    last[this.used + n] = 0x2c; // ,
    this.used += n + 1;
    this.bytes += n;
    return n;
  }

  /**
   * Give this store's blocks back for reuse: call only when the store will never be
   * read again (its events were uploaded, copied out or dropped); it is empty after.
   */
  release(): void {
    giveBack(this.blocks, true);
    this.blocks = [];
    this.used = 0;
    this.block.length = 0;
    this.start.length = 0;
    this.size.length = 0;
    this.head = 0;
    this.bytes = 0;
  }

  /** Drop the oldest event; returns its size in bytes. */
  shift(): number {
    if (this.length === 0) return 0;
    const n = this.size[this.head]!;
    this.head++;
    this.bytes -= n;
    if (this.head >= 4096 && this.head * 2 >= this.block.length) this.compact();
    return n;
  }

  private compact(): void {
    const h = this.head;
    this.block.splice(0, h);
    this.start.splice(0, h);
    this.size.splice(0, h);
    this.head = 0;
    // Blocks before the oldest event's are free.
    const first = this.block.length > 0 ? this.block[0]! : this.blocks.length - 1;
    if (first > 0) {
      giveBack(this.blocks.splice(0, first), false);
      for (let i = 0; i < this.block.length; i++) this.block[i]! -= first;
    }
  }

  /** Byte size of event `i` (0 = oldest). */
  sizeOf(i: number): number {
    return this.size[this.head + i]!;
  }

  /** The byte length of join(lo, hi). */
  joinedBytes(lo: number, hi: number): number {
    let total = 2 + Math.max(0, hi - lo - 1);
    for (let i = lo; i < hi; i++) total += this.sizeOf(i);
    return total;
  }

  /**
   * Events [lo, hi) as a JSON array, in bytes: one copy per block (the commas are in
   * place). Written into `scratch` when it is large enough (the result is then a view
   * of it, valid until the scratch is written again): a fresh buffer per upload chunk
   * is memory the process has not touched, and its page faults cost more than the copy.
   */
  join(lo: number, hi: number, scratch?: Buffer): Buffer {
    const total = this.joinedBytes(lo, hi);
    const out = scratch !== undefined && scratch.length >= total ? scratch.subarray(0, total) : Buffer.allocUnsafe(total);
    let at = 0;
    out[at++] = 0x5b; // [
    const head = this.head;
    for (let i = lo; i < hi; ) {
      const first = head + i;
      const b = this.block[first]!;
      let j = i + 1;
      while (j < hi && this.block[head + j] === b) j++;
      const last = head + j - 1;
      if (i > lo) out[at++] = 0x2c; // , between blocks
      at += this.blocks[b]!.copy(out, at, this.start[first]!, this.start[last]! + this.size[last]!);
      i = j;
    }
    out[at] = 0x5d; // ]
    return out;
  }

  /** Events [lo, hi) as strings. */
  strings(lo = 0, hi = this.length): string[] {
    const out: string[] = [];
    for (let i = lo; i < hi; i++) {
      const k = this.head + i;
      out.push(this.blocks[this.block[k]!]!.toString('utf8', this.start[k]!, this.start[k]! + this.size[k]!));
    }
    return out;
  }
}
