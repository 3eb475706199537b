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
  primary: 'bg-emerald-700 text-white hover:bg-emerald-800 disabled:bg-emerald-300',
  secondary: 'border border-stone-500 bg-white text-stone-800 hover:bg-stone-100 disabled:text-stone-400',
  danger: 'bg-red-700 text-white hover:bg-red-800 disabled:bg-red-300',
};

export function Button({ variant = 'primary', className = '', ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: keyof typeof variants; ref?: Ref<HTMLButtonElement> }) {
  return <button type="button" {...props} className={`rounded px-3 py-1.5 text-sm font-medium ${variants[variant]} ${className}`} />;
}

/** A link that looks like a button: for downloads the browser should save as they arrive. */
export function LinkButton({ variant = 'secondary', className = '', ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { variant?: keyof typeof variants }) {
  return <a {...props} className={`inline-block rounded px-3 py-1.5 text-sm font-medium ${variants[variant]} ${className}`} />;
}

export function ErrorMessage({ children }: { children: ReactNode }) {
  if (!children) return null;
  return (
    <p role="alert" className="rounded border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
      {children}
    </p>
  );
}

export function SuccessMessage({ children }: { children: ReactNode }) {
  if (!children) return null;
  return (
    <p role="status" className="rounded border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900">
      {children}
    </p>
  );
}

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
