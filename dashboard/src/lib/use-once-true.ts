import { useState } from 'react';

/** True from the first time `flag` is true on: what was loaded for it stays mounted. */
export function useOnceTrue(flag: boolean) {
  const [seen, setSeen] = useState(flag);
  if (flag && !seen) setSeen(true);
  return seen || flag;
}
