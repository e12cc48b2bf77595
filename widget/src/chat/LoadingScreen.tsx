import { useEffect, useState } from 'react';
import { LOADING_MAX_PERCENT, LOADING_ROTATE_MS, LOADING_TEXTS } from './rules';
import { useRotating } from './useRotating';

/** Shown until the bot's look is loaded: rotating text, a bar that stops at 95%. */
export function LoadingScreen() {
  const i = useRotating(LOADING_TEXTS.length, LOADING_ROTATE_MS);
  const [percent, setPercent] = useState(10);
  useEffect(() => {
    const t = setInterval(() => setPercent((p) => Math.min(LOADING_MAX_PERCENT, p + 15)), 300);
    return () => clearInterval(t);
  }, []);
  return (
    <main className="page loading">
      <div className="loader" role="status" aria-label="Loading chat">
        <p>{LOADING_TEXTS[i]}</p>
        <div className="bar" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
          <span style={{ width: `${percent}%` }} />
        </div>
      </div>
    </main>
  );
}
