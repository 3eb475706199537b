'use client';
import { useSyncExternalStore } from 'react';
import { Button, type ButtonProps } from './form';

const noSubscription = () => () => {};

/**
 * The submit button of a form that sends itself with script. Until the page's script has run, the button is
 * disabled: otherwise the browser would send the form the plain way, as a GET with every field (a password
 * too) in the address. A disabled default button also stops Enter from submitting the form.
 */
export function SubmitButton({ disabled, ...props }: Omit<ButtonProps, 'type' | 'ref'>) {
  const hydrated = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  return <Button {...props} type="submit" disabled={!hydrated || disabled} />;
}
