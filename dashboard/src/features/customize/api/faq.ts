// The bot's FAQ questions for the test preview: the questions of its trained Q&A pairs, as the
// public theme sends them to the live chat with the FAQ switch on (oldest first, at most 5).
import { FAQ_LIMIT } from '@parley/shared/look';
import { sourcesApi } from '@/features/training/api/sources';

export async function faqQuestions(botId: string): Promise<string[]> {
  const { qa } = await sourcesApi.list(botId);
  return qa
    .filter((p) => p.status === 'completed' && p.question)
    .map((p) => p.question ?? '')
    .slice(0, FAQ_LIMIT);
}
