'use client';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { type ChangeEvent, useState } from 'react';
import { ownerNameKey } from '@/lib/owners/name-key';
import { api } from '@/lib/ui/api';
import type { OwnerOption } from '@/lib/ui/types';
import { OwnerOptions } from './field-options';

/** The owner select's value for "a new owner", whose name is typed beside it. */
const NEW_OWNER = 'new';

export type OwnerChoice = ReturnType<typeof useOwnerChoice>;

/**
 * An owner select that can add an owner not yet listed: '+ New owner…' and its name, made when the
 * field (or the selected fields) is saved, just before it. A field drawn for a new lessor, or parcels
 * of a register imported without owners, are not left for a trip to the owners page; a name already
 * listed, in any case, or added by a colleague since the page was read, is that owner. The one way the
 * field forms, the table's row edit and its bulk edit do this.
 */
export function useOwnerChoice(owners: OwnerOption[], initial: string) {
  const t = useTranslations();
  const [value, setValue] = useState(initial);
  const [newName, setNewName] = useState('');
  const [creating, setCreating] = useState(false);
  const { listed, list } = useListedOwners(owners);

  /**
   * The owner to save with (null: none); undefined when a new one could not be added, the reason
   * given to `fail`. A new owner, once made, stays chosen: a save that then fails is retried with it.
   */
  async function chosen(fail: (message: string) => void): Promise<OwnerOption | null | undefined> {
    // An owner no longer listed (deleted since a table's rows were read) shows as none, and is none.
    if (value !== NEW_OWNER) return listed.find((o) => String(o.id) === value) ?? null;
    const name = newName.trim();
    // The browser's `required` takes spaces for a name (and a table row has no form to ask).
    if (!name) {
      fail(t('fields.new_owner_name_missing'));
      return undefined;
    }
    const take = (owner: OwnerOption) => {
      list(owner);
      setValue(String(owner.id));
      setNewName('');
      return owner;
    };
    const known = listed.find((o) => ownerNameKey(o.name) === ownerNameKey(name));
    if (known) return take(known);
    setCreating(true);
    const made = await createOwner(name);
    setCreating(false);
    if (made.ok) return take(made.owner);
    fail(made.error ?? t('common.network_error'));
    return undefined;
  }

  return {
    listed,
    /** While a new owner is being added. */
    creating,
    chosen,
    ...ownerInputs(value, setValue, newName, setNewName),
  };
}

/** The page's owners, and those added here: listed before the page's owners are read again. */
function useListedOwners(owners: OwnerOption[]) {
  const router = useRouter();
  const [added, setAdded] = useState<OwnerOption[]>([]);
  const listed = [...owners, ...added.filter((a) => !owners.some((o) => o.id === a.id))];
  /** Lists an owner not listed yet: here at once, and in the page's owners once they are read again. */
  const list = (owner: OwnerOption) => {
    if (listed.some((o) => o.id === owner.id)) return;
    setAdded((prev) => [...prev, owner]);
    router.refresh();
  };
  return { listed, list };
}

/** Adds an owner named `name`; one of that name made since the page was read is that owner. */
async function createOwner(name: string): Promise<{ ok: true; owner: OwnerOption } | { ok: false; error: string | null }> {
  const res = await api<{ id: number }>('/api/owners', { method: 'POST', body: { name } });
  // Taken since the page was read (by a colleague, or another tab): that owner, found in the list as it is now.
  const taken = !res.ok && res.status === 409 ? await api<OwnerOption[]>('/api/owners') : null;
  if (taken?.ok) {
    const owner = taken.data.find((o) => ownerNameKey(o.name) === ownerNameKey(name));
    if (owner) return { ok: true, owner: { id: owner.id, name: owner.name } };
  }
  if (!res.ok) return { ok: false, error: res.error };
  return { ok: true, owner: { id: res.data.id, name } };
}

/** The select and the new owner's name: their props, and starting them over. */
function ownerInputs(value: string, setValue: (value: string) => void, newName: string, setNewName: (name: string) => void) {
  return {
    /** Starts over from an owner (a table row opened for editing). */
    start(from: string) {
      setValue(from);
      setNewName('');
    },
    /** Props of the owner select. */
    select: { value, onChange: (e: ChangeEvent<HTMLSelectElement>) => setValue(e.target.value) },
    /** Props of the new owner's name input, shown while the select asks for one. */
    newOwner:
      value === NEW_OWNER
        ? {
            value: newName,
            onChange: (e: ChangeEvent<HTMLInputElement>) => setNewName(e.target.value),
            required: true,
            maxLength: 255,
            // Focused as it appears: on a phone the box would otherwise wait for a tap.
            autoFocus: true,
          }
        : null,
  };
}

/** The owner select's options: no owner, the company's owners (with those added here), a new one. */
export function OwnerChoiceOptions({ choice }: { choice: OwnerChoice }) {
  const t = useTranslations('fields');
  return (
    <>
      <OwnerOptions owners={choice.listed} />
      <option value={NEW_OWNER}>{t('add_owner')}</option>
    </>
  );
}
