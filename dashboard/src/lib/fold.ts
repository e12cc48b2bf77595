// Text as the dashboard's searches compare it, by the server's rule (store/src/fold.rs): lower
// case, canonically decomposed, combining accents (U+0300–U+036F) dropped. So the filter a screen
// applies at once agrees with the server's answer that follows it: "emile" finds "Émile".
export function fold(text: string): string {
  return text.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

/** Whether `text` contains `query`, both folded (an empty query matches everything). */
export function foldedIncludes(text: string | null | undefined, query: string): boolean {
  return fold(text ?? '').includes(fold(query.trim()));
}
