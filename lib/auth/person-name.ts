/** How a user is named to others: first and last name, else the e-mail (names are optional). */
export const personName = (first: string | null, last: string | null, email: string): string => [first, last].filter(Boolean).join(' ') || email;
