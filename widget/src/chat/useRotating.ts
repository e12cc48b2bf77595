import { useEffect, useState } from 'react';

/** Index into a list that advances every `ms` while `active` (thinking phrases, loading texts). */
export function useRotating(length: number, ms: number, active = true): number {
  const [i, setI] = useState(0);
  useEffect(() => {
    if (!active || length < 2) return;
    setI(0);
    const t = setInterval(() => setI((n) => (n + 1) % length), ms);
    return () => clearInterval(t);
  }, [length, ms, active]);
  return i;
}
