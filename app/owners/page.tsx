import { getTranslations } from 'next-intl/server';
import { OwnersManager } from '@/components/owners/owners-manager';
import { listOwners } from '@/lib/owners/owners';
import { can } from '@/lib/auth/abilities';
import { requireUser } from '@/lib/ui/server';

export async function generateMetadata() {
  const t = await getTranslations('nav');
  return { title: t('owners') };
}

export default async function OwnersPage() {
  const { user, db } = await requireUser();
  const [owners, t] = await Promise.all([listOwners(db), getTranslations('nav')]);
  return (
    <section className="space-y-4">
      <h1 className="text-2xl font-semibold">{t('owners')}</h1>
      <OwnersManager owners={owners} canEdit={can(user.role, 'edit')} canDelete={can(user.role, 'deleteFields')} />
    </section>
  );
}
