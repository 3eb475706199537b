'use client';
import { useTranslations } from 'next-intl';
import { type ComponentProps, type FormEvent, useMemo } from 'react';
import { type ControlState, validationMessage } from '@/lib/ui/validation-message';

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/**
 * The message each control was given here. Only that one is replaced or cleared: a control may carry a
 * reason of its own component's (FieldFinder's "pick a field from the list"), which must stay.
 */
const givenMessages = new WeakMap<Control, string>();

const isControl = (target: EventTarget): target is Control =>
  target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement;

function stateOf(control: Control): ControlState {
  const input = control instanceof HTMLInputElement ? control : null;
  return {
    type: control.type,
    validity: control.validity,
    value: control.value,
    minLength: control instanceof HTMLSelectElement ? -1 : control.minLength,
    maxLength: control instanceof HTMLSelectElement ? -1 : control.maxLength,
    min: input?.min ?? '',
    max: input?.max ?? '',
    step: input?.step ?? '',
    defaultValue: input?.defaultValue ?? '',
    title: control.title,
  };
}

/** Gives back the browser's own verdict once the value changes: ours would otherwise keep the control invalid. */
function clearGivenMessage(e: FormEvent<HTMLFormElement>) {
  const control = e.target;
  if (!isControl(control) || !givenMessages.has(control)) return;
  if (control.validationMessage === givenMessages.get(control)) control.setCustomValidity('');
  givenMessages.delete(control);
}

/**
 * Props for a <form> whose controls' native validation messages (`required`, `type="email"`, `minLength`,
 * `pattern`, `min`/`max`, `step`...) are in the interface's language rather than the browser's. The browser
 * still checks, refuses to send, focuses the control and shows its bubble; only the words are ours. A
 * control's `invalid` event (which does not bubble, hence capture) gets our message as its custom
 * validity, and the next input or change takes it away again, so that the browser checks afresh.
 */
export function useValidationMessages() {
  const t = useTranslations('validation_ui');
  return useMemo(
    () => ({
      onInvalidCapture(e: FormEvent<HTMLFormElement>) {
        const control = e.target;
        if (!isControl(control)) return;
        // Another component's reason (FieldFinder's): the browser says it as it is.
        if (control.validity.customError && givenMessages.get(control) !== control.validationMessage) return;
        // Ours off first, so that the validity left is the browser's own verdict (a message of an earlier
        // check, or in the language the page had then, is not kept).
        control.setCustomValidity('');
        givenMessages.delete(control);
        // Null when the control was invalid only by our stale message (a value set by script, which fires no
        // input event): this one attempt is refused without words, the next goes through.
        const message = validationMessage(stateOf(control));
        if (!message) return;
        const text = t(message.key, message.values);
        control.setCustomValidity(text);
        givenMessages.set(control, text);
      },
      onInputCapture: clearGivenMessage,
      // Older browsers send only "change" for a file input.
      onChangeCapture: clearGivenMessage,
    }),
    [t],
  );
}

/**
 * A <form> whose native validation messages are in the interface's language. Every form of the interface
 * is one (a unit test checks), so that a constraint added later is said in the user's language too.
 */
export function Form(props: Omit<ComponentProps<'form'>, keyof ReturnType<typeof useValidationMessages>>) {
  const validation = useValidationMessages();
  return <form {...props} {...validation} />;
}
