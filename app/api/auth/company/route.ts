import { companyView, deleteCompany, updateCompany } from '@/lib/auth/accounts';
import { companyBody, deleteCompanyBody } from '@/lib/auth/schemas';
import { clearedSessionCookie } from '@/lib/auth/session';
import { ok } from '@/lib/http/respond';
import { clientIp, isSecureRequest, route } from '@/lib/http/route';
import { readJson } from '@/lib/http/validate';
import { translate } from '@/lib/i18n/messages';

export const GET = route('GET /api/auth/company', async ({ db, user }) => {
  const company = await db.company.findUniqueOrThrow({ where: { id: user.companyId } });
  const users = await db.user.findMany({ orderBy: { id: 'asc' } });
  return ok({ company: companyView(company, users) });
});

export const PUT = route('PUT /api/auth/company', async ({ req, db, user, locale }) => {
  const body = await readJson(req, companyBody);
  const company = await updateCompany(db, user.companyId, body);
  const users = await db.user.findMany({ orderBy: { id: 'asc' } });
  return ok({ message: translate(locale, 'auth.company_updated'), company: companyView(company, users) });
});

export const DELETE = route('DELETE /api/auth/company', async ({ req, db, sessionDb, user, locale }) => {
  const body = await readJson(req, deleteCompanyBody);
  await deleteCompany(db, sessionDb, user, body.password, clientIp(req));
  return ok({ message: translate(locale, 'auth.company_deleted') }, { headers: { 'Set-Cookie': clearedSessionCookie(isSecureRequest(req)) } });
});
