/**
 * Reads a stream of byte pieces by lines and by counts, holding only what has been asked for: the
 * age decryptor needs the header line by line, then the payload a chunk at a time, whatever sizes
 * the source's pieces happen to have (one byte each, or the whole file in one).
 */
export class ByteReader {
  readonly #iterator: AsyncIterator<unknown>;
  /** Pieces read but not yet taken, in order; the first may be the remainder of a piece. */
  #pieces: Buffer[] = [];
  #buffered = 0;
  #ended = false;

  constructor(source: AsyncIterable<unknown>) {
    this.#iterator = source[Symbol.asyncIterator]();
  }

  /** One more non-empty piece from the source: false when it has ended. */
  async #pull(): Promise<boolean> {
    while (!this.#ended) {
      const { done, value } = await this.#iterator.next();
      if (done) {
        this.#ended = true;
        break;
      }
      if (!(value instanceof Uint8Array)) throw new TypeError('the age file to decrypt must be a stream of bytes');
      if (value.length === 0) continue;
      this.#pieces.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
      this.#buffered += value.length;
      return true;
    }
    return false;
  }

  /** Removes and returns the first `count` buffered bytes (count <= buffered); no copy when one piece holds them. */
  #take(count: number): Buffer {
    const first = this.#pieces[0];
    if (first !== undefined && first.length >= count) {
      this.#pieces[0] = first.subarray(count);
      if (this.#pieces[0].length === 0) this.#pieces.shift();
      this.#buffered -= count;
      return first.subarray(0, count);
    }
    const taken = Buffer.allocUnsafe(count);
    let filled = 0;
    let whole = 0;
    for (const piece of this.#pieces) {
      const part = Math.min(piece.length, count - filled);
      piece.copy(taken, filled, 0, part);
      filled += part;
      if (part < piece.length) {
        this.#pieces[whole] = piece.subarray(part);
        break;
      }
      whole++;
      if (filled === count) break;
    }
    // One splice for every piece used up: shifting them one by one would be quadratic in tiny pieces.
    this.#pieces.splice(0, whole);
    this.#buffered -= count;
    return taken;
  }

  /** The next `count` bytes; fewer only where the source ends (none at its end). */
  async read(count: number): Promise<Buffer> {
    while (this.#buffered < count && (await this.#pull()));
    return this.#take(Math.min(count, this.#buffered));
  }

  /** Up to the next `count` bytes, left unread. */
  async peek(count: number): Promise<Buffer> {
    while (this.#buffered < count && (await this.#pull()));
    return Buffer.concat(this.#pieces, Math.min(count, this.#buffered));
  }

  /** Lets the source go (a stream is destroyed) when it is left before its end: on a refusal, or a consumer that stops. */
  async close(): Promise<void> {
    this.#pieces = [];
    this.#buffered = 0;
    if (!this.#ended) {
      this.#ended = true;
      await this.#iterator.return?.();
    }
  }

  /** Whether the source has no bytes left. */
  async atEnd(): Promise<boolean> {
    return this.#buffered === 0 && !(await this.#pull());
  }

  /**
   * The next line, without its LF. `'end'` when the source ends before an LF, `'too-long'` when
   * `max` bytes come without one (what was read stays buffered either way).
   */
  async readLine(max: number): Promise<Buffer | 'end' | 'too-long'> {
    // Pieces before `scannedPieces` (holding `scannedBytes`) have no LF: each byte is looked at once.
    let scannedPieces = 0;
    let scannedBytes = 0;
    for (;;) {
      for (; scannedPieces < this.#pieces.length; scannedPieces++) {
        const piece = this.#pieces[scannedPieces]!;
        const at = piece.indexOf(0x0a);
        if (at >= 0) {
          if (scannedBytes + at > max) return 'too-long';
          return this.#take(scannedBytes + at + 1).subarray(0, scannedBytes + at);
        }
        scannedBytes += piece.length;
      }
      if (scannedBytes > max) return 'too-long';
      if (!(await this.#pull())) return 'end';
    }
  }
}
