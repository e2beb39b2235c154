// The item keys one run has seen, with the line each was first seen on: an open-addressing table of
// 64-bit key digests and 32-bit line numbers in typed arrays, 12 bytes a slot, the table at most half
// full: the 1,000,000 transactions of a large file take 25 MB (2^21 slots), not the hundreds a Map of
// strings would. Bounded: past MAX_KEYS keys (2^22 slots, 50 MB) nothing more is recorded (the caller
// says so).
// Two keys share a 64-bit digest with a chance of about 1 in 10^7 at the bound: such a pair would be
// reported as a repeat naming both lines, which a reader can check.

export const MAX_KEYS = 2_000_000;
const FIRST_SLOTS = 1 << 12;

export class KeySet {
  private hi = new Uint32Array(FIRST_SLOTS);
  private lo = new Uint32Array(FIRST_SLOTS);
  /** Line number + 1 of the slot's key; 0 marks an empty slot. */
  private lines = new Uint32Array(FIRST_SLOTS);
  private count = 0;

  get size(): number {
    return this.count;
  }

  get full(): boolean {
    return this.count >= MAX_KEYS;
  }

  /**
   * Records `digest` (at least 8 bytes) as first seen on `line`, or answers the line it was first seen
   * on. Answers undefined, recording nothing, once the set is full.
   */
  firstLine(digest: Buffer, line: number): number | undefined {
    const hi = digest.readUInt32LE(0);
    const lo = digest.readUInt32LE(4);
    const slot = this.find(hi, lo);
    const seen = this.lines[slot]!;
    if (seen !== 0) return seen - 1;
    if (this.full) return undefined;
    this.hi[slot] = hi;
    this.lo[slot] = lo;
    this.lines[slot] = line + 1;
    this.count++;
    if (this.count * 2 > this.lines.length) this.grow();
    return undefined;
  }

  /** The key's slot, or the empty slot where it would go (linear probing; the table is never full). */
  private find(hi: number, lo: number): number {
    const mask = this.lines.length - 1;
    let slot = (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
    while (this.lines[slot] !== 0 && (this.hi[slot] !== hi || this.lo[slot] !== lo)) slot = (slot + 1) & mask;
    return slot;
  }

  private grow(): void {
    const { hi, lo, lines } = this;
    this.hi = new Uint32Array(lines.length * 2);
    this.lo = new Uint32Array(lines.length * 2);
    this.lines = new Uint32Array(lines.length * 2);
    for (let i = 0; i < lines.length; i++) {
      if (lines[i] === 0) continue;
      const slot = this.find(hi[i]!, lo[i]!);
      this.hi[slot] = hi[i]!;
      this.lo[slot] = lo[i]!;
      this.lines[slot] = lines[i]!;
    }
  }
}
