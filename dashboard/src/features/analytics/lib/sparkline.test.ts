import { describe, expect, it } from 'vitest';
import { sparklinePaths } from './sparkline';

/** Every y coordinate in a path (the second of each x,y pair). */
const ys = (path: string) => [...path.matchAll(/(-?[\d.]+),(-?[\d.]+)/g)].map((m) => Number(m[2]));
const xs = (path: string) => [...path.matchAll(/(-?[\d.]+),(-?[\d.]+)/g)].map((m) => Number(m[1]));

describe('sparklinePaths', () => {
  it('puts the largest value at the top and zero on the baseline, spread across the width', () => {
    const { line } = sparklinePaths([0, 5, 10], 100, 36);
    expect(line.startsWith('M0,34')).toBe(true);
    expect(line.endsWith('100,2')).toBe(true);
    expect(line).toContain(',50,18'); // the middle point: x 50, half height
  });

  it('draws a quiet week flat on the baseline', () => {
    const { line } = sparklinePaths([0, 0, 0, 0, 0, 0, 0], 70, 36);
    expect(new Set(ys(line))).toEqual(new Set([34]));
  });

  it('never overshoots: the curve stays between the lowest and highest points', () => {
    const { line } = sparklinePaths([0, 1, 9, 9, 2, 0, 3], 120, 36);
    for (const y of ys(line)) {
      expect(y).toBeGreaterThanOrEqual(2);
      expect(y).toBeLessThanOrEqual(34);
    }
    // x only moves forward.
    const x = xs(line);
    expect(x).toEqual([...x].sort((a, b) => a - b));
  });

  it('closes the area down to the bottom edge', () => {
    const { area } = sparklinePaths([0, 2], 50, 36);
    expect(area).toBe('M0,34L50,2L50,36L0,36Z');
  });

  it('copes with one point and with none', () => {
    expect(sparklinePaths([4], 60, 36).line).toBe('M30,2');
    expect(sparklinePaths([], 60, 36)).toEqual({ line: '', area: '' });
  });
});
