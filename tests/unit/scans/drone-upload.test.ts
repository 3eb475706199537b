// The `data` part of POST /api/drone/upload (spec 4.7): field_id absent or "auto" means "find it from
// the photos"; crop_type "auto" or none means "classify" and names no crop (null or absent); anything
// else is refused with the field named.
import { describe, expect, it } from 'vitest';
import { parseDroneData } from '@/lib/scans/drone-survey';
import { AppError } from '@/lib/errors';

const keyOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? `${e.kind}:${e.key}` : 'not-app-error';
  }
  return 'ok';
};

describe('parseDroneData', () => {
  it.each([
    [{}, { field_id: undefined, crop_type: undefined }],
    [{ data: '' }, { field_id: undefined, crop_type: undefined }],
    [{ data: '{"field_id":"auto","crop_type":"auto"}' }, { field_id: 'auto', crop_type: null }],
    [{ data: '{"field_id":null,"crop_type":" AUTO "}' }, { field_id: null, crop_type: null }],
    [{ data: '{"field_id":12,"crop_type":"Wheat"}' }, { field_id: 12, crop_type: 'wheat' }],
    [{ data: '{"field_id":" 12 ","crop_type":" corn "}' }, { field_id: 12, crop_type: 'corn' }],
    [{ data: '{"field_id":" AUTO "}' }, { field_id: 'auto', crop_type: undefined }],
    // Without a `data` part, the two values may come as parts of their own.
    [{ field_id: '7', crop_type: 'barley' }, { field_id: 7, crop_type: 'barley' }],
    // resolution_cm coarsens the mosaic (docs/drone.md), in JSON as a number or as a part of its own.
    [{ data: '{"resolution_cm":5}' }, { field_id: undefined, crop_type: undefined, resolution_cm: 5 }],
    [{ resolution_cm: ' 2.5 ' }, { field_id: undefined, crop_type: undefined, resolution_cm: 2.5 }],
    [{ data: '{"resolution_cm":1}' }, { field_id: undefined, crop_type: undefined, resolution_cm: 1 }],
    [{ data: '{"resolution_cm":50}' }, { field_id: undefined, crop_type: undefined, resolution_cm: 50 }],
  ])('%j -> %j', (parts, expected) => {
    expect(parseDroneData(parts as Record<string, string>)).toEqual(expected);
  });

  it.each([
    [{ data: '{field_id: 1' }, 'bad_request:invalid_json_part'],
    [{ data: '[1, 2]' }, 'unprocessable:validation'],
    [{ data: '{"field_id":"north"}' }, 'unprocessable:validation'],
    [{ data: '{"field_id":-3}' }, 'unprocessable:validation'],
    [{ data: '{"field_id":1.5}' }, 'unprocessable:validation'],
    [{ data: '{"crop_type":"DROP TABLE"}' }, 'unprocessable:validation'],
    [{ data: '{"crop_type":"corn\\u0000"}' }, 'unprocessable:text_nul'],
    [{ data: '{"resolution_cm":0.5}' }, 'unprocessable:validation'],
    [{ data: '{"resolution_cm":51}' }, 'unprocessable:validation'],
    [{ data: '{"resolution_cm":"fine"}' }, 'unprocessable:validation'],
    [{ resolution_cm: '-2' }, 'unprocessable:validation'],
  ])('%j is refused: %s', (parts, key) => {
    expect(keyOf(() => parseDroneData(parts))).toBe(key);
  });
});
