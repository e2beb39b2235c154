// A set of source line numbers as a growable bitmap: a million-line file costs 125 KB, not the tens
// of megabytes a Set<number> would.
export class LineSet {
  private bits = new Uint8Array(1024);
  private count = 0;

  add(line: number): void {
    const byte = line >>> 3;
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    const mask = 1 << (line & 7);
    if ((this.bits[byte]! & mask) === 0) {
      this.bits[byte]! |= mask;
      this.count++;
    }
  }

  has(line: number): boolean {
    const byte = line >>> 3;
    return byte < this.bits.length && (this.bits[byte]! & (1 << (line & 7))) !== 0;
  }

  get size(): number {
    return this.count;
  }
}
