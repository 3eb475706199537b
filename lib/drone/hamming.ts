// Nearest two descriptors by Hamming distance, in WebAssembly SIMD (hamming.wat): the most frequent
// loop of matching, where JavaScript has no popcount of its own; the same answers as a plain loop.
import { readFileSync } from 'node:fs';

interface Kernel {
  memory: WebAssembly.Memory;
  nearestTwo: (query: number, train: number, ground: number, first: number, end: number, e: number, n: number, r2: number, whole: number) => void;
}

/** Bytes before the descriptors: the running best, second best and best member (hamming.wat). */
const HEAD = 16;
const PAGE = 65536;

let kernel: Kernel | null = null;

/** The kernel of this thread, compiled on first use (synchronously: the module is a few hundred bytes). */
function loadKernel(): Kernel {
  kernel ??= new WebAssembly.Instance(new WebAssembly.Module(readFileSync(new URL('./hamming.wasm', import.meta.url)))).exports as unknown as Kernel;
  return kernel;
}

/**
 * Room in the kernel's memory for `queries` query descriptors and `candidates` candidates (each a
 * descriptor and a ground point), with the search over them. Views go stale at the next call.
 */
export function descriptorSearch(queries: number, candidates: number): DescriptorSearch {
  const k = loadKernel();
  const queryAt = HEAD, trainAt = queryAt + 32 * queries, groundAt = trainAt + 32 * candidates;
  const bytes = groundAt + 16 * candidates;
  if (bytes > k.memory.buffer.byteLength) k.memory.grow(Math.ceil((bytes - k.memory.buffer.byteLength) / PAGE));
  const { buffer } = k.memory;
  const head = new Int32Array(buffer, 0, 3);
  return {
    queries: new Uint8Array(buffer, queryAt, 32 * queries),
    candidates: new Uint8Array(buffer, trainAt, 32 * candidates),
    ground: new Float64Array(buffer, groundAt, 2 * candidates),
    reset(): void {
      head[0] = 257; head[1] = 257; head[2] = -1;
    },
    search(q, first, end, e = 0, n = 0, r2 = Infinity, whole = true): void {
      k.nearestTwo(queryAt + 32 * q, trainAt, groundAt, first, end, e, n, r2, whole ? 1 : 0);
    },
    get best() { return head[0]!; },
    get second() { return head[1]!; },
    get bestIndex() { return head[2]!; },
  };
}

/** Descriptors in the kernel's memory and the search over them (descriptorSearch). */
export interface DescriptorSearch {
  /** Query descriptors (32 bytes each). */
  readonly queries: Uint8Array;
  /** Candidates' descriptors (32 bytes each) and ground points (E, N), in the order searched. */
  readonly candidates: Uint8Array;
  readonly ground: Float64Array;
  /** Starts the search of a new query. */
  reset(): void;
  /** Searches candidates [first, end) for query q; unless `whole`, only those within sqrt(r2) of (e, n). */
  search(q: number, first: number, end: number, e?: number, n?: number, r2?: number, whole?: boolean): void;
  /** Best distance, second best distance and the best candidate so far (-1: none). */
  readonly best: number;
  readonly second: number;
  readonly bestIndex: number;
}
