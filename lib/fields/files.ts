// Where a field's files (scan rasters, previews, mosaics) live in the data folder.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { config } from '../config';

export const fieldDataDir = (companyId: number, fieldId: number) =>
  join(config().dataDir, 'companies', String(companyId), 'fields', String(fieldId));

export const removeFieldFiles = (companyId: number, fieldId: number) => rm(fieldDataDir(companyId, fieldId), { recursive: true, force: true });
