// Photos a drone survey must do without, each written with a real photo's tags (exiftool): a drone's
// thermal camera's shot beside its wide camera's, and a shot of something else in the same flight.
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';

const copyTags = (from: string, to: string, ...extra: string[]) =>
  execFileSync('exiftool', ['-q', '-q', '-overwrite_original', '-tagsfromfile', from, '-all:all', ...extra, to]);

/** `wide` as DJI's enterprise drones' thermal camera takes it at the same moment: another lens (9.1 mm), 640 x 512 grey pixels. */
export async function writeThermalShot(wide: string, out: string): Promise<void> {
  await sharp(wide).resize(640, 512, { fit: 'fill' }).greyscale().jpeg().toFile(out);
  copyTags(wide, out, '-FocalLength=9.1', '-ExifImageWidth=640', '-ExifImageHeight=512');
}

/** Noise, which matches no photo, with `like`'s tags and reduced for sending (its camera is `like`'s). */
export async function writeStrayShot(like: string, out: string): Promise<void> {
  await sharp({ create: { width: 1000, height: 563, channels: 3, background: '#777', noise: { type: 'gaussian', mean: 120, sigma: 60 } } }).jpeg().toFile(out);
  copyTags(like, out);
}
