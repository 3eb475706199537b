import { join } from 'node:path';
import { config } from '../config';

/** Output folder of one task inside the company's part of the data folder. */
export const taskWorkDir = (companyId: number, taskId: string) => join(config().dataDir, 'companies', String(companyId), 'tasks', taskId);
