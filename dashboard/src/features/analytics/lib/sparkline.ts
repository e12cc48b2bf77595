// The SVG path of a bot card's sparkline: the points spread evenly across `width`, the largest at
// the top of `height` (less `pad`), zero at the bottom, joined by a monotone cubic curve (d3's
// curveMonotoneX, which Recharts draws for curveType "monotone"): smooth, and never overshooting
// a point, so a quiet day does not dip below zero.

export interface SparklinePaths {
  /** The line. */
  line: string;
  /** The line closed down to the baseline, for the fill under it. */
  area: string;
}

const sign = (x: number) => (x < 0 ? -1 : 1);

/** Tangents at each point, as curveMonotoneX chooses them (Steffen's method). */
function tangents(xs: number[], ys: number[]): number[] {
  const n = xs.length;
  const m = new Array<number>(n).fill(0);
  for (let i = 1; i < n - 1; i++) {
    const h0 = xs[i] - xs[i - 1];
    const h1 = xs[i + 1] - xs[i];
    const s0 = (ys[i] - ys[i - 1]) / h0;
    const s1 = (ys[i + 1] - ys[i]) / h1;
    const p = (s0 * h1 + s1 * h0) / (h0 + h1);
    m[i] = (sign(s0) + sign(s1)) * Math.min(Math.abs(s0), Math.abs(s1), 0.5 * Math.abs(p)) || 0;
  }
  // The ends: the slope that makes the end segment's curve meet its neighbour's tangent.
  const end = (a: number, b: number, t: number) => (3 * (ys[b] - ys[a])) / (xs[b] - xs[a]) / 2 - t / 2;
  if (n > 2) {
    m[0] = end(0, 1, m[1]);
    m[n - 1] = end(n - 2, n - 1, m[n - 2]);
  }
  return m;
}

const num = (v: number) => String(Math.round(v * 100) / 100);

export function sparklinePaths(points: readonly number[], width: number, height: number, pad = 2): SparklinePaths {
  if (points.length === 0) return { line: '', area: '' };
  const max = Math.max(...points, 0);
  const bottom = height - pad;
  const xs = points.map((_, i) => (points.length === 1 ? width / 2 : (i * width) / (points.length - 1)));
  const ys = points.map((v) => (max > 0 ? bottom - (v / max) * (bottom - pad) : bottom));
  let line = `M${num(xs[0])},${num(ys[0])}`;
  if (points.length === 2) {
    line += `L${num(xs[1])},${num(ys[1])}`;
  } else if (points.length > 2) {
    const m = tangents(xs, ys);
    for (let i = 0; i < points.length - 1; i++) {
      const dx = (xs[i + 1] - xs[i]) / 3;
      line += `C${num(xs[i] + dx)},${num(ys[i] + dx * m[i])},${num(xs[i + 1] - dx)},${num(ys[i + 1] - dx * m[i + 1])},${num(xs[i + 1])},${num(ys[i + 1])}`;
    }
  }
  const area = `${line}L${num(xs[xs.length - 1])},${num(height)}L${num(xs[0])},${num(height)}Z`;
  return { line, area };
}
