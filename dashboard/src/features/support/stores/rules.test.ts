import { describe, expect, it } from 'vitest';
import { canSend, clampRating, composerKey, counterText, editError, emptyResolveForm, resolveFormError } from './rules';

describe('composer rules', () => {
  it('does not send empty or whitespace text', () => {
    expect(canSend('')).toBe(false);
    expect(canSend('  \n ')).toBe(false);
    expect(canSend(' hi ')).toBe(true);
  });
  it('Enter sends, Shift+Enter is a newline, other keys do nothing', () => {
    expect(composerKey({ key: 'Enter', shiftKey: false })).toBe('send');
    expect(composerKey({ key: 'Enter', shiftKey: true })).toBe('newline');
    expect(composerKey({ key: 'Enter', shiftKey: false, isComposing: true })).toBe('newline');
    expect(composerKey({ key: 'a', shiftKey: false })).toBeNull();
  });
  it('counts out of 500 without truncating', () => {
    expect(counterText('x'.repeat(501))).toBe('501/500');
  });
});

describe('resolve form rules', () => {
  it('defaults to 5 stars and empty notes, which is valid', () => {
    expect(emptyResolveForm()).toEqual({ rating: 5, notes: '' });
    expect(resolveFormError(emptyResolveForm())).toBeNull();
  });
  it('refuses ratings outside 1-5 and overlong notes', () => {
    expect(resolveFormError({ rating: 0, notes: '' })).toBe('Rating must be between 1 and 5');
    expect(resolveFormError({ rating: 6, notes: '' })).toBe('Rating must be between 1 and 5');
    expect(resolveFormError({ rating: 3, notes: 'x'.repeat(2001) })).toBe('Notes must be at most 2000 characters');
    expect(clampRating(9)).toBe(5);
    expect(clampRating(0)).toBe(1);
  });
  it('an inline edit cannot be saved empty', () => {
    expect(editError('   ')).toBe('Message cannot be empty');
    expect(editError('fine')).toBeNull();
  });
});
