// What a .prj may hold (lib/geo/prj.ts): a coordinate system in WKT, a bare EPSG code or a PROJ
// string, read as UTF-8 or as UTF-16 with its byte-order mark. Anything else cannot be read; a system
// that needs a grid file or has an impossible parameter is refused before a feature is read, naming
// the file, while the systems real files use, and the odd legitimate ones, still pass.
import { describe, expect, it } from 'vitest';
import { crsFromPrj, crsFromPrjFile, prjText, toWgs84 } from '@/lib/geo/prj';

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as { key: string; params: Record<string, unknown> };
  }
  throw new Error('expected a refusal');
};

describe('reading a .prj', () => {
  it('takes WKT, EPSG codes and PROJ strings; not empty, binary, oversized or other text', () => {
    expect(prjText(Buffer.from('  EPSG:4326\n'))).toBe('EPSG:4326');
    expect(prjText(Buffer.from('\uFEFFPROJCS["x",GEOGCS["y"]]'))).toBe('PROJCS["x",GEOGCS["y"]]');
    expect(prjText(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('GEOGCS["WGS 84"]', 'utf16le').swap16()]))).toBe('GEOGCS["WGS 84"]');
    expect(prjText(Buffer.from('+proj=longlat +datum=WGS84'))).toBe('+proj=longlat +datum=WGS84');
    for (const bytes of [Buffer.alloc(0), Buffer.from('   '), Buffer.from([0xc3, 0x28, 0xa0, 0xa1]), Buffer.from('GEOGCS["x\u0000"]'), Buffer.from('hello'), Buffer.from(`GEOGCS["${'x'.repeat(70_000)}"]`)]) {
      expect(prjText(bytes)).toBeUndefined();
    }
    expect(refusal(() => crsFromPrjFile(Buffer.from('nonsense'), 'parcels.prj'))).toMatchObject({ key: 'shp_prj_unreadable', params: { file: 'parcels.prj' } });
  });

  it('reads a .prj ArcMap wrote in a Russian system\'s code page (Windows-1251), its name in Cyrillic', () => {
    // "МСК" in Windows-1251: not UTF-8, and the only bytes above ASCII in the file.
    const bytes = Buffer.concat([Buffer.from('GEOGCS["'), Buffer.from([0xcc, 0xd1, 0xca]), Buffer.from('",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]')]);
    expect(prjText(bytes)).toMatch(/^GEOGCS\["МСК",/);
    const [lon, lat] = toWgs84(crsFromPrjFile(bytes, 'parcels.prj'))([17, 48]);
    expect([lon, lat].map((v) => v.toFixed(9))).toEqual(['17.000000000', '48.000000000']);
  });
});

describe('systems that cannot be used', () => {
  it('one that needs a grid file is refused naming the grid; Web Mercator’s `@null` grid is none', () => {
    expect(refusal(() => crsFromPrj('+proj=longlat +ellps=clrk66 +nadgrids=@conus,ntv1_can.dat', 'a.prj'))).toMatchObject({ key: 'shp_prj_grid', params: { file: 'a.prj', grid: '@conus' } });
    expect(refusal(() => crsFromPrj('EPSG:27700', 'a.prj'))).toMatchObject({ key: 'shp_prj_grid', params: { grid: 'OSTN15_NTv2_OSGBtoETRS.gsb' } });
    expect(crsFromPrj('EPSG:3857').proj4).toContain('+nadgrids=@null');
  });

  it('impossible parameters are named; a south-oriented system’s scale factor of -1 is not one of them', () => {
    expect(refusal(() => crsFromPrj('+proj=tmerc +lon_0=15 +k=0 +x_0=500000 +datum=WGS84', 'b.prj'))).toMatchObject({ key: 'shp_prj_bad_parameter', params: { file: 'b.prj', parameter: 'k', value: '0' } });
    expect(refusal(() => crsFromPrj('+proj=tmerc +lat_0=91 +lon_0=15 +datum=WGS84', 'b.prj'))).toMatchObject({ params: { parameter: 'lat_0', value: '91' } });
    expect(refusal(() => crsFromPrj('+proj=tmerc +lon_0=15 +a=-5 +b=3', 'b.prj'))).toMatchObject({ params: { parameter: 'a', value: '-5' } });
    expect(refusal(() => crsFromPrj('+proj=longlat +ellps=bessel +towgs84=1e308,0,0', 'b.prj'))).toMatchObject({ params: { parameter: 'towgs84' } });
    expect(refusal(() => crsFromPrj('GEOGCS["x",DATUM["y",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0]]', 'b.prj'))).toMatchObject({ params: { parameter: 'UNIT degree', value: '0' } });
    const capeLo15 = crsFromPrj('+proj=tmerc +lat_0=0 +lon_0=15 +k=-1 +x_0=0 +y_0=0 +a=6378249.145 +rf=293.4663077 +units=m +no_defs');
    const [lon, lat] = toWgs84(capeLo15)([53_860, 2_535_008]);
    expect(lon).toBeCloseTo(14.475, 3);
    expect(lat).toBeCloseTo(-22.915, 3);
  });

  it('a projection proj4 does not know is not recognised, by its name', () => {
    expect(refusal(() => crsFromPrj('EPSG:54090'))).toMatchObject({ key: 'shp_bad_prj', params: { detail: 'EPSG:54090' } });
  });
});
