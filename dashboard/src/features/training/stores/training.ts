// The active bot's training sources, kept fresh: while anything is `processing` the list is
// re-read every 2 s, so a status icon turns completed or failed without a reload.
import { proxy } from 'valtio';
import { onSignOut } from '@/lib/sign-out';
import { sourcesApi, type Source, type SourcesResponse } from '../api/sources';
import { MAX_QA_PAIRS, MAX_SOURCES, MSG } from './rules';

export type ListKey = 'pdf' | 'websites' | 'text' | 'qa';

export interface TrainingState {
  botId: string | null;
  pdf: Source[];
  websites: Source[];
  text: Source[];
  qa: Source[];
  loading: boolean;
  /** Set while a retrain was just requested: keep polling even before statuses flip. */
  trainingUntil: number;
}

export const POLL_MS = 2000;
/** After Start Training, keep listening at least this long for the statuses to flip. */
export const TRAIN_WATCH_MS = 6000;

export const training = proxy<TrainingState>({
  botId: null,
  pdf: [],
  websites: [],
  text: [],
  qa: [],
  loading: false,
  trainingUntil: 0,
});

let timer: ReturnType<typeof setTimeout> | null = null;

export function anyProcessing(s: { readonly [K in ListKey]: readonly Pick<Source, 'status'>[] }): boolean {
  return (['pdf', 'websites', 'text', 'qa'] as const).some((k) => s[k].some((x) => x.status === 'processing'));
}

function apply(data: SourcesResponse) {
  training.pdf = data.pdf;
  training.websites = data.websites;
  training.text = data.text;
  training.qa = data.qa;
}

function schedule() {
  if (timer) clearTimeout(timer);
  timer = null;
  if (!training.botId) return;
  if (!anyProcessing(training) && Date.now() >= training.trainingUntil) return;
  timer = setTimeout(() => {
    timer = null;
    void refresh();
  }, POLL_MS);
}

/** Re-reads the list of the current bot (quietly) and keeps polling while needed. */
export async function refresh(): Promise<void> {
  const botId = training.botId;
  if (!botId) return;
  try {
    const data = await sourcesApi.list(botId);
    if (training.botId !== botId) return; // the bot changed meanwhile
    apply(data);
  } catch {
    // A failed refresh keeps what is shown; the next tick retries.
  } finally {
    if (training.botId === botId) schedule();
  }
}

/** Opens the page for `botId`: loads its sources; failure resets them to empty. */
export async function loadSources(botId: string): Promise<void> {
  if (training.botId !== botId) {
    training.botId = botId;
    apply({ counts: { pdf: 0, websites: 0, text: 0, qa: 0 }, pdf: [], websites: [], text: [], qa: [] });
  }
  training.loading = true;
  try {
    const data = await sourcesApi.list(botId);
    if (training.botId !== botId) return;
    apply(data);
  } catch {
    if (training.botId === botId) apply({ counts: { pdf: 0, websites: 0, text: 0, qa: 0 }, pdf: [], websites: [], text: [], qa: [] });
  } finally {
    if (training.botId === botId) {
      training.loading = false;
      schedule();
    }
  }
}

/** Leaves the page: stops polling. */
export function stopTraining(): void {
  if (timer) clearTimeout(timer);
  timer = null;
  training.botId = null;
}

function guardCount(list: ListKey) {
  const n = training[list].length;
  if (list === 'qa') {
    if (n >= MAX_QA_PAIRS) throw new Error(MSG.maxQa);
  } else if (n >= MAX_SOURCES) {
    throw new Error(MSG.maxSources);
  }
}

async function added(list: ListKey, call: () => Promise<{ source: Source }>): Promise<Source> {
  guardCount(list);
  const { source } = await call();
  if (!training[list].some((s) => s._id === source._id)) training[list].push(source);
  schedule();
  return source;
}

function current(): string {
  if (!training.botId) throw new Error('Please select a bot first');
  return training.botId;
}

export const addPdf = (file: File) => added('pdf', () => sourcesApi.addPdf(current(), file));
export const addWebsite = (url: string) => added('websites', () => sourcesApi.addWebsite(current(), url.trim()));
export const addText = (name: string, content: string) => added('text', () => sourcesApi.addText(current(), name, content));
export const addQa = (question: string, answer: string) =>
  added('qa', () => sourcesApi.addQa(current(), question.trim(), answer.trim()));

export async function removeSource(list: ListKey, id: string): Promise<void> {
  await sourcesApi.remove(current(), id);
  training[list] = training[list].filter((s) => s._id !== id);
}

/** Re-crawls and re-indexes everything; the statuses then pass through processing again. */
export async function startTraining(): Promise<void> {
  await sourcesApi.train(current());
  training.trainingUntil = Date.now() + TRAIN_WATCH_MS;
  await refresh();
}

onSignOut(() => {
  stopTraining();
  apply({ counts: { pdf: 0, websites: 0, text: 0, qa: 0 }, pdf: [], websites: [], text: [], qa: [] });
});
