import { expect, test } from '@playwright/test';
import { addUser, createField, registerCompany, signIn, square } from './helpers';
import en from '../../messages/en.json' with { type: 'json' };

test.use({ locale: 'en-US', viewport: { width: 1366, height: 768 } });

const parseHa = (text: string) => Number(/([\d,]+(?:\.\d+)?)\s*ha/.exec(text)![1]!.replace(/,/g, ''));

test('draw a field on the map, see its area while drawing, save it and find it in the table', async ({ page }) => {
  await registerCompany(page.request);
  await page.goto('/map');
  await expect(page.getByTestId('map-summary')).toHaveText('No fields yet');

  const map = page.getByTestId('field-map');
  await expect(map.locator('.leaflet-container')).toBeVisible();
  const box = (await map.boundingBox())!;
  const at = (dx: number, dy: number) => ({ x: box.x + dx, y: box.y + dy });
  const corners = [at(200, 120), at(420, 120), at(420, 300), at(200, 300)];

  await page.getByRole('button', { name: 'Draw a field' }).click();
  await expect(page.getByTestId('draw-hint')).toBeVisible();
  for (const p of corners.slice(0, 3)) await page.mouse.click(p.x, p.y);
  // Three corners make an area, shown while drawing.
  await expect(page.getByTestId('live-area')).toContainText('ha');
  await page.mouse.click(corners[3]!.x, corners[3]!.y);
  await page.mouse.click(corners[0]!.x, corners[0]!.y);

  const area = page.getByTestId('new-area');
  await expect(area).toContainText('ha');
  const shownArea = parseHa((await area.textContent())!);
  expect(shownArea).toBeGreaterThan(0);

  const form = page.locator('aside form');
  await form.getByLabel('Name').fill('North meadow');
  await form.getByLabel('Status').selectOption({ label: 'Leased' });
  await form.getByLabel('Parcel number').fill('61:02:0600010:123');
  await form.getByRole('button', { name: 'Save' }).click();

  await expect(page.getByRole('status').filter({ hasText: 'Field “North meadow” saved' })).toBeVisible();
  await expect(page.getByTestId('map-summary')).toHaveCount(0); // the new field is selected
  await expect(page.getByTestId('field-panel')).toContainText('North meadow');
  await expect(page.getByTestId('field-panel')).toContainText('Leased');
  await expect(map.locator('path.fm-field')).toHaveCount(1);

  // The server computed the same area as the one shown while drawing.
  const list = await (await page.request.get('/api/fields')).json();
  expect(list.features).toHaveLength(1);
  expect(list.features[0].properties.area).toBeCloseTo(shownArea, 1);

  await page.getByRole('link', { name: 'Fields' }).click();
  await expect(page.getByTestId('fields-table')).toContainText('North meadow');
  await expect(page.getByTestId('fields-table')).toContainText('61:02:0600010:123');
  await expect(page.getByTestId('fields-total-count')).toHaveText('Total: 1 field');
});

test('a field drawn for an owner not yet listed adds the owner from its form; a listed name in another case is that owner', async ({ page }) => {
  await registerCompany(page.request);
  const kovac = (await (await page.request.post('/api/owners', { data: { name: 'Kovač' } })).json()).id as number;
  await page.goto('/map');
  const map = page.getByTestId('field-map');
  await expect(map.locator('.leaflet-container')).toBeVisible();
  const box = (await map.boundingBox())!;
  const form = page.locator('aside form');
  async function drawAndSave(x: number, name: string, owner: string) {
    await page.getByRole('button', { name: 'Draw a field' }).click();
    for (const [dx, dy] of [[x, 120], [x + 120, 120], [x + 120, 240], [x, 240], [x, 120]]) await page.mouse.click(box.x + dx!, box.y + dy!);
    await form.getByLabel('Name').fill(name);
    await form.getByRole('combobox', { name: 'Owner', exact: true }).selectOption({ label: en.fields.add_owner });
    await form.getByLabel(en.fields.new_owner_name).fill(owner);
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('status').filter({ hasText: `Field “${name}” saved` })).toBeVisible();
  }

  await drawAndSave(150, 'Rented strip', 'Novák Ján');
  await expect(page.getByTestId('field-panel')).toContainText('Novák Ján');
  const owners = async () => ((await (await page.request.get('/api/owners')).json()) as { id: number; name: string }[]).map((o) => o.name).sort();
  expect(await owners()).toEqual(['Kovač', 'Novák Ján']);

  // A name of spaces only is not a name; said in words, nothing is saved.
  await page.getByRole('button', { name: 'Draw a field' }).click();
  for (const [dx, dy] of [[550, 120], [670, 120], [670, 240], [550, 240], [550, 120]]) await page.mouse.click(box.x + dx!, box.y + dy!);
  await form.getByLabel('Name').fill('Blank owner');
  await form.getByRole('combobox', { name: 'Owner', exact: true }).selectOption({ label: en.fields.add_owner });
  await expect(form.getByLabel(en.fields.new_owner_name)).toBeFocused();
  await form.getByLabel(en.fields.new_owner_name).fill('   ');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByRole('alert')).toHaveText(en.fields.new_owner_name_missing);
  await form.getByRole('button', { name: 'Cancel' }).click();

  // An owner a colleague added since the page was read is that owner, not a 409 to reload for.
  await page.request.post('/api/owners', { data: { name: 'Added Meanwhile' } });
  await drawAndSave(550, 'Third strip', 'added meanwhile');
  await expect(page.getByTestId('field-panel')).toContainText('Added Meanwhile');
  expect(await owners()).toEqual(['Added Meanwhile', 'Kovač', 'Novák Ján']);

  await drawAndSave(350, 'Second strip', ' KOVAČ ');
  await expect(page.getByTestId('field-panel')).toContainText('Kovač');
  expect(await owners()).toEqual(['Added Meanwhile', 'Kovač', 'Novák Ján']);
  const fields = (await (await page.request.get('/api/fields')).json()).features as { id: number; properties: { name: string } }[];
  const second = fields.find((f) => f.properties.name === 'Second strip')!;
  expect((await (await page.request.get(`/api/fields/${second.id}`)).json()).owner).toEqual({ id: kovac, name: 'Kovač' });
});

test('edit a boundary by dragging a corner, then delete the field after confirming', async ({ page }) => {
  await registerCompany(page.request);
  const created = await page.request.post('/api/fields', {
    data: { name: 'Bend', geometry: { type: 'Polygon', coordinates: [[[17.1, 48.15], [17.11, 48.15], [17.11, 48.156], [17.1, 48.156], [17.1, 48.15]]] } },
  });
  const id = (await created.json()).id as number;
  const before = (await (await page.request.get(`/api/fields/${id}`)).json()).area as number;

  await page.goto(`/map?field=${id}`);
  const map = page.getByTestId('field-map');
  await expect(page.getByTestId('field-panel')).toContainText('Bend');
  await page.getByRole('button', { name: 'Edit boundary' }).click();
  const corner = map.locator('.leaflet-marker-icon.marker-icon:not(.marker-icon-middle)').first();
  await expect(corner).toBeVisible();
  const c = (await corner.boundingBox())!;
  await page.mouse.move(c.x + c.width / 2, c.y + c.height / 2);
  await page.mouse.down();
  await page.mouse.move(c.x + c.width / 2 - 60, c.y + c.height / 2 - 40, { steps: 8 });
  await page.mouse.up();
  // The area shown while editing is the one the field is saved with, to the square metre.
  const panelArea = page.getByTestId('panel-area');
  await expect(panelArea).not.toHaveText(`${before.toFixed(4)} ha`);
  const shown = parseHa((await panelArea.textContent())!);
  await page.getByRole('button', { name: 'Save boundary' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Boundary saved' })).toBeVisible();
  const after = (await (await page.request.get(`/api/fields/${id}`)).json()).area as number;
  expect(after).not.toBeCloseTo(before, 2);
  expect(after).toBe(shown);
  await expect(panelArea).toHaveText(`${after.toFixed(4)} ha`);

  await map.locator(`path.fm-field-${id}`).click();
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('button', { name: 'Yes, delete' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Field deleted' })).toBeVisible();
  await expect(map.locator('path.fm-field')).toHaveCount(0);
  expect((await page.request.get(`/api/fields/${id}`)).status()).toBe(404);
});

test('the map opens where the fields are, reading them from the API rather than from the page', async ({ page }) => {
  await registerCompany(page.request);
  const ids: number[] = [];
  for (const [name, lon] of [['Western strip', 17.1], ['Eastern strip', 17.16]] as const) {
    ids.push(await createField(page.request, { name, geometry: square(lon, 48.15, 0.01) }));
  }
  // The page carries the first view, not the fields: its size does not grow with the company's.
  expect(await (await page.request.get('/map')).text()).not.toContain('Western strip');

  await page.goto('/map');
  await expect(page.getByTestId('map-summary')).toHaveText(/^2 fields/);
  await expect(page.getByTestId('map-loading')).toHaveCount(0);
  // Both are in view at once, far from the map's default centre. (Leaflet draws a polygon out of
  // view as an empty path.)
  const view = (await page.getByTestId('field-map').boundingBox())!;
  for (const id of ids) {
    const b = (await page.locator(`path.fm-field-${id}`).boundingBox())!;
    expect(b.width).toBeGreaterThan(20);
    expect(b.x).toBeGreaterThanOrEqual(view.x);
    expect(b.y).toBeGreaterThanOrEqual(view.y);
    expect(b.x + b.width).toBeLessThanOrEqual(view.x + view.width);
    expect(b.y + b.height).toBeLessThanOrEqual(view.y + view.height);
  }
});

test('a company of over a thousand fields is painted on one canvas, where a field still answers hover and click', async ({ page }) => {
  await registerCompany(page.request);
  // A ring of 1,000 small fields (a grid of 0.004° cells with the middle left empty) around one
  // large field in the middle, where the map's first view is centred.
  const cells: [number, number][] = [];
  for (let row = 0; row < 32 && cells.length < 1000; row++) {
    for (let col = 0; col < 40 && cells.length < 1000; col++) if (Math.abs(col - 19.5) > 6 || Math.abs(row - 15.5) > 6) cells.push([col, row]);
  }
  for (let i = 0; i < cells.length; i += 50) {
    await Promise.all(cells.slice(i, i + 50).map(([col, row]) => createField(page.request, { name: `Cell ${col}:${row}`, geometry: square(17 + col * 0.004, 48.1 + row * 0.004, 0.003) })));
  }
  // The ring spans 17-17.159 by 48.1-48.215, the empty middle 17.056-17.103 by 48.14-48.187; this
  // field lies inside the middle and over the ring's centre (17.0795, 48.1575).
  await createField(page.request, { name: 'Centre field', geometry: square(17.0695, 48.1535, 0.02) });

  await page.goto('/map');
  await expect(page.getByTestId('map-summary')).toHaveText(/^1,001 fields/);
  const map = page.getByTestId('field-map');
  await expect(map.locator('.leaflet-overlay-pane canvas')).toHaveCount(1);
  await expect(map.locator('path.fm-field')).toHaveCount(0);
  const view = (await map.boundingBox())!;
  await page.mouse.move(view.x + view.width / 2, view.y + view.height / 2);
  await expect(page.locator('.leaflet-tooltip')).toContainText('Centre field');
  await page.mouse.click(view.x + view.width / 2, view.y + view.height / 2);
  await expect(page.getByTestId('field-panel')).toContainText('Centre field');
  // Its boundary can be edited on the canvas too.
  await page.getByRole('button', { name: 'Edit boundary' }).click();
  await expect(map.locator('.leaflet-marker-icon.marker-icon:not(.marker-icon-middle)')).toHaveCount(4);
  await page.getByTestId('field-panel').getByRole('button', { name: 'Cancel' }).click();
  await expect(map.locator('.leaflet-marker-icon.marker-icon')).toHaveCount(0);
});

test('a large company’s map keeps only the fields near the view on it, recolours them in place, and an edit reads again only what it changed', async ({ page }) => {
  test.slow();
  await registerCompany(page.request);
  // 1,100 fields, 50 by 22 on a grid of 0.01°: a close view holds a few of them.
  const cells: [number, number][] = [];
  for (let row = 0; row < 22; row++) for (let col = 0; col < 50; col++) cells.push([col, row]);
  for (let i = 0; i < cells.length; i += 50) {
    await Promise.all(cells.slice(i, i + 50).map(([col, row]) => createField(page.request, { name: `Plot ${col}:${row}`, status: 'Аренда', geometry: square(17 + col * 0.01, 48.1 + row * 0.01, 0.006) })));
  }
  // The Leaflet map, for counting the fields on it (the page's global `L` is Leaflet).
  await page.addInitScript(() => {
    const w = window as unknown as { L?: { Map: { addInitHook(f: () => void): void } }; fieldMap?: unknown };
    let leaflet: typeof w.L;
    Object.defineProperty(w, 'L', {
      configurable: true,
      get: () => leaflet,
      set: (v: typeof w.L) => {
        leaflet = v;
        v?.Map.addInitHook(function (this: unknown) {
          w.fieldMap = this;
        });
      },
    });
  });
  const onMap = () =>
    page.evaluate(() => {
      let n = 0;
      (window as unknown as { fieldMap: { eachLayer(f: (l: { feature?: unknown }) => void): void } }).fieldMap.eachLayer((l) => void (l.feature && n++));
      return n;
    });
  // Reads of the whole list (a zoom in reads the window near the view again, finer: `bbox=`).
  let listReads = 0;
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (r.method() === 'GET' && url.pathname === '/api/fields' && !url.searchParams.has('bbox')) listReads++;
  });

  await page.goto('/map');
  await expect(page.getByTestId('map-summary')).toHaveText(/^1,100 fields/);
  const map = page.getByTestId('field-map');
  await expect(map.locator('.leaflet-overlay-pane canvas')).toHaveCount(1);
  // The first view holds them all.
  expect(await onMap()).toBe(1100);

  // Close to one field, only those near it are on the map, and it answers hover.
  const search = page.getByLabel('Find a field');
  const panel = page.getByTestId('field-panel');
  await search.fill('Plot 0:0');
  await search.press('Enter');
  await expect(panel.getByRole('heading')).toHaveText('Plot 0:0');
  await expect.poll(onMap).toBeLessThan(50);
  expect(await onMap()).toBeGreaterThan(0);
  const view = (await map.boundingBox())!;
  const centre = { x: view.x + view.width / 2, y: view.y + view.height / 2 };
  await page.mouse.move(centre.x, centre.y);
  await expect(page.locator('.leaflet-tooltip')).toContainText('Plot 0:0');

  // Coloured by owner (none: grey) instead of status (leased: blue), the field is repainted.
  // (Off the map: Leaflet ignores a move over the canvas within 32 ms of the last.)
  await page.mouse.move(centre.x, view.y - 20);
  await expect(page.locator('.leaflet-tooltip')).toHaveCount(0);
  const pixel = { x: centre.x - 2, y: centre.y - 2, width: 4, height: 4 };
  const blue = await page.screenshot({ clip: pixel });
  await page.getByLabel('Colour by').selectOption('owner');
  await expect(page.getByRole('list', { name: 'Legend' })).toContainText('No owner(1,100)');
  await expect.poll(async () => (await page.screenshot({ clip: pixel })).equals(blue)).toBe(false);

  // Deleted, the field leaves the map; the list is not read again.
  await panel.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('button', { name: 'Yes, delete' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Field deleted' })).toBeVisible();
  await expect(page.getByTestId('map-summary')).toHaveText(/^1,099 fields/);
  await page.mouse.move(centre.x, centre.y);
  await expect(page.locator('.leaflet-tooltip')).toHaveCount(0);

  // The fields far away come back on the map when the view goes to them.
  await search.fill('Plot 49:21');
  await search.press('Enter');
  await expect(panel.getByRole('heading')).toHaveText('Plot 49:21');
  await page.mouse.move(centre.x + 1, centre.y + 1);
  await expect(page.locator('.leaflet-tooltip')).toContainText('Plot 49:21');
  expect(listReads).toBe(1);
});

test('over a thousand fields, the map reads them simplified for its view, finer zoomed in, and an edit starts from the stored boundary', async ({ page }) => {
  test.slow();
  await registerCompany(page.request);
  // 1,001 round fields of 200 corners, 800 m across, 40 by 26 on a grid (0.015° by 0.01°).
  const round = (lon: number, lat: number) => {
    const ring = Array.from({ length: 200 }, (_, i) => {
      const a = (2 * Math.PI * i) / 200;
      const r = 400 * (1 + 0.01 * Math.sin(7 * a));
      return [lon + (r * Math.cos(a)) / 74_500, lat + (r * Math.sin(a)) / 111_200];
    });
    return { type: 'Polygon', coordinates: [[...ring, ring[0]]] };
  };
  const cells = Array.from({ length: 1001 }, (_, i) => [i % 40, Math.floor(i / 40)] as const);
  for (let i = 0; i < cells.length; i += 50) {
    await Promise.all(cells.slice(i, i + 50).map(([col, row]) => createField(page.request, { name: `Plot ${col}:${row}`, geometry: round(17 + col * 0.015, 48.1 + row * 0.01) })));
  }
  const reads: URL[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (r.method() === 'GET' && url.pathname.startsWith('/api/fields')) reads.push(url);
  });

  await page.goto('/map');
  await expect(page.getByTestId('map-summary')).toHaveText(/^1,001 fields/);
  const map = page.getByTestId('field-map');
  await expect(map.locator('.leaflet-overlay-pane canvas')).toHaveCount(1);
  // The first read is the whole list, simplified to about half a pixel of the first view (tens of metres).
  const first = reads[0]!;
  expect(first.pathname).toBe('/api/fields');
  expect(first.searchParams.has('bbox')).toBe(false);
  expect(Number(first.searchParams.get('simplify'))).toBeGreaterThan(5);

  // Close to one field, the window near the view is read again, finer, and the field answers hover.
  const search = page.getByLabel('Find a field');
  const panel = page.getByTestId('field-panel');
  await search.fill('Plot 0:0');
  await search.press('Enter');
  await expect(panel.getByRole('heading')).toHaveText('Plot 0:0');
  await expect.poll(() => reads.filter((u) => u.searchParams.has('bbox')).length).toBeGreaterThan(0);
  const window = reads.find((u) => u.searchParams.has('bbox'))!;
  expect(Number(window.searchParams.get('simplify') ?? 0)).toBeLessThan(Number(first.searchParams.get('simplify')) / 1.5);
  const view = (await map.boundingBox())!;
  await page.mouse.move(view.x + view.width / 2, view.y + view.height / 2);
  await expect(page.locator('.leaflet-tooltip')).toContainText('Plot 0:0');

  // Editing reads the field as stored: all 200 corners are there to drag.
  const detail = page.waitForRequest((r) => /\/api\/fields\/\d+$/.test(new URL(r.url()).pathname));
  await panel.getByRole('button', { name: 'Edit boundary' }).click();
  await detail;
  await expect(map.locator('.leaflet-marker-icon.marker-icon:not(.marker-icon-middle)')).toHaveCount(200);
  await panel.getByRole('button', { name: 'Cancel' }).click();
  await expect(map.locator('.leaflet-marker-icon.marker-icon')).toHaveCount(0);
});

test('finds a field by name or parcel number, accents aside, and takes the map to it', async ({ page }) => {
  await registerCompany(page.request);
  const far = await createField(page.request, { name: 'Pláž pri rieke', geometry: square(20.5, 49.0), parcel_number: '61:02:1' });
  await createField(page.request, { name: 'North', geometry: square(17.1, 48.15) });
  await createField(page.request, { name: 'North-East', geometry: square(17.2, 48.15) });
  await page.goto('/map');
  const search = page.getByLabel('Find a field');
  const matches = page.getByRole('list', { name: 'Fields found' });
  const panelTitle = page.getByTestId('field-panel').getByRole('heading');
  // The first view holds all three: the far one is a speck.
  const outline = page.locator(`path.fm-field-${far}`);
  await expect(outline).toBeAttached();
  expect((await outline.boundingBox())?.width ?? 0).toBeLessThan(50);

  await search.fill('plaz');
  await expect(matches.getByRole('button')).toHaveCount(1);
  await matches.getByRole('button').click();
  await expect(panelTitle).toHaveText('Pláž pri rieke');
  await expect(search).toHaveValue('');
  // The map went to it.
  await expect.poll(async () => (await outline.boundingBox())?.width ?? 0).toBeGreaterThan(100);

  // Two match; Enter takes the first. A parcel number finds its field too.
  await search.fill('north');
  await expect(matches.getByRole('button')).toHaveCount(2);
  await search.press('Enter');
  await expect(panelTitle).toHaveText('North');
  await search.fill('61:02');
  await expect(matches.getByRole('button')).toHaveText([/^Pláž pri rieke/]);
  await search.fill('nothing like it');
  await expect(page.getByText('No fields match.')).toBeVisible();
});

test('split a field with a line drawn across it: the larger part stays the field, the other becomes a new one', async ({ page }) => {
  await registerCompany(page.request);
  const id = await createField(page.request, { name: 'Wide', geometry: { type: 'Polygon', coordinates: [[[17.2, 48.15], [17.21, 48.15], [17.21, 48.155], [17.2, 48.155], [17.2, 48.15]]] } });
  const before = (await (await page.request.get(`/api/fields/${id}`)).json()).area as number;

  await page.goto(`/map?field=${id}`);
  await expect(page.getByTestId('field-panel')).toContainText('Wide');
  const outline = (await page.getByTestId('field-map').locator(`path.fm-field-${id}`).boundingBox())!;
  // Escape steps out of a cut begun, and then out of the selection.
  await page.getByRole('button', { name: 'Split with a line' }).click();
  await expect(page.getByTestId('draw-hint')).toContainText('Draw a line across the field');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('draw-hint')).toHaveCount(0);
  await expect(page.getByTestId('field-panel')).toContainText('Wide');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('field-panel')).toHaveCount(0);
  await page.getByTestId('field-map').locator(`path.fm-field-${id}`).click();
  await page.getByRole('button', { name: 'Split with a line' }).click();
  await expect(page.getByTestId('draw-hint')).toContainText('Draw a line across the field');
  // From above the field to below it, two fifths of the way across; the last point clicked again ends the line.
  const x = outline.x + outline.width * 0.4;
  await page.mouse.click(x, outline.y - 12);
  await page.mouse.click(x, outline.y + outline.height + 12);
  await page.mouse.click(x, outline.y + outline.height + 12);

  await expect(page.getByRole('status').filter({ hasText: 'Field split into 2 parts' })).toBeVisible();
  const features = (await (await page.request.get('/api/fields')).json()).features as { id: number; properties: { name: string; area: number } }[];
  expect(features.map((f) => f.properties.name)).toEqual(['Wide', 'Wide (2)']);
  const [kept, part] = features.map((f) => f.properties.area);
  expect(kept! / before).toBeCloseTo(0.6, 1);
  expect(Math.abs(kept! + part! - before)).toBeLessThan(before * 1e-4);
  await expect(page.getByTestId('field-map').locator('path.fm-field')).toHaveCount(2);

  // The new field's page names the field it was cut from.
  await page.goto(`/fields/${features[1]!.id}`);
  await expect(page.getByTestId('field-properties')).toContainText('Cut fromWide');
  await page.getByTestId('field-properties').getByRole('link', { name: 'Wide' }).click();
  await expect(page).toHaveURL(new RegExp(`/fields/${id}$`));
});

test('Shift-click selects several fields: their total area, and an admin merges them there', async ({ page }) => {
  await registerCompany(page.request);
  const west = await createField(page.request, { name: 'West strip', geometry: { type: 'Polygon', coordinates: [[[17.3, 48.15], [17.305, 48.15], [17.305, 48.155], [17.3, 48.155], [17.3, 48.15]]] } });
  const east = await createField(page.request, { name: 'East strip', geometry: { type: 'Polygon', coordinates: [[[17.305, 48.15], [17.31, 48.15], [17.31, 48.155], [17.305, 48.155], [17.305, 48.15]]] } });
  const areas = await Promise.all([west, east].map(async (id) => (await (await page.request.get(`/api/fields/${id}`)).json()).area as number));

  await page.goto('/map');
  const map = page.getByTestId('field-map');
  await map.locator(`path.fm-field-${west}`).click();
  await expect(page.getByTestId('field-panel')).toContainText('West strip');
  await map.locator(`path.fm-field-${east}`).click({ modifiers: ['Shift'] });
  const panel = page.getByTestId('selection-panel');
  await expect(panel.getByRole('heading', { name: '2 fields selected' })).toBeVisible();
  await expect(panel.getByTestId('selection-area')).toHaveText(`${(areas[0]! + areas[1]!).toLocaleString('en-US', { minimumFractionDigits: 4, maximumFractionDigits: 4 })} ha`);
  // Shift-click again takes a field out of the selection.
  await map.locator(`path.fm-field-${east}`).click({ modifiers: ['Shift'] });
  await expect(page.getByTestId('field-panel')).toContainText('West strip');
  await map.locator(`path.fm-field-${east}`).click({ modifiers: ['Shift'] });

  await panel.getByLabel('Name of the merged field').fill('Both strips');
  await panel.getByRole('button', { name: 'Merge 2 fields' }).click();
  await expect(page.getByRole('status').filter({ hasText: '2 fields merged into “Both strips”' })).toBeVisible();
  await expect(map.locator('path.fm-field')).toHaveCount(1);
  await expect(page.getByTestId('field-panel')).toContainText('Both strips');
  expect((await page.request.get(`/api/fields/${east}`)).status()).toBe(404);
});

test('without a Shift key (a tablet), “Select several” makes plain clicks add fields to the selection', async ({ page }) => {
  await registerCompany(page.request);
  const west = await createField(page.request, { name: 'West strip', geometry: { type: 'Polygon', coordinates: [[[17.3, 48.15], [17.305, 48.15], [17.305, 48.155], [17.3, 48.155], [17.3, 48.15]]] } });
  const east = await createField(page.request, { name: 'East strip', geometry: { type: 'Polygon', coordinates: [[[17.305, 48.15], [17.31, 48.15], [17.31, 48.155], [17.305, 48.155], [17.305, 48.15]]] } });

  await page.goto('/map');
  const map = page.getByTestId('field-map');
  await map.locator(`path.fm-field-${west}`).click();
  const single = page.getByTestId('field-panel');
  await single.getByRole('button', { name: en.map.select_several }).click();
  await expect(single.getByText(en.map.select_several_hint)).toBeVisible();
  await map.locator(`path.fm-field-${east}`).click();
  const panel = page.getByTestId('selection-panel');
  await expect(panel.getByRole('heading', { name: '2 fields selected' })).toBeVisible();
  // A click again takes a field out; closing the selection ends the mode, and a click selects one field again.
  await map.locator(`path.fm-field-${east}`).click();
  await expect(single).toContainText('West strip');
  await map.locator(`path.fm-field-${east}`).click();
  await panel.getByRole('button', { name: en.fields.clear_selection }).click();
  await map.locator(`path.fm-field-${east}`).click();
  await expect(single).toContainText('East strip');
  await map.locator(`path.fm-field-${west}`).click();
  await expect(single).toContainText('West strip');
  await expect(panel).toHaveCount(0);
  // Taking the last field out of the selection ends the mode too.
  await single.getByRole('button', { name: en.map.select_several }).click();
  await map.locator(`path.fm-field-${west}`).click();
  await expect(single).toHaveCount(0);
  await map.locator(`path.fm-field-${east}`).click();
  await expect(single).toContainText('East strip');
  await expect(single.getByRole('button', { name: en.map.select_several })).toBeVisible();
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test('a field is drawn with taps and closed with Finish, the map stays put, and a tapped field shows its details', async ({ page }) => {
    await registerCompany(page.request);
    await page.goto('/map');
    const map = page.getByTestId('field-map');
    await expect(map.locator('.leaflet-container')).toBeVisible();
    await page.getByRole('button', { name: 'Draw a field' }).click();
    await expect(page.getByTestId('draw-hint')).toBeVisible();
    const box = (await map.boundingBox())!;
    const corners = [[120, 200], [300, 200], [300, 380], [120, 380], [200, 300]].map(([x, y]) => ({ x: box.x + x!, y: box.y + y! }));
    for (const p of corners) await page.touchscreen.tap(p.x, p.y);
    // The hint grew with the area as corners were placed: over the map, it moved nothing.
    await expect(page.getByTestId('live-area')).toContainText('ha');
    expect((await map.boundingBox())!.y).toBe(box.y);
    // A stray last corner taken back, then the boundary closed without aiming at the first one.
    await page.getByRole('button', { name: 'Undo last corner' }).click();
    await page.getByRole('button', { name: 'Finish' }).click();
    await expect(page.getByTestId('new-area')).toContainText('ha');
    const form = page.locator('aside form');
    // The new field's form opens below the map: the page goes to it.
    await expect(page.getByTestId('new-area')).toBeInViewport();
    await expect(form.getByLabel('Name')).toBeInViewport();
    await form.getByLabel('Name').fill('Tapped');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('field-panel')).toContainText('Tapped');
    const saved = (await (await page.request.get('/api/fields')).json()).features;
    expect(saved[0].geometry.coordinates[0]).toHaveLength(5); // four corners, closed

    // A tap on the field, with the map scrolled back into view: its panel comes into sight. The
    // header's links are behind its menu on a phone.
    await page.getByRole('button', { name: en.nav.menu }).click();
    await page.getByRole('link', { name: 'Fields' }).click();
    await page.goto('/map');
    await expect(map.locator('path.fm-field')).toHaveCount(1);
    const field = (await map.locator('path.fm-field').boundingBox())!;
    await page.touchscreen.tap(field.x + field.width / 2, field.y + field.height / 2);
    await expect(page.getByTestId('field-panel')).toBeInViewport();
  });
});

test('a field’s name is shown as text in the map’s tooltip, never run as HTML', async ({ page }) => {
  await registerCompany(page.request);
  // A name an operator (or an imported register) wrote: run as HTML, it acted as whoever hovered.
  const name = 'North <img src=x onerror="window.__injected = 1">';
  await createField(page.request, { name, geometry: square(17.1, 48.15, 0.02) });
  await page.goto('/map');
  const map = page.getByTestId('field-map');
  await expect(page.getByTestId('map-summary')).toHaveText(/^1 field/);
  const view = (await map.boundingBox())!;
  await page.mouse.move(view.x + view.width / 2, view.y + view.height / 2);
  await expect(page.locator('.leaflet-tooltip')).toContainText(name);
  await expect(page.locator('.leaflet-tooltip img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __injected?: number }).__injected)).toBeUndefined();
});

const BEND = { type: 'Polygon', coordinates: [[[17.1, 48.15], [17.11, 48.15], [17.11, 48.156], [17.1, 48.156], [17.1, 48.15]]] };

/** Drags the first corner of the boundary being edited by (dx, dy) pixels. */
async function dragCorner(page: import('@playwright/test').Page, dx: number, dy: number) {
  const corner = page.getByTestId('field-map').locator('.leaflet-marker-icon.marker-icon:not(.marker-icon-middle)').first();
  await expect(corner).toBeVisible();
  const c = (await corner.boundingBox())!;
  await page.mouse.move(c.x + c.width / 2, c.y + c.height / 2);
  await page.mouse.down();
  await page.mouse.move(c.x + c.width / 2 + dx, c.y + c.height / 2 + dy, { steps: 8 });
  await page.mouse.up();
}

test('the panel’s × during a boundary edit or a cut ends it first: the map is back to itself, not stuck in the edit', async ({ page }) => {
  await registerCompany(page.request);
  const id = await createField(page.request, { name: 'Bend', geometry: BEND });
  const stored = (await (await page.request.get(`/api/fields/${id}`)).json()).geometry;
  await page.goto(`/map?field=${id}`);
  const map = page.getByTestId('field-map');
  const panel = page.getByTestId('field-panel');
  const close = panel.getByRole('button', { name: 'Close' });
  const outline = async () => (await map.locator(`path.fm-field-${id}`).boundingBox())!;
  const drawn = await outline();

  await page.getByRole('button', { name: 'Edit boundary' }).click();
  await dragCorner(page, -60, -40);
  await close.click();
  await expect(panel).toHaveCount(0);
  await expect(map.locator('.leaflet-marker-icon.marker-icon')).toHaveCount(0);
  await expect(page.getByTestId('draw-hint')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Draw a field' })).toBeVisible();
  await expect(page.getByLabel(en.map.find_field)).toBeVisible();
  // The corner moved (60 px) is put back: nothing was saved. (The outline is thinner unselected.)
  const back = await outline();
  for (const k of ['x', 'y', 'width', 'height'] as const) expect(Math.abs(back[k] - drawn[k]), k).toBeLessThan(4);
  expect((await (await page.request.get(`/api/fields/${id}`)).json()).geometry).toEqual(stored);

  // A tap on the field is heard again, and a cut begun is ended by × too.
  await map.locator(`path.fm-field-${id}`).click();
  await expect(panel).toContainText('Bend');
  await page.getByRole('button', { name: 'Split with a line' }).click();
  await expect(page.getByTestId('draw-hint')).toBeVisible();
  await close.click();
  await expect(panel).toHaveCount(0);
  await expect(page.getByTestId('draw-hint')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Draw a field' })).toBeVisible();
  await map.locator(`path.fm-field-${id}`).click();
  await expect(panel).toContainText('Bend');
});

test('a boundary save that fails keeps the edit and the corners moved, for another Save', async ({ page }) => {
  await registerCompany(page.request);
  const id = await createField(page.request, { name: 'Bend', geometry: BEND });
  const before = (await (await page.request.get(`/api/fields/${id}`)).json()).area as number;
  await page.goto(`/map?field=${id}`);
  const map = page.getByTestId('field-map');
  await expect(page.getByTestId('field-panel')).toContainText('Bend');
  await page.getByRole('button', { name: 'Edit boundary' }).click();
  await dragCorner(page, -60, -40);
  const moved = await page.getByTestId('live-area').textContent();
  const save = page.getByRole('button', { name: 'Save boundary' });

  // Refused first (as a boundary crossing itself is), then no answer at all.
  const refusal = en.errors.geometry_self_intersection.replace('{lon}', '17.1').replace('{lat}', '48.15');
  let tries = 0;
  await page.route((url) => url.pathname === `/api/fields/${id}`, async (route) => {
    if (route.request().method() !== 'PUT') return route.continue();
    tries++;
    if (tries === 1) await route.fulfill({ status: 422, contentType: 'application/json', body: JSON.stringify({ success: false, error: refusal }) });
    else await route.abort('internetdisconnected');
  });
  for (const message of [refusal, en.common.network_error]) {
    await save.click();
    await expect(page.getByRole('alert').filter({ hasText: message })).toBeVisible();
    await expect(save).toBeVisible();
    await expect(page.getByTestId('live-area')).toHaveText(moved!);
    await expect(map.locator('.leaflet-marker-icon.marker-icon:not(.marker-icon-middle)')).toHaveCount(4);
  }
  expect(tries).toBe(2);
  // Still editable: the corner is moved again, and this Save goes through.
  await dragCorner(page, -20, 0);
  await page.unrouteAll();
  await save.click();
  await expect(page.getByRole('status').filter({ hasText: 'Boundary saved' })).toBeVisible();
  await expect(map.locator('.leaflet-marker-icon.marker-icon')).toHaveCount(0);
  const after = (await (await page.request.get(`/api/fields/${id}`)).json()).area as number;
  expect(after).not.toBeCloseTo(before, 2);
});

test('from the keyboard, Edit boundary hands the focus to Save, and the end of the edit hands it back', async ({ page }) => {
  await registerCompany(page.request);
  const id = await createField(page.request, { name: 'Bend', geometry: BEND });
  await page.goto(`/map?field=${id}`);
  await expect(page.getByTestId('field-panel')).toContainText('Bend');
  const edit = page.getByRole('button', { name: 'Edit boundary' });
  await edit.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: 'Save boundary' })).toBeFocused();
  // Escape cancels the edit; Cancel pressed does so too.
  await page.keyboard.press('Escape');
  await expect(edit).toBeFocused();
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Cancel' }).focus();
  await page.keyboard.press('Enter');
  await expect(edit).toBeFocused();
});

test('a map whose fields cannot be read says so instead of loading for ever, and Try again reads them', async ({ page }) => {
  await registerCompany(page.request);
  await createField(page.request, { name: 'Unreachable' });
  const list = (url: URL) => url.pathname === '/api/fields';
  await page.route(list, (route) => route.abort('internetdisconnected'));
  await page.goto('/map');
  const alert = page.getByRole('main').getByRole('alert');
  await expect(alert).toHaveText(en.common.network_error);
  await expect(page.getByTestId('map-loading')).toHaveCount(0);
  await page.unroute(list);
  await page.getByRole('button', { name: en.common.try_again }).click();
  await expect(page.getByTestId('map-summary')).toHaveText(/^1 field/);
  await expect(alert).toHaveCount(0);
});

test('a viewer’s map hint offers selecting fields to total their area, not merging them', async ({ page }) => {
  await registerCompany(page.request);
  await createField(page.request, { name: 'Seen' });
  await page.goto('/map');
  await expect(page.getByTestId('map-hint')).toHaveText(en.map.click_hint);
  const viewer = await addUser(page.request, 'viewer');
  await page.context().clearCookies();
  await signIn(page, viewer.email, viewer.password);
  await expect(page.getByTestId('map-hint')).toHaveText(en.map.click_hint_no_merge);
  await expect(page.getByTestId('map-hint')).not.toContainText(/merge/i);
});
