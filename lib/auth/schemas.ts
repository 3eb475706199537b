// Request bodies of the account endpoints.
import { z } from 'zod';
import { MAX_RATE_KG_HA } from '../exports/types';
import { LOCALES } from '../i18n/locales';
import { isTimeZone } from '../i18n/time-zone';
import { SINGLE_LINE, singleLine } from '../http/single-line';
import { ROLES } from './roles';

const email = z.string().trim().toLowerCase().max(255).pipe(z.email());
// Spaces count in a passphrase, but eight of them and nothing else is no password.
const password = z.string().min(8).max(200).refine((v) => v.trim().length > 0, { params: { key: 'password_blank' } });
// A name left empty is no name (null), as one never given.
const name = z
  .string()
  .trim()
  .max(255)
  .refine(...SINGLE_LINE)
  .transform((v) => v || null);
const language = z.enum(LOCALES);

export const registerBody = z.object({
  email,
  password,
  company_name: singleLine(),
  first_name: name.optional(),
  last_name: name.optional(),
  language: language.optional(),
  // The new company's time zone: the registration form sends the browser's, and one the server does
  // not know is no reason to refuse a registration (the company then has the server's).
  time_zone: z
    .string()
    .max(64)
    .optional()
    .transform((v) => (isTimeZone(v) ? v : undefined)),
});

export const loginBody = z.object({
  email: z.string().trim().toLowerCase().min(1).max(255),
  password: z.string().min(1).max(200),
  remember: z.boolean().optional().default(false),
});

export const profileBody = z
  .object({
    first_name: name.nullable().optional(),
    last_name: name.nullable().optional(),
    language: language.optional(),
    password: z.string().max(200).optional(),
    new_password: password.optional(),
  })
  // An e-mail or anything else this form does not change is refused, not dropped with a "saved".
  .strict()
  .refine((b) => !b.new_password || !!b.password, { path: ['password'], params: { key: 'current_password_required' } })
  // The current password alone changes nothing: it was answered "saved" as if the password had changed.
  .refine((b) => b.password === undefined || !!b.new_password, { path: ['new_password'], params: { key: 'new_password_required' } });

/** Application rates by zone class (1 to 7) in kg/ha; they reach spreaders through the ISOXML export. */
const ZONE_CLASS = /^[1-7]$/;
const zoneRates = z.record(z.string().regex(ZONE_CLASS), z.number().min(0).max(MAX_RATE_KG_HA));
// zod's record passes over a `__proto__` key without checking it, and the settings are stored as sent: every key is checked here.
const isZoneRates = (v: unknown) => !!v && typeof v === 'object' && Object.keys(v).every((k) => ZONE_CLASS.test(k)) && zoneRates.safeParse(v).success;

export const companyBody = z.object({
  name: singleLine().optional(),
  // Merged into the stored settings; a key given as null is removed.
  settings: z
    .record(z.string(), z.unknown())
    // The zone the company's times are shown in (lib/i18n/time-zone.ts); null goes back to the server's.
    .refine((s) => s.time_zone === undefined || s.time_zone === null || isTimeZone(s.time_zone), { path: ['time_zone'], params: { key: 'time_zone' } })
    .refine((s) => s.zone_rates === undefined || s.zone_rates === null || isZoneRates(s.zone_rates), { path: ['zone_rates'], params: { key: 'zone_rates' } })
    .optional(),
});

export const deleteCompanyBody = z.object({ password: z.string().min(1).max(200) });

export const newUserBody = z.object({
  email,
  password,
  first_name: name.optional(),
  last_name: name.optional(),
  role: z.enum(ROLES).default('operator'),
  language: language.optional(),
});

// Strict: an admin who sends a new password or e-mail here must hear that it was not changed.
export const userUpdateBody = z
  .object({
    role: z.enum(ROLES).optional(),
    is_active: z.boolean().optional(),
    first_name: name.nullable().optional(),
    last_name: name.nullable().optional(),
  })
  .strict();

