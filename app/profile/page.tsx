import { getFormatter, getTranslations } from 'next-intl/server';
import { PasswordForm, ProfileForm } from '@/components/account/profile-form';
import { Card } from '@/components/ui/form';
import { requireUser } from '@/lib/ui/server';

export async function generateMetadata() {
  const t = await getTranslations('profile');
  return { title: t('title') };
}

export default async function ProfilePage() {
  const { user } = await requireUser();
  const [t, format] = await Promise.all([getTranslations(), getFormatter()]);
  return (
    <section className="space-y-4">
      <h1 className="text-2xl font-semibold">{t('profile.title')}</h1>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-stone-600">{t('auth.email')}</dt>
        <dd>{user.email}</dd>
        <dt className="text-stone-600">{t('account.company')}</dt>
        <dd>{user.company.name}</dd>
        <dt className="text-stone-600">{t('account.role')}</dt>
        <dd data-testid="profile-role">{t(`roles.${user.role}`)}</dd>
        {user.lastLogin && (
          <>
            <dt className="text-stone-600">{t('account.last_login')}</dt>
            <dd>{format.dateTime(user.lastLogin, { dateStyle: 'medium', timeStyle: 'short' })}</dd>
          </>
        )}
      </dl>
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Card title={t('account.personal')}>
          <ProfileForm initial={{ first_name: user.firstName ?? '', last_name: user.lastName ?? '', language: user.language }} />
        </Card>
        <Card title={t('account.change_password')}>
          <PasswordForm />
        </Card>
      </div>
    </section>
  );
}
