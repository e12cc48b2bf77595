// How the Leads table shows a lead (spec 1 "Leads page", §4, §9), and the forms' rules (§5):
// pure functions, tested directly.
import type { Lead, LeadInput } from '../api/leads';

export const DEFAULT_SCORE = 50;
export const DELETE_CONFIRM = 'Are you sure you want to delete this lead?';
export const SELECT_BOT = 'Please select a bot';

export const STATUS_OPTIONS = [
  { value: 'new', label: 'New' },
  { value: 'contacted', label: 'Contacted' },
  { value: 'qualified', label: 'Qualified' },
  { value: 'converted', label: 'Converted' },
  { value: 'lost', label: 'Lost' },
];
export const PRIORITY_OPTIONS = [
  { value: 'low', label: 'Low' },
  { value: 'medium', label: 'Medium' },
  { value: 'high', label: 'High' },
  { value: 'urgent', label: 'Urgent' },
];
export const SORT_OPTIONS = [
  { value: 'newest', label: 'Newest First' },
  { value: 'oldest', label: 'Oldest First' },
  { value: 'score_high', label: 'Highest Score' },
  { value: 'score_low', label: 'Lowest Score' },
  { value: 'name_asc', label: 'Name A-Z' },
  { value: 'name_desc', label: 'Name Z-A' },
];

/** A missing score shows as 50 (spec 1 §4). */
export function scoreOf(lead: Pick<Lead, 'leadScore'>): number {
  return typeof lead.leadScore === 'number' && Number.isFinite(lead.leadScore) ? lead.leadScore : DEFAULT_SCORE;
}

/** 80 or more green, 60–79 blue, 40–59 yellow, below 40 red. */
export function scoreColour(score: number): 'green' | 'blue' | 'yellow' | 'red' {
  if (score >= 80) return 'green';
  if (score >= 60) return 'blue';
  if (score >= 40) return 'yellow';
  return 'red';
}

export function capitalise(text: string | null | undefined): string {
  if (!text) return '';
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** website_chat -> 'website chat'. */
export function sourceLabel(source: string | null | undefined): string {
  return (source ?? '').replace(/_/g, ' ');
}

export type SourceKind = 'website' | 'mobile' | 'other';
export function sourceKind(source: string | null | undefined): SourceKind {
  if (source === 'website_chat') return 'website';
  if (source === 'mobile_app') return 'mobile';
  return 'other';
}

/** en-US, short month, two-digit hour and minute: 'Nov 23, 2026, 07:05 PM'. */
export function capturedAt(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return d.toLocaleString('en-US', { month: 'short', day: 'numeric', year: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** The conversation's title, or 'Session' and the last 6 characters of its id. */
export function sessionLabel(lead: Pick<Lead, 'sessionId' | 'sessionTitle'>): string | null {
  if (!lead.sessionId) return null;
  const title = lead.sessionTitle?.trim();
  return title ? title : `Session ${lead.sessionId.slice(-6)}`;
}

export function hasContact(lead: Pick<Lead, 'name' | 'email'>): boolean {
  return !!(lead.name?.trim() || lead.email?.trim());
}

export interface FilterState {
  search: string;
  status: string;
  priority: string;
}

/** Whether search, status or priority narrow the list (the empty state says so). */
export function filtersActive(f: FilterState): boolean {
  return f.search.trim() !== '' || f.status !== 'all' || f.priority !== 'all';
}

/** Select-all: every listed row, or none when all are selected already. */
export function toggleAll(selected: readonly string[], rows: readonly Pick<Lead, '_id'>[]): string[] {
  const ids = rows.map((r) => r._id);
  const all = ids.length > 0 && ids.every((id) => selected.includes(id));
  return all ? selected.filter((id) => !ids.includes(id)) : [...new Set([...selected, ...ids])];
}

export function toggleOne(selected: readonly string[], id: string): string[] {
  return selected.includes(id) ? selected.filter((s) => s !== id) : [...selected, id];
}

/** The selection bar's words, as the spec gives them ('{n} lead(s) selected'). */
export function selectionLabel(n: number): string {
  return `${n} lead(s) selected`;
}

export function emptyForm(botId = ''): LeadInput {
  return {
    botId,
    name: '',
    email: '',
    phone: '',
    company: '',
    status: 'new',
    priority: 'medium',
    leadScore: DEFAULT_SCORE,
    notes: '',
    tags: '',
    assignedTo: null,
    lastContact: null,
  };
}

export function formOf(lead: Lead): LeadInput {
  return {
    botId: lead.botId,
    name: lead.name ?? '',
    email: lead.email ?? '',
    phone: lead.phone ?? '',
    company: lead.company ?? '',
    status: lead.status,
    priority: lead.priority,
    leadScore: scoreOf(lead),
    notes: lead.notes ?? '',
    tags: (lead.tags ?? []).join(', '),
    assignedTo: lead.assignedTo,
    lastContact: lead.lastContact,
  };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The form's errors by field, in the server's words; empty when it may be sent. */
export function validateLead(input: LeadInput, creating: boolean): Partial<Record<keyof LeadInput, string>> {
  const errors: Partial<Record<keyof LeadInput, string>> = {};
  if (creating && !input.botId?.trim()) errors.botId = SELECT_BOT;
  if (input.email.trim() && !EMAIL.test(input.email.trim())) errors.email = 'Please enter a valid email address';
  if (input.name.trim().length > 100) errors.name = 'Name must be at most 100 characters';
  if (input.company.trim().length > 100) errors.company = 'Company must be at most 100 characters';
  if (input.phone.trim().length > 40) errors.phone = 'Phone must be at most 40 characters';
  if (input.notes.trim().length > 2000) errors.notes = 'Notes must be at most 2000 characters';
  const s = input.leadScore;
  if (!Number.isInteger(s) || s < 0 || s > 100) errors.leadScore = 'Score must be a whole number from 0 to 100';
  return errors;
}
