// Where a field's files (scan rasters, previews, mosaics) live in the data folder.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { config } from '../config';

export const fieldDataDir = (companyId: number, fieldId: number) =>
  join(config().dataDir, 'companies', String(companyId), 'fields', String(fieldId));

/** A drone survey's photos, one folder per upload (its task's id). */
export const dronePhotosDir = (companyId: number, fieldId: number, taskId: string) => join(fieldDataDir(companyId, fieldId), 'drone', taskId);

export const removeFieldFiles = (companyId: number, fieldId: number) => rm(fieldDataDir(companyId, fieldId), { recursive: true, force: true });
