import { describe, expect, it } from 'vitest';
import { scopeArgs } from '@/lib/db/tenant';

describe('tenant scope', () => {
  it('adds the company to every read, count, update and delete filter', () => {
    for (const op of ['findUnique', 'findFirst', 'findMany', 'count', 'aggregate', 'groupBy', 'update', 'updateMany', 'delete', 'deleteMany']) {
      expect(scopeArgs('Field', op, { where: { id: 5 } }, 7)).toEqual({ where: { id: 5, companyId: 7 } });
    }
  });

  it('overrides a company id smuggled into the filter', () => {
    expect(scopeArgs('Owner', 'findMany', { where: { companyId: 99 } }, 7)).toEqual({ where: { companyId: 7 } });
  });

  it('stamps creates, including createMany rows', () => {
    expect(scopeArgs('Field', 'create', { data: { name: 'a', companyId: 99 } }, 7)).toEqual({ data: { name: 'a', companyId: 7 } });
    expect(scopeArgs('Zone', 'createMany', { data: [{ a: 1 }, { a: 2 }] }, 7)).toEqual({ data: [{ a: 1, companyId: 7 }, { a: 2, companyId: 7 }] });
  });

  it('confines the company table to the own company by id', () => {
    expect(scopeArgs('Company', 'findUnique', { where: { id: 3 } }, 7)).toEqual({ where: { id: 7 } });
  });

  it('leaves non-tenant models alone and refuses operations it does not know', () => {
    expect(scopeArgs('Session', 'findMany', { where: { id: 1 } }, 7)).toEqual({ where: { id: 1 } });
    expect(() => scopeArgs('Field', 'someNewOperation', {}, 7)).toThrow(/unhandled/);
  });
});
