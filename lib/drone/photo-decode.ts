// A photo that cannot be decoded, wherever that shows: at the upload (its head) or in the task (its pixels).
import { AppError } from '@/lib/errors';

export const corruptImage = (file: string) => new AppError('unprocessable', 'drone_corrupt_image', { file });

/**
 * Decodes photo `file` with `decode`. The upload reads only each photo's head, so a download cut
 * short or damaged further in shows only here: it fails the task naming the file, for good (a retry
 * would meet it again), instead of with the decoder's own words, three times.
 */
export async function decodingPhoto<T>(file: string, decode: () => Promise<T>): Promise<T> {
  try {
    return await decode();
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw corruptImage(file);
  }
}
