// Writes lib/drone/hamming.wasm from hamming.wat with wabt's assembler (a development dependency:
// the service loads the committed bytes). Run `npm run -s drone:hamming` after changing the .wat;
// tests/unit/drone/drone-hamming.test.ts fails while the two disagree.
import { readFileSync, writeFileSync } from 'node:fs';
import wabt from 'wabt';

export const WAT_PATH = new URL('./hamming.wat', import.meta.url);
export const WASM_PATH = new URL('./hamming.wasm', import.meta.url);

/** hamming.wat assembled, without names or debug sections: the bytes are the same on every machine. */
export async function assembleHamming(): Promise<Uint8Array> {
  const assembled = (await wabt()).parseWat('hamming.wat', readFileSync(WAT_PATH, 'utf8'), { simd: true });
  try {
    assembled.validate();
    return assembled.toBinary({}).buffer;
  } finally {
    assembled.destroy();
  }
}

if (process.argv[1] === import.meta.filename) writeFileSync(WASM_PATH, await assembleHamming());
