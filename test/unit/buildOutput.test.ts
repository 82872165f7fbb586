/**
 * The rebuild-when-stale and build-into-place rules that the dashboard's bundle and the compiled
 * server share (scripts/build-output.mjs), on folders of their own in a temp dir.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildIntoPlace, staleReason } from '../../scripts/build-output.mjs';

const FILES = ['a.js', 'b.js', 'c.js', 'main.js'];

let root: string;
let src: string;
let output: string;
let marker: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'office-build-output-'));
  src = join(root, 'src');
  output = join(root, 'out');
  marker = join(output, 'main.js');
  mkdirSync(src);
  writeFileSync(join(src, 'main.ts'), 'export {};\n');
  const past = new Date(Date.now() - 60_000);
  utimesSync(join(src, 'main.ts'), past, past);
  utimesSync(src, past, past);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const reason = () => staleReason({ name: 'out', marker, sources: [src] });

/** A build that writes its files one at a time, yielding between them, each file naming the build. */
function slowBuild(label: string) {
  return async (temp: string) => {
    for (const file of FILES) {
      writeFileSync(join(temp, file), label);
      await sleep(5);
    }
  };
}

describe('staleReason', () => {
  it('says the output is missing, then current once built, then older than a source saved since', async () => {
    expect(reason()).toBe('out is missing');
    await buildIntoPlace({ output, marker, build: slowBuild('one'), isCurrent: () => reason() === null });
    expect(reason()).toBeNull();
    writeFileSync(join(src, 'other.ts'), 'export {};\n');
    expect(reason()).toBe('out is older than its sources');
  });

  it("dates the marker at the build's start, so a source saved while the build ran still counts as newer", async () => {
    // The source is saved after the build started, and before the build writes its marker.
    const build = async (temp: string) => {
      await sleep(5);
      writeFileSync(join(src, 'main.ts'), 'export const edited = true;\n');
      await sleep(5);
      await slowBuild('one')(temp);
    };
    await buildIntoPlace({ output, marker, build, isCurrent: () => reason() === null });
    expect(statSync(marker).mtimeMs).toBeLessThan(statSync(join(src, 'main.ts')).mtimeMs);
    expect(reason()).toBe('out is older than its sources');
  });
});

describe('buildIntoPlace', () => {
  it('two builds racing leave one whole output, from one build, and no temporary folder', async () => {
    await Promise.all(['one', 'two', 'three'].map((label) => buildIntoPlace({ output, marker, build: slowBuild(label), isCurrent: () => reason() === null })));
    expect(readdirSync(output).sort()).toEqual([...FILES].sort());
    const labels = new Set(FILES.map((file) => readFileSync(join(output, file), 'utf8')));
    expect(labels.size).toBe(1);
    expect(readdirSync(root).sort()).toEqual(['out', 'src']);
  });

  it('a build that fails leaves the output it had, and no temporary folder', async () => {
    await buildIntoPlace({ output, marker, build: slowBuild('good'), isCurrent: () => false });
    const failing = async (temp: string) => {
      writeFileSync(join(temp, 'a.js'), 'half');
      throw new Error('compile error');
    };
    await expect(buildIntoPlace({ output, marker, build: failing, isCurrent: () => false })).rejects.toThrow('compile error');
    expect(FILES.map((file) => readFileSync(join(output, file), 'utf8'))).toEqual(FILES.map(() => 'good'));
    expect(readdirSync(root).sort()).toEqual(['out', 'src']);
  });
});
