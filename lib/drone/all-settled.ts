// Steps run side by side that share a work folder: a failure is thrown only once every step has
// settled, so none is still writing into the folder as the caller clears it.

/** The steps' values, in order; the first failure (in order) once all have settled. */
export async function allSettledOrThrow<T extends readonly unknown[] | []>(steps: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(steps);
  for (const step of settled) if (step.status === 'rejected') throw step.reason;
  return settled.map((step) => (step as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}
