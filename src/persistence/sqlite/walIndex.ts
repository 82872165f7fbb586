/**
 * How many pages a commit wrote to the WAL, for the statement profile (shared/statementProfile.ts),
 * read from the file system without a statement. better-sqlite3 has no wal_hook; the WAL file's size
 * does not tell either (after a checkpoint SQLite writes the WAL again from its start, in a file that
 * keeps its size up to journal_size_limit).
 *
 * What does tell is the wal-index header at the start of the `-shm` file (SQLite's file format,
 * "WAL-index format"): `mxFrame`, the number of the last committed frame, and the salts of the WAL
 * generation. SQLite rewrites that header at every commit, and when it starts the WAL afresh (after
 * a checkpoint that copied every frame, or a TRUNCATE checkpoint) it sets mxFrame to 0 and changes
 * the salts. So across one commit: same salts, the commit appended `after - before` frames; other
 * salts, the log was started afresh within this transaction (a restart happens only when a write
 * transaction writes its first frame), and it appended `after` frames. Exact, whatever checkpoints
 * ran between commits, as long as this connection is the only writer (the store holds the file's
 * lock) and the -shm file is a file (SQLite's default locking mode, not EXCLUSIVE).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';

/** Where the committed log ends: the generation (its salts) and the last committed frame in it. */
export interface WalPosition {
  salt1: number;
  salt2: number;
  mxFrame: number;
}

/** The header's size; the -shm file holds it twice, one copy after the other. */
const HEADER_BYTES = 48;
const MX_FRAME = 16;
const SALT = 32;
const IS_INIT = 12;

/** The WAL file's header, then each frame's: a frame is its header and one page, the header starting with the page's number. */
const WAL_HEADER_BYTES = 32;
const WAL_PAGE_SIZE = 8;
const FRAME_HEADER_BYTES = 24;

export class WalIndex {
  private fd: number | null = null;
  private walFd: number | null = null;
  private readonly buffer = Buffer.alloc(HEADER_BYTES * 2);
  private readonly word = Buffer.alloc(4);

  constructor(private readonly dbPath: string) {}

  /** The committed end of the log now; null when there is no -shm file to read (yet), or its two copies disagree. */
  read(): WalPosition | null {
    if (this.dbPath === ':memory:') return null;
    try {
      this.fd ??= openSync(`${this.dbPath}-shm`, 'r');
      if (readSync(this.fd, this.buffer, 0, this.buffer.length, 0) < this.buffer.length) return null;
    } catch {
      return null;
    }
    const header = this.buffer.subarray(0, HEADER_BYTES);
    // Outside a transaction the two copies are the same; a header being written (or never written) is no answer.
    if (header[IS_INIT] !== 1 || !header.equals(this.buffer.subarray(HEADER_BYTES))) return null;
    // mxFrame is in the machine's byte order; the salts are the WAL header's bytes, compared as they are.
    const mxFrame = endianness() === 'LE' ? header.readUInt32LE(MX_FRAME) : header.readUInt32BE(MX_FRAME);
    return { salt1: header.readUInt32BE(SALT), salt2: header.readUInt32BE(SALT + 4), mxFrame };
  }

  /**
   * The numbers of the pages in the frames one commit appended (framesAppended's range, read from
   * the frames' headers in the -wal file), so that the profile can tell which table or index each
   * page belongs to; null when the positions are unknown or the file cannot be read.
   */
  pagesAppended(before: WalPosition | null, after: WalPosition | null): number[] | null {
    const count = framesAppended(before, after);
    if (count === null || after === null) return null;
    try {
      this.walFd ??= openSync(`${this.dbPath}-wal`, 'r');
      const pageSize = pageSizeIn(this.walFd, this.word);
      if (pageSize === null) return null;
      const frameBytes = FRAME_HEADER_BYTES + pageSize;
      const pages: number[] = [];
      for (let frame = after.mxFrame - count; frame < after.mxFrame; frame++) {
        if (readSync(this.walFd, this.word, 0, 4, WAL_HEADER_BYTES + frame * frameBytes) < 4) return null;
        pages.push(this.word.readUInt32BE(0));
      }
      return pages;
    } catch {
      return null;
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    if (this.walFd !== null) closeSync(this.walFd);
    this.fd = null;
    this.walFd = null;
  }
}

/** The page size of an SQLite database in WAL mode, from its WAL file's header (no statement); null without one. */
export function walPageSize(dbPath: string): number | null {
  try {
    const fd = openSync(`${dbPath}-wal`, 'r');
    try {
      return pageSizeIn(fd, Buffer.alloc(4));
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** The page size in the header of the open WAL file `fd`, read through `word` (4 bytes); null when the header is short. */
function pageSizeIn(fd: number, word: Buffer): number | null {
  return readSync(fd, word, 0, 4, WAL_PAGE_SIZE) === 4 ? word.readUInt32BE(0) : null;
}

/** The frames one commit appended, from the positions read just before and just after it; null when either is unknown. */
export function framesAppended(before: WalPosition | null, after: WalPosition | null): number | null {
  if (before === null || after === null) return null;
  if (before.salt1 !== after.salt1 || before.salt2 !== after.salt2) return after.mxFrame;
  return after.mxFrame - before.mxFrame;
}
