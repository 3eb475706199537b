import { fromFile } from 'geotiff';
import sharp from 'sharp';
const f = process.argv[2];
const tiff = await fromFile(f);
const img = await tiff.getImage();
const r = (await img.readRasters({ interleave: false })) as any[];
const land = f.includes('landsat');
const [R, G, N, S] = land ? [r[2], r[3], r[1], r[0]] : [r[0], r[1], r[3], undefined];
const w = img.getWidth(), h = img.getHeight();
const out = Buffer.alloc(w * h * 3);
const H: Record<string, number[]> = { ndwi: new Array(100).fill(0), mndwi: new Array(100).fill(0) };
for (let i = 0; i < w * h; i++) {
  const ndwi = (G[i] - N[i]) / (G[i] + N[i]);
  const ndvi = (N[i] - R[i]) / (N[i] + R[i]);
  out[i * 3] = ndwi > 0.3 ? 255 : 0;
  out[i * 3 + 1] = Math.max(0, Math.min(255, (ndvi + 1) * 127));
  out[i * 3 + 2] = S ? ((G[i] - S[i]) / (G[i] + S[i]) > 0 ? 255 : 0) : ndwi > 0 ? 128 : 0;
  if (!(G[i] + N[i] > 0)) continue;
  H.ndwi[Math.min(99, Math.floor((ndwi + 1) * 50))]++;
  if (S) H.mndwi[Math.min(99, Math.floor(((G[i] - S[i]) / (G[i] + S[i]) + 1) * 50))]++;
}
for (const k of ['ndwi', 'mndwi']) console.log(k, H[k].map((c, i) => (c ? `${(i / 50 - 1).toFixed(2)}:${c}` : '')).filter(Boolean).join(' '));
await sharp(out, { raw: { width: w, height: h, channels: 3 } }).png().toFile(process.argv[3]);
