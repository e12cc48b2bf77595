// Small display helpers shared by the support components.
import type { ChatSession } from '../api/support';

export function timeOf(ts?: string | null): string {
  if (!ts) return '';
  const d = new Date(ts);
  if (Number.isNaN(d.getTime())) return '';
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : d.toLocaleString([], { dateStyle: 'short', timeStyle: 'short' });
}

export const STATUS_COLOR: Record<string, string> = { active: 'green', pending: 'yellow', resolved: 'blue' };
export const PRIORITY_COLOR: Record<string, string> = { low: 'gray', medium: 'blue', high: 'orange', urgent: 'red' };
export const PRIORITIES = [
  { value: 'low', label: 'Low' },
  { value: 'medium', label: 'Medium' },
  { value: 'high', label: 'High' },
  { value: 'urgent', label: 'Urgent' },
];

export function statusColor(status?: string | null): string {
  return (status && STATUS_COLOR[status]) || 'gray';
}

export function titleOf(s: Pick<ChatSession, 'title' | 'name' | 'customerName'>, fallback = 'Customer Chat'): string {
  return s.title || s.name || s.customerName || fallback;
}

export function capital(s?: string | null): string {
  return s ? s[0].toUpperCase() + s.slice(1) : '';
}
