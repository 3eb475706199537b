// Small building blocks shared by the forms: labelled inputs, buttons and messages.
import { type AnchorHTMLAttributes, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode, type Ref, type SelectHTMLAttributes, useId } from 'react';

export const inputClass =
  'w-full rounded border border-stone-500 bg-white px-2 py-1.5 text-sm focus:border-emerald-600 focus:outline-none focus:ring-1 focus:ring-emerald-600 disabled:bg-stone-100';

export function TextInput({ label, hint, ...props }: InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: string }) {
  // The hint describes the input without becoming part of its name.
  const hintId = useId();
  return (
    <div className="space-y-1 text-sm">
      <label className="block space-y-1">
        <span className="font-medium text-stone-700">{label}</span>
        <input {...props} aria-describedby={hint ? hintId : undefined} className={inputClass} />
      </label>
      {hint && (
        <span id={hintId} className="block text-xs text-stone-600">
          {hint}
        </span>
      )}
    </div>
  );
}

export function Select({ label, children, ...props }: SelectHTMLAttributes<HTMLSelectElement> & { label: string; children: ReactNode }) {
  return (
    <label className="block space-y-1 text-sm">
      <span className="font-medium text-stone-700">{label}</span>
      <select {...props} className={inputClass}>
        {children}
      </select>
    </label>
  );
}

const variants = {
  primary: 'bg-emerald-700 text-white hover:bg-emerald-800 disabled:bg-emerald-300 aria-disabled:bg-emerald-300',
  secondary: 'border border-stone-500 bg-white text-stone-800 hover:bg-stone-100 disabled:text-stone-400 aria-disabled:text-stone-400',
  danger: 'bg-red-700 text-white hover:bg-red-800 disabled:bg-red-300 aria-disabled:bg-red-300',
};

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: keyof typeof variants; busy?: boolean; ref?: Ref<HTMLButtonElement> };

/**
 * `busy` is for a request in flight: the button says so (aria-disabled, aria-busy) and ignores clicks,
 * but stays focusable. `disabled` would drop a keyboard user's focus to the page's start.
 */
export function Button({ variant = 'primary', className = '', busy = false, onClick, ...props }: ButtonProps) {
  return (
    <button
      type="button"
      {...props}
      aria-disabled={busy || props['aria-disabled'] || undefined}
      aria-busy={busy || undefined}
      // Cancelling the click also stops a submit button (and Enter in its form) from sending the form again.
      onClick={busy ? (e) => e.preventDefault() : onClick}
      className={`rounded px-3 py-1.5 text-sm font-medium ${busy ? 'cursor-wait' : ''} ${variants[variant]} ${className}`}
    />
  );
}

/** A link that looks like a button: for downloads the browser should save as they arrive. */
export function LinkButton({ variant = 'secondary', className = '', ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { variant?: keyof typeof variants }) {
  return <a {...props} className={`inline-block rounded px-3 py-1.5 text-sm font-medium ${variants[variant]} ${className}`} />;
}

// Client components (the error takes the focus when it would be lost), usable from server pages too.
export { ErrorMessage, SuccessMessage } from './messages';

export function Card({ title, children, actions }: { title?: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="space-y-3 rounded-lg border border-stone-200 bg-white p-4 shadow-sm">
      {(title || actions) && (
        <div className="flex flex-wrap items-center justify-between gap-2">
          {title && <h2 className="text-lg font-semibold">{title}</h2>}
          {actions}
        </div>
      )}
      {children}
    </section>
  );
}
