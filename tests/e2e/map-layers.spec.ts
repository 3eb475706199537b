// The map-first workspace (issue 39): the layer panel with base maps from MAP_BASE_LAYERS and each
// layer's opacity, a scan's mosaic and index as tile layers, two scans compared with a swipe, and the
// map's share of the window on a wide screen and on a phone; in ru, en and sk. The scan tiles'
// endpoint is another change's: their URLs and opacity are checked in the page, not their pixels.
import { type Server, createServer } from 'node:http';
import { type APIRequestContext, type Locator, type Page, expect, test } from '@playwright/test';
import en from '../../messages/en.json' with { type: 'json' };
import ru from '../../messages/ru.json' with { type: 'json' };
import sk from '../../messages/sk.json' with { type: 'json' };
import { gradientIndexTiff } from '../helpers/tiff';
import { createField, registerCompany } from './helpers';

type Lang = 'ru' | 'en' | 'sk';
const MESSAGES = { ru, en, sk } as const;
const LANGS: Lang[] = ['ru', 'en', 'sk'];

// The second base map of playwright.config.ts: a 1×1 green PNG for every tile, and the paths asked for.
const TILE = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const tilePort = Number(process.env.E2E_TILE_PORT);
const tileRequests: string[] = [];
let tiles: Server;
test.beforeAll(async () => {
  tiles = createServer((req, res) => {
    tileRequests.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/png', 'access-control-allow-origin': '*' }).end(TILE);
  });
  await new Promise<void>((done) => tiles.listen(tilePort, '127.0.0.1', done));
});
test.afterAll(async () => {
  await new Promise((done) => tiles.close(done));
});

/** A field with two index scans of the gradient raster, dated a year apart; their ids, the older first. */
async function fieldWithTwoScans(request: APIRequestContext): Promise<{ id: number; older: number; newer: number }> {
  const raster = gradientIndexTiff();
  const id = await createField(request, { name: 'Gradient', geometry: raster.field });
  const scans: number[] = [];
  for (const date of ['2023-06-15', '2024-06-15']) {
    const upload = await request.post('/upload', { multipart: { field_id: String(id), zones: '3', raster_file: { name: `gradient-${date}.tif`, mimeType: 'image/tiff', buffer: raster.bytes } } });
    expect(upload.status(), await upload.text()).toBe(202);
    const taskId = (await upload.json()).task_id as string;
    await expect.poll(async () => (await (await request.get(`/api/tasks/${taskId}`)).json()).status, { timeout: 30_000 }).toBe('completed');
    const scanId = (await (await request.get(`/api/tasks/${taskId}`)).json()).result.scan_id as number;
    const dated = await request.put(`/api/scans/${scanId}`, { data: { captured_at: date } });
    expect(dated.status(), await dated.text()).toBe(200);
    scans.push(scanId);
  }
  return { id, older: scans[0]!, newer: scans[1]! };
}

const tileSrc = (scanId: number, layer: string) => new RegExp(`/api/scans/${scanId}/tiles/${layer}/\\d+/\\d+/\\d+\\.png$`);
/** Moves a range input to `value` as a drag does: the value set, then an input event (through the prototype's setter, which React's own value tracking does not intercept). */
const setRange = (slider: Locator, value: number) =>
  slider.evaluate((el, v) => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(el, String(v));
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, value);

test.describe('at 1366 px', () => {
  test.use({ viewport: { width: 1366, height: 768 } });

  for (const lang of LANGS) {
    test(`${lang}: the map's layer panel switches the base map to another source and sets the fields' opacity`, async ({ page }) => {
      const m = MESSAGES[lang].map;
      await registerCompany(page.request, lang);
      await createField(page.request, { name: 'Layered' });
      await page.goto('/map');
      const map = page.getByTestId('field-map');
      const panel = map.getByTestId('layer-panel');
      await expect(panel.getByRole('button', { name: m.layers })).toHaveAttribute('aria-expanded', 'true');
      await expect(map.locator('path.fm-field')).toHaveCount(1);
      // The first base map of MAP_BASE_LAYERS at first, the test's own after the switch.
      await expect(map.locator('.fm-base-tiles img.leaflet-tile').first()).toHaveAttribute('src', /\/tiles-unreachable\/\d+\/\d+\/\d+\.png$/);
      await panel.getByRole('radio', { name: 'Local test tiles' }).check();
      const local = map.locator('.fm-base-tiles img.leaflet-tile');
      await expect(local.first()).toHaveAttribute('src', new RegExp(`^http://127\\.0\\.0\\.1:${tilePort}/\\d+/\\d+/\\d+\\.png$`));
      await expect(map.locator('.fm-base-tiles img.leaflet-tile-loaded').first()).toBeVisible();
      expect(tileRequests.some((p) => /^\/\d+\/\d+\/\d+\.png$/.test(p))).toBe(true);
      await expect(map.locator('.fm-base-tiles img[src*="tiles-unreachable"]')).toHaveCount(0);
      await expect(map.locator('.leaflet-control-attribution')).toContainText('Test tiles');

      // The fields' opacity scales their line and fill; switched off, they and their legend leave the map.
      const fields = panel.locator('[data-layer=fields]');
      await setRange(fields.getByRole('slider', { name: m.opacity }), 50);
      await expect(map.locator('path.fm-field')).toHaveAttribute('stroke-opacity', '0.5');
      await expect(map.locator('path.fm-field')).toHaveAttribute('fill-opacity', '0.175');
      await expect(map.getByTestId('field-legend')).toBeVisible();
      await fields.getByRole('checkbox', { name: m.layer_fields }).uncheck();
      await expect(map.locator('path.fm-field')).toHaveCount(0);
      await expect(map.getByTestId('field-legend')).toHaveCount(0);
      await fields.getByRole('checkbox', { name: m.layer_fields }).check();
      await expect(map.locator('path.fm-field')).toHaveAttribute('fill-opacity', '0.175');
    });

    test(`${lang}: on the map page, the selected field's latest scan offers its index and zones as layers`, async ({ page }) => {
      const { map: m, field: f } = MESSAGES[lang];
      await registerCompany(page.request, lang);
      const { id, newer } = await fieldWithTwoScans(page.request);
      await page.goto(`/map?field=${id}`);
      const map = page.getByTestId('field-map');
      const panel = map.getByTestId('layer-panel');
      await expect(page.getByTestId('field-panel')).toContainText('Gradient');
      const index = panel.locator('[data-layer=scan-index]');
      await expect(index.getByRole('checkbox', { name: f.layer_index })).not.toBeChecked();
      await expect(panel.locator('[data-layer=scan-ortho]')).toHaveCount(0);
      await index.getByRole('checkbox', { name: f.layer_index }).check();
      await expect(map.locator('.fm-scan-index img.leaflet-tile').first()).toHaveAttribute('src', tileSrc(newer, 'index'));
      await setRange(index.getByRole('slider', { name: m.opacity }), 30);
      await expect(map.locator('.fm-scan-index')).toHaveCSS('opacity', '0.3');
      const zones = panel.locator('[data-layer=scan-zones]');
      await zones.getByRole('checkbox', { name: f.layer_zones }).check();
      await expect(map.locator('path.fm-zone').first()).toHaveAttribute('fill-opacity', '0.6');
      // With no field selected, no scan's layers are offered or shown.
      await page.getByTestId('field-panel').getByRole('button', { name: MESSAGES[lang].common.close }).click();
      await expect(panel.locator('[data-layer=scan-index]')).toHaveCount(0);
      await expect(map.locator('.fm-scan-index')).toHaveCount(0);
    });

    test(`${lang}: a scan's index and zones are layers with their opacity, and two scans compare with a swipe, dated`, async ({ page }) => {
      const { map: m, field: f } = MESSAGES[lang];
      await registerCompany(page.request, lang);
      const { id, older, newer } = await fieldWithTwoScans(page.request);
      await page.goto(`/fields/${id}`);
      const map = page.getByTestId('field-detail-map');
      const panel = map.getByTestId('layer-panel');

      // The chosen scan (the latest taken) as tiles of the scan tile endpoint, at the index's opacity.
      const index = panel.locator('[data-layer=index]');
      await expect(index.getByRole('checkbox', { name: f.layer_index })).toBeChecked();
      await expect(map.locator('.fm-scan-index img.leaflet-tile').first()).toHaveAttribute('src', tileSrc(newer, 'index'));
      await expect(map.locator('.fm-scan-index')).toHaveCSS('opacity', '0.85');
      await setRange(index.getByRole('slider', { name: m.opacity }), 40);
      await expect(map.locator('.fm-scan-index')).toHaveCSS('opacity', '0.4');
      // The index's legend is on the map while the index is.
      await expect(map.getByTestId('preview-legend')).toBeVisible();
      await index.getByRole('checkbox', { name: f.layer_index }).uncheck();
      await expect(map.locator('.fm-scan-index')).toHaveCount(0);
      await expect(map.getByTestId('preview-legend')).toHaveCount(0);
      // A raster scan has no mosaic to offer.
      await expect(panel.locator('[data-layer=ortho]')).toHaveCount(0);

      const zones = panel.locator('[data-layer=zones]');
      await expect(map.locator('path.fm-zone').first()).toHaveAttribute('fill-opacity', '0.6');
      await setRange(zones.getByRole('slider', { name: m.opacity }), 50);
      await expect(map.locator('path.fm-zone').first()).toHaveAttribute('fill-opacity', '0.3');
      await zones.getByRole('checkbox', { name: f.layer_zones }).uncheck();
      await expect(map.locator('path.fm-zone')).toHaveCount(0);

      // Compared: the older scan left of the line, the newer right, each with its date.
      await panel.getByRole('checkbox', { name: m.compare }).check();
      await expect(map.locator('.fm-compare-left img.leaflet-tile').first()).toHaveAttribute('src', tileSrc(older, 'index'));
      await expect(map.locator('.fm-compare-right img.leaflet-tile').first()).toHaveAttribute('src', tileSrc(newer, 'index'));
      await expect(map.getByTestId('compare-left-date')).toContainText('2023');
      await expect(map.getByTestId('compare-right-date')).toContainText('2024');
      await expect(map.locator('.fm-scan-index')).toHaveCount(0);

      // The line splits the map where the swipe says: each side's layer is clipped to its side.
      const width = (await map.locator('.leaflet-container').boundingBox())!.width;
      const clipShare = async () => {
        const [l, r] = await Promise.all(['.fm-compare-left', '.fm-compare-right'].map((c) => map.locator(c).evaluate((el) => (el as HTMLElement).style.clip)));
        const left = /rect\((-?[\d.]+)px,? (-?[\d.]+)px,? (-?[\d.]+)px,? (-?[\d.]+)px\)/.exec(l!)!.slice(1).map(Number);
        const right = /rect\((-?[\d.]+)px,? (-?[\d.]+)px,? (-?[\d.]+)px,? (-?[\d.]+)px\)/.exec(r!)!.slice(1).map(Number);
        // The left layer ends where the right one begins.
        expect(left[1]).toBe(right[3]);
        return (left[1]! - left[3]!) / width;
      };
      expect(await clipShare()).toBeCloseTo(0.5, 2);
      const swipe = map.getByRole('slider', { name: m.swipe });
      await setRange(swipe, 25);
      await expect.poll(clipShare).toBeCloseTo(0.25, 2);
      await expect(map.getByTestId('swipe-line')).toHaveAttribute('style', /left: 25%/);

      // Any two scans, and their index or their mosaic.
      await panel.getByLabel(m.compare_left, { exact: true }).selectOption(String(newer));
      await expect(map.locator('.fm-compare-left img.leaflet-tile').first()).toHaveAttribute('src', tileSrc(newer, 'index'));
      await expect(map.getByTestId('compare-left-date')).toContainText('2024');
      await panel.getByLabel(m.compare_layer, { exact: true }).selectOption('ortho');
      await expect(map.locator('.fm-compare-right img.leaflet-tile').first()).toHaveAttribute('src', tileSrc(newer, 'ortho'));
      await panel.getByRole('checkbox', { name: m.compare }).uncheck();
      await expect(map.locator('.fm-compare-left')).toHaveCount(0);
    });
  }
});

/** The map's box, and the header's bottom edge. */
async function measure(page: Page, testId: string) {
  const box = (await page.getByTestId(testId).boundingBox())!;
  const header = (await page.locator('header').boundingBox())!;
  return { box, headerBottom: header.y + header.height };
}

for (const lang of LANGS) {
  test(`${lang}: the map fills the window below the header, 70 % of it or more at 1920 px beside its panel, and all of it on a phone under a folded menu`, async ({ page }) => {
    const { nav } = MESSAGES[lang];
    await registerCompany(page.request, lang);
    const id = await createField(page.request, { name: 'Measured' });

    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.goto('/map');
    await expect(page.getByTestId('field-map').locator('.leaflet-container')).toBeVisible();
    let { box, headerBottom } = await measure(page, 'field-map');
    expect(box.width / 1920).toBeGreaterThanOrEqual(0.7);
    expect(Math.round(box.y)).toBe(Math.round(headerBottom));
    expect(Math.round(box.y + box.height)).toBe(1080);
    // The panel folds away and the map takes its room.
    await page.getByTestId('side-panel-toggle').click();
    await expect(page.getByTestId('side-panel')).toHaveAttribute('data-open', 'false');
    await expect.poll(async () => (await page.getByTestId('field-map').boundingBox())!.width / 1920).toBeGreaterThan(0.8);

    await page.goto(`/fields/${id}`);
    await expect(page.getByTestId('field-detail-map').locator('.leaflet-container')).toBeVisible();
    ({ box } = await measure(page, 'field-detail-map'));
    expect(box.width / 1920).toBeGreaterThanOrEqual(0.7);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/map');
    await expect(page.getByTestId('field-map').locator('.leaflet-container')).toBeVisible();
    ({ box, headerBottom } = await measure(page, 'field-map'));
    expect(box.width).toBe(390);
    expect(Math.round(box.y)).toBe(Math.round(headerBottom));
    expect(Math.round(box.y + box.height)).toBe(844);
    // The panel is a sheet over the map's foot, folded at first; a field picked opens it.
    const sheet = page.getByTestId('side-panel');
    await expect(sheet).toHaveAttribute('data-open', 'false');
    expect((await sheet.boundingBox())!.height).toBeLessThan(844 * 0.15);
    // The header's links are behind its menu.
    const fieldsLink = page.getByRole('link', { name: nav.fields, exact: true });
    await expect(fieldsLink).toBeHidden();
    await page.getByRole('button', { name: nav.menu }).click();
    await expect(fieldsLink).toBeVisible();
    await page.getByRole('button', { name: nav.menu }).click();
    await expect(fieldsLink).toBeHidden();
    const field = (await page.getByTestId('field-map').locator('path.fm-field').boundingBox())!;
    await page.mouse.click(field.x + field.width / 2, field.y + field.height / 2);
    await expect(sheet).toHaveAttribute('data-open', 'true');
    await expect(page.getByTestId('field-panel')).toBeInViewport();
  });
}
