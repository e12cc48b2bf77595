import { describe, expect, it } from 'vitest';
import { fold, foldedIncludes } from './fold';

describe('fold', () => {
  it('drops case and accents as the server does, and keeps letters of their own', () => {
    expect(fold('Émile ZOLA')).toBe('emile zola');
    expect(fold('E\u0301mile')).toBe('emile');
    expect(fold('Straße Ørsted')).toBe('straße ørsted');
  });

  it('matches a query typed with or without accents, in any case', () => {
    expect(foldedIncludes('Émile Zola', 'emile')).toBe(true);
    expect(foldedIncludes('Emile Zola', ' ÉMILE ')).toBe(true);
    expect(foldedIncludes('Øresund', 'oresund')).toBe(false);
    expect(foldedIncludes(null, '')).toBe(true);
  });
});
