// ISOXML (ISO 11783-10, version 4.3) task data for tractor terminals and farm software: customer, farm,
// the partfield with its boundary, and a prescription task with one treatment zone per zone (or a type-2
// grid). The layout follows FarmDoc's prescription exports: default, position-lost and out-of-field zones
// first, rates as DDI 6 in mg/m² with a kg/ha value presentation.
import { difference, feature, featureCollection } from '@turf/turf';
import type { MultiPolygon, Polygon, Position } from 'geojson';
import JSZip from 'jszip';
import {
  ExtendedPartfield,
  ExtendedPolygon,
  ExtendedTask,
  ISOXMLManager,
  PolygonPolygonTypeEnum,
  ProductProductTypeEnum,
  TAGS,
  TaskTaskStatusEnum,
  type Entity,
  type ISOXMLReference,
  type ProcessDataVariable,
  type TreatmentZone,
} from 'isoxml';
import { geometryAreaM2 } from '@/lib/geo/area';
import { unprocessable } from '@/lib/errors';
import type { ExportField, ExportZone, Rates } from './types';

export interface IsoxmlOptions {
  /** kg/ha per zone class. */
  rates: Rates;
  productName: string;
  /** Write the prescription as a type-2 grid instead of treatment-zone polygons. */
  grid?: boolean;
  /** kg/ha where no zone lies (water, no index data); the zones' area-weighted mean when null or left out. */
  unzonedRate?: number | null;
  customer: string;
  farm: string;
}

/** DDI 0006: Setpoint Mass Per Area Application Rate, in mg/m². */
export const DDI_SETPOINT_MASS_PER_AREA = '0006';
/** 1 kg/ha = 10^6 mg / 10^4 m². */
export const kgHaToMgM2 = (kgHa: number) => Math.round(kgHa * 100);
/** Coordinates are written with 9 decimals (about 0.1 mm), as the standard's PNT allows. */
const round9 = (x: number) => Math.round(x * 1e9) / 1e9;

// Zone codes as FarmDoc writes them; zones follow from FIRST_ZONE_CODE on.
const TZN_DEFAULT = 0;
const TZN_POSITION_LOST = 1;
const TZN_OUT_OF_FIELD = 2;
const FIRST_ZONE_CODE = 3;

/** Designators are at most 32 characters in the schema (of the text, before it is escaped as XML). */
const designator = (s: string) => [...s.trim()].slice(0, 32).join('').trimEnd() || '-';

function roundGeometry<G extends Polygon | MultiPolygon>(g: G): G {
  const ring = (r: Position[]) => r.map((p) => [round9(p[0]!), round9(p[1]!)]);
  return (g.type === 'Polygon'
    ? { type: 'Polygon', coordinates: g.coordinates.map(ring) }
    : { type: 'MultiPolygon', coordinates: g.coordinates.map((poly) => poly.map(ring)) }) as G;
}

/** The rate of every zone in kg/ha; zone classes without one are an error the user can fix (422). */
function zoneRates(zones: ExportZone[], rates: Rates): number[] {
  const valid = (r: number | undefined): r is number => r !== undefined && Number.isFinite(r) && r >= 0;
  const missing = [...new Set(zones.filter((z) => !valid(rates[z.classIndex])).map((z) => z.classIndex))];
  if (missing.length) throw unprocessable('export_rates_missing', { classes: missing.sort((a, b) => a - b).join(', ') });
  return zones.map((z) => rates[z.classIndex]!);
}

export async function buildIsoxml(field: Pick<ExportField, 'name' | 'geometry'>, zones: ExportZone[], opts: IsoxmlOptions): Promise<Buffer> {
  const w = taskDataWriter();
  const refs = addPartfield(w, field, opts);
  if (zones.length === 0) return packTaskData(await w.m.saveISOXML());

  const rates = prescriptionRates(zones, opts);
  const pdv = addProduct(w, opts.productName);
  const task = plannedTask(w, pdv, refs, designator(`${opts.productName} | ${field.name}`), rates);
  if (opts.grid) addGrid(task, field.geometry, zones, rates, pdv);
  else task.attributes.TreatmentZone!.push(...zones.map((z, i) => treatmentZone(w, pdv, FIRST_ZONE_CODE + i, z.name, rates.kgHa[i]!, z.geometry)));
  w.ref(task);
  w.m.rootElement.attributes.Task = [task];
  return packTaskData(await w.m.saveISOXML());
}

/** The manager of one file, with the two calls every part of the file makes of it. */
interface TaskDataWriter {
  m: ISOXMLManager;
  create: <T extends Entity>(tag: TAGS, attrs: object) => T;
  ref: (e: Entity) => ISOXMLReference;
}

/** A rate as the file writes it: a process data variable of `kg` kg/ha of the task's product. */
type RateVariable = (kg: number) => ProcessDataVariable;

/** The references a task names: its customer, farm and partfield. */
interface PartfieldRefs {
  customerRef: ISOXMLReference;
  farmRef: ISOXMLReference;
  partfieldRef: ISOXMLReference;
}

/** The prescription's rates in kg/ha: every zone's, where the position is lost, and where no zone lies. */
interface PrescriptionRates {
  kgHa: number[];
  meanKgHa: number;
  unzonedKgHa: number;
}

function taskDataWriter(): TaskDataWriter {
  const m = new ISOXMLManager({ version: 4, fmisTitle: 'Fieldmap', fmisVersion: '1.0' });
  // The library writes version 4.2 for every v4 file; what we write is valid 4.3, which terminals expect.
  const rootToXML = m.rootElement.toXML.bind(m.rootElement);
  m.rootElement.toXML = () => {
    const xml = rootToXML();
    xml._attributes = { ...xml._attributes, VersionMinor: '3' };
    return xml;
  };
  return {
    m,
    create: <T extends Entity>(tag: TAGS, attrs: object) => m.createEntityFromAttributes(tag, attrs as never) as T,
    ref: (e: Entity) => m.registerEntity(e),
  };
}

/** The customer, the farm and the field's partfield with its boundary, put in the file. */
function addPartfield({ m, create, ref }: TaskDataWriter, field: Pick<ExportField, 'name' | 'geometry'>, opts: IsoxmlOptions): PartfieldRefs {
  const customer = create(TAGS.Customer, { CustomerLastName: designator(opts.customer) });
  const customerRef = ref(customer);
  const farm = create(TAGS.Farm, { FarmDesignator: designator(opts.farm), CustomerIdRef: customerRef });
  const farmRef = ref(farm);

  const geometry = roundGeometry(field.geometry);
  const partfield = create<ExtendedPartfield>(TAGS.Partfield, {
    PartfieldDesignator: designator(field.name),
    PartfieldArea: 0,
    CustomerIdRef: customerRef,
    FarmIdRef: farmRef,
  });
  partfield.boundaryFromGeoJSON(geometry, m);
  // The library measures on a sphere; the standard wants m², which we measure on the ellipsoid.
  partfield.attributes.PartfieldArea = Math.round(geometryAreaM2(geometry));
  const partfieldRef = ref(partfield);

  const root = m.rootElement.attributes;
  root.Customer = [customer as never];
  root.Farm = [farm as never];
  root.Partfield = [partfield];
  return { customerRef, farmRef, partfieldRef };
}

function prescriptionRates(zones: ExportZone[], opts: IsoxmlOptions): PrescriptionRates {
  const kgHa = zoneRates(zones, opts.rates);
  const totalArea = zones.reduce((s, z) => s + z.areaHa, 0);
  // Where the position is lost the terminal applies the area-weighted mean rate; where the field has
  // no zone (water, no index data), the same unless the user set a rate for that ground.
  const meanKgHa = totalArea > 0 ? zones.reduce((s, z, i) => s + z.areaHa * kgHa[i]!, 0) / totalArea : kgHa[0]!;
  return { kgHa, meanKgHa, unzonedKgHa: opts.unzonedRate ?? meanKgHa };
}

/** The product and its kg/ha presentation, put in the file; gives the rates of that product. */
function addProduct({ m, create, ref }: TaskDataWriter, productName: string): RateVariable {
  const vpn = create(TAGS.ValuePresentation, { Offset: 0, Scale: 0.01, NumberOfDecimals: 1, UnitDesignator: 'kg/ha' });
  const vpnRef = ref(vpn);
  const product = create(TAGS.Product, {
    ProductDesignator: designator(productName),
    ProductType: ProductProductTypeEnum.SingleDefault,
    QuantityDDI: DDI_SETPOINT_MASS_PER_AREA,
  });
  const productRef = ref(product);
  m.rootElement.attributes.ValuePresentation = [vpn as never];
  m.rootElement.attributes.Product = [product as never];
  return (kg) =>
    create<ProcessDataVariable>(TAGS.ProcessDataVariable, {
      ProcessDataDDI: DDI_SETPOINT_MASS_PER_AREA,
      ProcessDataValue: kgHaToMgM2(kg),
      ProductIdRef: productRef,
      ValuePresentationIdRef: vpnRef,
    });
}

function treatmentZone(w: TaskDataWriter, pdv: RateVariable, code: number, name: string | undefined, kg: number, polygons?: Polygon | MultiPolygon): TreatmentZone {
  return w.create<TreatmentZone>(TAGS.TreatmentZone, {
    TreatmentZoneCode: code,
    ...(name && { TreatmentZoneDesignator: designator(name) }),
    ...(polygons && { PolygonTreatmentZoneonly: ExtendedPolygon.fromGeoJSON(roundGeometry(polygons), PolygonPolygonTypeEnum.TreatmentZone, w.m) }),
    ProcessDataVariable: [pdv(kg)],
  });
}

/** The planned task, with the default, position-lost and out-of-field zones (not yet registered). */
function plannedTask(w: TaskDataWriter, pdv: RateVariable, refs: PartfieldRefs, name: string, rates: PrescriptionRates): ExtendedTask {
  return w.create<ExtendedTask>(TAGS.Task, {
    TaskDesignator: name,
    CustomerIdRef: refs.customerRef,
    FarmIdRef: refs.farmRef,
    PartfieldIdRef: refs.partfieldRef,
    TaskStatus: TaskTaskStatusEnum.Planned,
    DefaultTreatmentZoneCode: TZN_DEFAULT,
    PositionLostTreatmentZoneCode: TZN_POSITION_LOST,
    OutOfFieldTreatmentZoneCode: TZN_OUT_OF_FIELD,
    TreatmentZone: [
      treatmentZone(w, pdv, TZN_DEFAULT, 'Default', rates.unzonedKgHa),
      treatmentZone(w, pdv, TZN_POSITION_LOST, 'PositionLost', rates.meanKgHa),
      treatmentZone(w, pdv, TZN_OUT_OF_FIELD, 'OutOfField', 0),
    ],
  });
}

/** The prescription as a type-2 grid of the task, instead of one treatment zone per zone. */
function addGrid(task: ExtendedTask, field: Polygon | MultiPolygon, zones: ExportZone[], rates: PrescriptionRates, pdv: RateVariable): void {
  const features = zones.map((z, i) => ({ type: 'Feature' as const, properties: { rate: kgHaToMgM2(rates.kgHa[i]!) }, geometry: roundGeometry(z.geometry) }));
  // Ground of the field that no zone covers (the raster gave it no value: water, no data) takes
  // the default zone's rate, as in the polygon variant; cells outside the field 0.
  const unzoned = unzonedPart(field, zones);
  if (unzoned) features.push({ type: 'Feature', properties: { rate: kgHaToMgM2(rates.unzonedKgHa) }, geometry: roundGeometry(unzoned) });
  task.addGridFromGeoJSON({ type: 'FeatureCollection', features } as never, [pdv(0)], ['rate']);
}

/** The field less its zones, or null when they cover it. */
function unzonedPart(field: Polygon | MultiPolygon, zones: ExportZone[]): Polygon | MultiPolygon | null {
  try {
    const rest = difference(featureCollection([feature(field), ...zones.map((z) => feature(z.geometry))]));
    return rest && geometryAreaM2(rest.geometry) >= 1 ? rest.geometry : null;
  } catch {
    return null; // the clipper gave up: the grid leaves that ground out of field, as before
  }
}

const TASKDATA_XML = 'TASKDATA/TASKDATA.XML';

/**
 * The library's ZIP made ready for a terminal:
 * - Attribute values are escaped twice: isoxml 1.11's own attribute processor escapes them and
 *   fast-xml-parser 4's builder escapes them again, so `Agro & Co` reached the terminal as
 *   `Agro &amp; Co` and a 32-character name could unescape past the schema's 32. Every `&` in the
 *   document is then the builder's, written for the library's `&`: undoing that one step leaves
 *   values escaped once (ISOXML has no text nodes; numbers have no `&`).
 * - Binary files get the upper-case `.BIN` the standard's 8.3 names use (the XML names them
 *   without their extension): file systems of some terminals tell case apart.
 * - Compressed: the library stores its ZIP uncompressed, and a 1,000 ha prescription's TASKDATA.XML
 *   is megabytes of text.
 */
async function packTaskData(zip: Uint8Array): Promise<Buffer> {
  const archive = await JSZip.loadAsync(zip);
  const out = new JSZip();
  for (const entry of Object.values(archive.files)) {
    if (entry.dir) continue;
    if (entry.name === TASKDATA_XML) out.file(entry.name, (await entry.async('string')).replaceAll('&amp;', '&'));
    else out.file(entry.name.replace(/\.bin$/i, '.BIN'), await entry.async('uint8array'));
  }
  return out.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 6 } });
}
