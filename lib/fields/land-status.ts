// Land statuses: the three the interface offers (the API accepts any text) and their message keys.
export const KNOWN_STATUSES = ['Собственность', 'Аренда', 'Субаренда'] as const;

const STATUS_KEY: Record<string, 'owned' | 'leased' | 'subleased'> = {
  Собственность: 'owned',
  Аренда: 'leased',
  Субаренда: 'subleased',
};

/** The message key (under `fields.status_values`) of a known status, or undefined for free text. */
export const statusKey = (status: string | null | undefined) => (status ? STATUS_KEY[status] : undefined);
