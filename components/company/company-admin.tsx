'use client';
import { useRouter } from 'next/navigation';
import { useFormatter, useLocale, useTranslations } from 'next-intl';
import { useState } from 'react';
import { personName } from '@/lib/auth/person-name';
import { ROLES, ROLE_LEVEL, type Role } from '@/lib/auth/roles';
import { LOCALES } from '@/lib/i18n/locales';
import { api } from '@/lib/ui/api';
import { ConfirmButton } from '../ui/confirm-button';
import { Button, Card, ErrorMessage, Select, SuccessMessage, TextInput, inputClass } from '../ui/form';
import { SubmitButton } from '../ui/submit-button';
import { Table, Th } from '../ui/table';
import { Form } from '../ui/validation-messages';

export interface CompanyUserRow {
  id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role: string;
  language: string;
  is_active: boolean;
  last_login: string | null;
}

function useAction() {
  const t = useTranslations();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function run(call: () => Promise<{ ok: boolean; error?: string | null }>, success: string) {
    setBusy(true);
    setError(null);
    setNotice(null);
    const res = await call();
    setBusy(false);
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return false;
    }
    setNotice(success);
    router.refresh();
    return true;
  }
  return { error, notice, busy, run };
}

export function CompanyUsers({ users, myId, myRole }: { users: CompanyUserRow[]; myId: number; myRole: Role }) {
  const t = useTranslations();
  const { error, notice, busy, run } = useAction();
  const assignable = ROLES.filter((r) => ROLE_LEVEL[r] <= ROLE_LEVEL[myRole]);

  return (
    <Card title={t('company.users')}>
      <ErrorMessage>{error}</ErrorMessage>
      <SuccessMessage>{notice}</SuccessMessage>
      <Table
        testId="users-table"
        head={
          <>
            <Th>{t('company.user')}</Th>
            <Th>{t('account.role')}</Th>
            <Th className="hidden md:table-cell">{t('company.state')}</Th>
            <Th className="hidden md:table-cell">{t('account.last_login')}</Th>
            <Th>{t('common.actions')}</Th>
          </>
        }
      >
        {users.map((u) => (
          <CompanyUserTableRow key={u.id} user={u} editable={u.id !== myId && ROLE_LEVEL[u.role as Role] <= ROLE_LEVEL[myRole]} assignable={assignable} busy={busy} run={run} />
        ))}
      </Table>
      <AddUserForm assignable={assignable} />
    </Card>
  );
}

type RunAction = ReturnType<typeof useAction>['run'];

interface CompanyUserTableRowProps {
  user: CompanyUserRow;
  /** Whether this user may change the row's user: not themselves, nor anyone above their own role. */
  editable: boolean;
  assignable: readonly Role[];
  busy: boolean;
  run: RunAction;
}

function CompanyUserTableRow({ user: u, editable, assignable, busy, run }: CompanyUserTableRowProps) {
  const t = useTranslations();
  const format = useFormatter();
  const state = u.is_active ? t('company.active') : t('company.inactive');
  // As the profile page writes times.
  const lastLogin = u.last_login ? format.dateTime(new Date(u.last_login), 'moment') : '—';
  return (
    <tr className="border-t border-stone-200" data-testid={`user-row-${u.email}`}>
      <td className="px-2 py-1">
        <span className="block">{personName(u.first_name, u.last_name, u.email)}</span>
        <span className="block text-xs text-stone-600">{u.email}</span>
        {/* A phone has no room for the state and last sign-in columns: they go under the name. */}
        <span className="block text-xs text-stone-600 md:hidden">
          {state} · {t('account.last_login')}: {lastLogin}
        </span>
      </td>
      <td className="px-2 py-1">
        {editable ? (
          // Keyed by the saved role: once saved (or changed elsewhere) the choice starts from it again.
          <RoleChoice
            key={u.role}
            email={u.email}
            role={u.role as Role}
            assignable={assignable}
            busy={busy}
            onSave={(role) => run(() => api(`/api/auth/company/users/${u.id}`, { method: 'PUT', body: { role } }), t('auth.user_updated'))}
          />
        ) : (
          t(`roles.${u.role}`)
        )}
      </td>
      <td className="hidden px-2 py-1 md:table-cell">{state}</td>
      <td className="hidden px-2 py-1 md:table-cell">{lastLogin}</td>
      <td className="px-2 py-1">{editable && <UserActions user={u} busy={busy} run={run} />}</td>
    </tr>
  );
}

/** (De)activating and deleting a user. */
function UserActions({ user: u, busy, run }: { user: CompanyUserRow; busy: boolean; run: RunAction }) {
  const t = useTranslations();
  return (
    <span className="flex flex-wrap gap-2">
      {/* Each row's buttons name their user: a list of "Deactivate", "Delete" tells a screen reader nothing. */}
      <Button
        variant="secondary"
        busy={busy}
        aria-label={t(u.is_active ? 'company.deactivate_of' : 'company.activate_of', { user: u.email })}
        onClick={() => void run(() => api(`/api/auth/company/users/${u.id}`, { method: 'PUT', body: { is_active: !u.is_active } }), t('auth.user_updated'))}
      >
        {u.is_active ? t('company.deactivate') : t('company.activate')}
      </Button>
      <ConfirmButton
        label={t('common.delete')}
        name={t('company.delete_of', { user: u.email })}
        question={t('company.remove_confirm', { user: u.email })}
        onConfirm={async () => {
          await run(() => api(`/api/auth/company/users/${u.id}`, { method: 'DELETE' }), t('auth.user_deleted'));
        }}
      />
    </span>
  );
}

/**
 * A user's role, saved only by its Save button: a list changes its value on every arrow key, and one
 * ArrowDown on the focused list used to make a Viewer an Operator. Escape or Cancel puts the saved role back.
 */
function RoleChoice({ email, role, assignable, busy, onSave }: { email: string; role: Role; assignable: readonly Role[]; busy: boolean; onSave: (role: Role) => Promise<boolean> }) {
  const t = useTranslations();
  const [chosen, setChosen] = useState<Role>(role);
  const changed = chosen !== role;
  return (
    <span className="flex flex-wrap items-center gap-2">
      <select
        aria-label={t('company.role_of', { user: email })}
        className={`${inputClass} min-w-[9rem]`}
        value={chosen}
        disabled={busy}
        onChange={(e) => setChosen(e.target.value as Role)}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && changed) {
            e.preventDefault();
            setChosen(role);
          }
        }}
      >
        {assignable.map((r) => (
          <option key={r} value={r}>
            {t(`roles.${r}`)}
          </option>
        ))}
      </select>
      {changed && (
        <>
          <Button busy={busy} aria-label={t('company.save_role_of', { user: email, role: t(`roles.${chosen}`) })} onClick={() => void onSave(chosen)}>
            {t('common.save')}
          </Button>
          <Button variant="secondary" disabled={busy} aria-label={t('company.cancel_role_of', { user: email })} onClick={() => setChosen(role)}>
            {t('common.cancel')}
          </Button>
        </>
      )}
    </span>
  );
}

function AddUserForm({ assignable }: { assignable: readonly Role[] }) {
  const t = useTranslations();
  const { error, notice, busy, run } = useAction();
  return (
    <Form
      className="space-y-3 border-t border-stone-200 pt-3"
      aria-label={t('company.add_user')}
      onSubmit={async (e) => {
        e.preventDefault();
        const formEl = e.currentTarget;
        const body = newUserBody(new FormData(formEl));
        const ok = await run(() => api('/api/auth/company/users', { method: 'POST', body }), t('auth.user_created'));
        if (ok) formEl.reset();
      }}
    >
      <h3 className="font-semibold">{t('company.add_user')}</h3>
      <NewUserFields assignable={assignable} />
      <ErrorMessage>{error}</ErrorMessage>
      <SuccessMessage>{notice}</SuccessMessage>
      <SubmitButton busy={busy}>
        {t('company.add_user')}
      </SubmitButton>
    </Form>
  );
}

/** POST /api/auth/company/users's body from the form: names left empty are none, the password as typed. */
function newUserBody(f: FormData) {
  const v = (k: string) => String(f.get(k) ?? '').trim();
  return { email: v('email'), password: String(f.get('password') ?? ''), first_name: v('first_name') || undefined, last_name: v('last_name') || undefined, role: v('role'), language: v('language') };
}

function NewUserFields({ assignable }: { assignable: readonly Role[] }) {
  const t = useTranslations();
  const locale = useLocale();
  return (
    <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
      <TextInput label={t('auth.email')} name="email" type="email" required />
      <TextInput label={t('auth.password')} name="password" type="password" required minLength={8} autoComplete="new-password" hint={t('account.password_hint')} />
      <TextInput label={t('auth.first_name')} name="first_name" />
      <TextInput label={t('auth.last_name')} name="last_name" />
      <Select label={t('account.role')} name="role" defaultValue="operator">
        {assignable.map((r) => (
          <option key={r} value={r}>
            {t(`roles.${r}`)}
          </option>
        ))}
      </Select>
      <Select label={t('settings.language')} name="language" defaultValue={locale}>
        {LOCALES.map((l) => (
          <option key={l} value={l}>
            {t(`languages.${l}`)}
          </option>
        ))}
      </Select>
    </div>
  );
}

/**
 * The company's name, default zone rates and time zone. `timeZone` is '' for the server's own
 * (`serverTimeZone`, its label); `timeZones` are those the server knows, labelled in the page's
 * language by the server (lib/i18n/time-zone.ts `timeZoneChoices`), so that the browser's own zone
 * data cannot make its render differ from the server's.
 */
export function CompanySettings({ name, zoneRates, timeZone, serverTimeZone, timeZones }: { name: string; zoneRates: string; timeZone: string; serverTimeZone: string; timeZones: readonly { id: string; label: string }[] }) {
  const t = useTranslations();
  const { error, notice, busy, run } = useAction();
  const [values, setValues] = useState({ name, zoneRates, timeZone });
  return (
    <Card title={t('company.settings')}>
      <Form
        className="space-y-3"
        onSubmit={async (e) => {
          e.preventDefault();
          const rates: Record<string, number> = {};
          for (const pair of values.zoneRates.split(',').map((s) => s.trim()).filter(Boolean)) {
            const m = /^(\d+)\s*:\s*(\d+(?:\.\d+)?)$/.exec(pair);
            if (!m) {
              await run(async () => ({ ok: false, error: t('errors.export_rates_format') }), '');
              return;
            }
            rates[m[1]!] = Number(m[2]);
          }
          const settings = { zone_rates: rates, time_zone: values.timeZone || null };
          await run(() => api('/api/auth/company', { method: 'PUT', body: { name: values.name.trim(), settings } }), t('auth.company_updated'));
        }}
      >
        <TextInput label={t('auth.company_name')} value={values.name} onChange={(e) => setValues({ ...values, name: e.target.value })} required maxLength={255} />
        <TextInput label={t('company.zone_rates')} value={values.zoneRates} onChange={(e) => setValues({ ...values, zoneRates: e.target.value })} placeholder="1:120,2:140,3:160" hint={t('company.zone_rates_hint')} />
        <Select label={t('company.time_zone')} value={values.timeZone} onChange={(e) => setValues({ ...values, timeZone: e.target.value })}>
          <option value="">{t('company.time_zone_server', { zone: serverTimeZone })}</option>
          {timeZones.map((z) => (
            <option key={z.id} value={z.id}>
              {z.label}
            </option>
          ))}
        </Select>
        <ErrorMessage>{error}</ErrorMessage>
        <SuccessMessage>{notice}</SuccessMessage>
        <SubmitButton busy={busy}>
          {t('common.save')}
        </SubmitButton>
      </Form>
    </Card>
  );
}

export function DeleteCompany() {
  const t = useTranslations();
  const router = useRouter();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <Card title={t('company.delete_title')}>
      <p className="text-sm text-stone-700">{t('company.delete_warning')}</p>
      <TextInput label={t('profile.current_password')} type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="current-password" />
      <ErrorMessage>{error}</ErrorMessage>
      <ConfirmButton
        label={t('company.delete_company')}
        question={t('company.delete_confirm')}
        disabled={!password}
        onConfirm={async () => {
          const res = await api('/api/auth/company', { method: 'DELETE', body: { password } });
          if (!res.ok) {
            setError(res.error ?? t('common.network_error'));
            return;
          }
          router.replace('/');
          router.refresh();
        }}
      />
    </Card>
  );
}
