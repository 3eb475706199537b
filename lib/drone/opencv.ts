// opencv.js (WASM) loaded once per process. The package exports a promise of the module; the module is
// handed over wrapped, so that no promise machinery ever takes it for a thenable of its own.
import { createRequire } from 'node:module';

/* eslint-disable @typescript-eslint/no-explicit-any -- the module's declarations do not cover the calls made (keypoint fields, data64F) */
export type Cv = any;

let loading: Promise<{ cv: Cv }> | null = null;

export function openCv(): Promise<{ cv: Cv }> {
  loading ??= (createRequire(import.meta.url)('@techstark/opencv-js') as Promise<Cv>).then((cv) => ({ cv }));
  return loading;
}
