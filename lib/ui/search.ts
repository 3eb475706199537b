// Finding fields by what a person types: their name or parcel number, in any case and without the
// accents (Slovak "plaz" finds "Pláž"), among fields already in the browser.

/** Lower case without accents. */
export const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLocaleLowerCase();

/** A search over `items` by the text `textOf` gives each: the items whose text holds the query. */
export function fieldMatcher<T>(items: readonly T[], textOf: (item: T) => string): (query: string) => T[] {
  const folded = items.map((item) => ({ item, text: fold(textOf(item)) }));
  return (query) => {
    const wanted = fold(query.trim());
    return wanted ? folded.filter((f) => f.text.includes(wanted)).map((f) => f.item) : [];
  };
}
