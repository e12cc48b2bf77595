// One create-bot wizard's state: a proxy per open wizard (createWizard), with its actions beside it.
import { proxy, ref } from 'valtio';
import type { Bot, FaqMethod } from '../api/bots';
import { checkWebsiteUrl } from '@/features/landing/lib/website-url';
import { createBot } from './bots';

export const MAX_PDF_BYTES = 10 * 1024 * 1024; // 10485760
export const MAX_FAQ_TEXT = 5000;
export const NAME_REQUIRED = 'Bot name is required';
export const FILE_TOO_LARGE = 'File size must be less than 10MB';

export type WizardStep = 'basic' | 'training' | 'review' | 'integration';

/** The icon types the server keeps (anything else is refused at Create). */
export const ICON_TYPES = 'image/png,image/jpeg,image/gif,image/webp';
export const ICON_TYPE_ERROR = 'Bot icon must be an image (PNG, JPEG, GIF or WebP)';
export const PDF_ONLY = 'Please upload a PDF file';

export interface WizardState {
  step: WizardStep;
  name: string;
  nameTouched: boolean;
  websiteUrl: string;
  websiteTouched: boolean;
  icon: File | null;
  iconError: string | null;
  faqMethod: FaqMethod | null;
  faqFile: File | null;
  fileError: string | null;
  faqText: string;
  creating: boolean;
  created: Bot | null;
}

export type Wizard = ReturnType<typeof createWizard>;

export function nameValid(s: Pick<WizardState, 'name'>): boolean {
  return s.name.trim().length > 0;
}

/**
 * The optional website's error ('Please enter a valid URL (e.g., …)'), or null when it is blank
 * or a web address (a bare domain counts, as https).
 */
export function websiteError(s: Pick<WizardState, 'websiteUrl'>): string | null {
  if (!s.websiteUrl.trim()) return null;
  const check = checkWebsiteUrl(s.websiteUrl);
  return check.ok ? null : check.error;
}

/** Step 1 may be left: a name, and a website that is blank or valid. */
export function basicValid(s: Pick<WizardState, 'name' | 'websiteUrl'>): boolean {
  return nameValid(s) && websiteError(s) === null;
}

/** Whether step 2's choice is complete enough to go on to the review. */
export function trainingReady(s: Pick<WizardState, 'faqMethod' | 'faqFile' | 'faqText'>): boolean {
  if (s.faqMethod === 'upload') return s.faqFile !== null;
  if (s.faqMethod === 'text') return s.faqText.trim().length > 0;
  return s.faqMethod === 'skip';
}

/**
 * 'Step n of 3' when training is skipped, else 'of 4': a skipped training step is not counted, so
 * the review is step 2 of 3 and the code step 3 of 3. On the training step itself it always counts.
 */
export function stepPosition(s: Pick<WizardState, 'step' | 'faqMethod'>): { n: number; total: number } {
  const skipped = s.faqMethod === 'skip' && s.step !== 'training';
  const steps: WizardStep[] = skipped
    ? ['basic', 'review', 'integration']
    : ['basic', 'training', 'review', 'integration'];
  return { n: steps.indexOf(s.step) + 1, total: steps.length };
}

/** `websiteUrl`: the address a newcomer typed on the landing page, filled in. */
export function createWizard(initial: { websiteUrl?: string } = {}) {
  const state = proxy<WizardState>({
    step: 'basic',
    name: '',
    nameTouched: false,
    websiteUrl: initial.websiteUrl ?? '',
    websiteTouched: false,
    icon: null,
    iconError: null,
    faqMethod: null,
    faqFile: null,
    fileError: null,
    faqText: '',
    creating: false,
    created: null,
  });

  const actions = {
    setName(name: string) {
      state.name = name;
      state.nameTouched = true;
    },
    setWebsiteUrl(url: string) {
      state.websiteUrl = url;
    },
    /** Shows the website's error once the field is left. */
    touchWebsite() {
      state.websiteTouched = true;
    },
    setIcon(file: File | null) {
      const allowed = !file || ICON_TYPES.split(',').includes(file.type);
      state.iconError = allowed ? null : ICON_TYPE_ERROR;
      state.icon = file && allowed ? ref(file) : null;
    },
    /** Step 1 -> 2; refused (and the errors shown) while the name is blank or the website invalid. */
    next() {
      if (state.step === 'basic') {
        state.nameTouched = true;
        state.websiteTouched = true;
        if (basicValid(state)) state.step = 'training';
      } else if (state.step === 'training' && trainingReady(state)) {
        state.step = 'review';
      }
    },
    back() {
      if (state.step === 'training') state.step = 'basic';
      else if (state.step === 'review') state.step = 'training';
    },
    /** Skip jumps straight to the review; the other choices stay on step 2 for their input. */
    chooseMethod(method: FaqMethod) {
      state.faqMethod = method;
      if (method === 'skip') state.step = 'review';
    },
    /** A PDF over 10 MB, or a file that is not a PDF, is refused and the selection cleared. */
    setFile(file: File | null) {
      if (file && !isPdf(file)) {
        state.faqFile = null;
        state.fileError = PDF_ONLY;
        return;
      }
      if (file && file.size > MAX_PDF_BYTES) {
        state.faqFile = null;
        state.fileError = FILE_TOO_LARGE;
        return;
      }
      state.fileError = null;
      state.faqFile = file ? ref(file) : null;
    },
    setText(text: string) {
      state.faqText = text.slice(0, MAX_FAQ_TEXT);
    },
    /** Creates the bot (the list reloads) and moves to the code step. Throws the server's error. */
    async create(): Promise<Bot | null> {
      if (!basicValid(state) || state.creating) return null;
      state.creating = true;
      try {
        const site = checkWebsiteUrl(state.websiteUrl);
        const bot = await createBot({
          name: state.name,
          websiteUrl: site.ok ? site.url : '',
          faqMethod: state.faqMethod ?? 'skip',
          faqFile: state.faqFile,
          faqText: state.faqText,
          icon: state.icon,
        });
        state.created = bot;
        state.step = 'integration';
        return bot;
      } finally {
        state.creating = false;
      }
    },
  };

  return { state, actions };
}

/** A PDF by its type, or by its name where the browser gives no type. */
function isPdf(file: File): boolean {
  return file.type === 'application/pdf' || (!file.type && /\.pdf$/i.test(file.name));
}
