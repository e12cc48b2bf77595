// A lead as the list sends it, for the tests.
import type { Lead } from '../api/leads';

export function lead(id: string, extra: Partial<Lead> = {}): Lead {
  return {
    _id: id,
    id,
    botId: 'b1',
    botName: 'Shop',
    sessionId: null,
    sessionTitle: null,
    name: `Lead ${id}`,
    email: `${id}@x.example`,
    phone: null,
    company: null,
    status: 'new',
    priority: 'medium',
    source: 'website_chat',
    notes: null,
    tags: [],
    leadScore: 50,
    assignedTo: null,
    assignedToName: null,
    capturedAt: '2026-11-23T19:05:00.000Z',
    lastContact: null,
    ...extra,
  };
}
