import { getLocale, getTranslations } from 'next-intl/server';
import { CompanySettings, CompanyUsers, DeleteCompany } from '@/components/company/company-admin';
import { companyUser } from '@/lib/auth/accounts';
import { parseSettings } from '@/lib/auth/company-settings';
import { isRole } from '@/lib/auth/roles';
import { zoneRatesText } from '@/lib/exports/load';
import { SERVER_TIME_ZONE, isTimeZone, timeZoneChoices, timeZoneLabel } from '@/lib/i18n/time-zone';
import { can } from '@/lib/auth/abilities';
import { requireUser } from '@/lib/ui/server';

export async function generateMetadata() {
  const t = await getTranslations('nav');
  return { title: t('company') };
}

export default async function CompanyPage() {
  const { user, db } = await requireUser('admin');
  const [users, company, t, locale] = await Promise.all([
    db.user.findMany({ orderBy: { id: 'asc' } }),
    db.company.findUniqueOrThrow({ where: { id: user.companyId } }),
    getTranslations(),
    getLocale(),
  ]);
  const settings = parseSettings(company.settingsJson) as { zone_rates?: Record<string, number>; time_zone?: unknown };
  return (
    <section className="space-y-4">
      <h1 className="text-2xl font-semibold">
        {t('nav.company')}: {company.name}
      </h1>
      <CompanyUsers users={users.map(companyUser)} myId={user.id} myRole={isRole(user.role) ? user.role : 'viewer'} />
      {/* Not keyed on the stored values: the form keeps its state, and its "saved", across the refresh after a save. */}
      <CompanySettings
        name={company.name}
        zoneRates={zoneRatesText(settings)}
        timeZone={isTimeZone(settings.time_zone) ? settings.time_zone : ''}
        serverTimeZone={timeZoneLabel(SERVER_TIME_ZONE, locale)}
        timeZones={timeZoneChoices(locale)}
      />
      {can(user.role, 'deleteCompany') && <DeleteCompany />}
    </section>
  );
}
