/**
 * A response body assembled from many short texts (the entities of a page). A small body stays one
 * string (the socket writes it without an intermediate Buffer); once a body passes 1 MiB its texts
 * are joined and encoded in slices, so a 20,000-row page never holds its row texts, a joined string
 * and its bytes at the same time, and the row texts die young.
 */

const SLICE = 1024 * 1024;

/** Collects texts; `finish` gives their concatenation (a string, or UTF-8 bytes when large). */
export class TextBody {
  private parts: string[] = [];
  private pending = 0;
  private readonly chunks: Buffer[] = [];
  private bytes = 0;

  /** Appends a text. */
  add(text: string): void {
    this.parts.push(text);
    this.pending += text.length;
    if (this.pending >= SLICE) this.flush();
  }

  /** The body. */
  finish(): string | Buffer {
    if (this.chunks.length === 0) return this.parts.join('');
    this.flush();
    return Buffer.concat(this.chunks, this.bytes);
  }

  private flush(): void {
    if (this.parts.length === 0) return;
    const chunk = Buffer.from(this.parts.join(''), 'utf8');
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    this.parts = [];
    this.pending = 0;
  }
}
