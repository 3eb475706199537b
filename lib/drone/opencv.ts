// opencv.js (WASM) loaded once per process. The module object is a thenable that never settles, so it
// must not be awaited or resolved as a value: wait for onRuntimeInitialized and hand it over wrapped.
import { createRequire } from 'node:module';

/* eslint-disable @typescript-eslint/no-explicit-any -- opencv.js ships no type declarations in dist */
export type Cv = any;

let loading: Promise<{ cv: Cv }> | null = null;

export function openCv(): Promise<{ cv: Cv }> {
  loading ??= new Promise((resolve) => {
    const cv = createRequire(import.meta.url)('@techstark/opencv-js');
    if (cv.Mat) resolve({ cv });
    else cv.onRuntimeInitialized = () => resolve({ cv });
  });
  return loading;
}
