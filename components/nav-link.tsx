'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';

export function NavLink({ href, title, children }: { href: string; title?: string; children: React.ReactNode }) {
  const pathname = usePathname();
  const active = href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`);
  return (
    <Link
      href={href}
      title={title}
      aria-current={active ? 'page' : undefined}
      className={active ? 'font-semibold text-emerald-800 underline underline-offset-4' : 'text-stone-700 hover:text-emerald-800'}
    >
      {children}
    </Link>
  );
}
