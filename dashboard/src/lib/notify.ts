// Toasts as the spec sets them: top-right (see provider), success and info 4 s, error 5 s,
// loading until dismissed.
import { notifications } from '@mantine/notifications';

// Mantine requires a message; a toast with only a title shows the title as its message.
const body = (title: string, message?: string) =>
  message ? { title, message } : { title: undefined, message: title };

export const TOAST_MS = { success: 4000, info: 4000, error: 5000 } as const;

export const notify = {
  success: (title: string, message?: string) =>
    notifications.show({ ...body(title, message), color: 'green', autoClose: TOAST_MS.success }),
  info: (title: string, message?: string) =>
    notifications.show({ ...body(title, message), color: 'blue', autoClose: TOAST_MS.info }),
  error: (title: string, message?: string) =>
    notifications.show({ ...body(title, message), color: 'red', autoClose: TOAST_MS.error }),
  /** Returns the id; pass it to `done` to turn the loading toast into its outcome. */
  loading: (title: string, message?: string) =>
    notifications.show({ ...body(title, message), loading: true, autoClose: false, withCloseButton: false }),
  done: (id: string, kind: 'success' | 'error', title: string, message?: string) =>
    notifications.update({
      id,
      ...body(title, message),
      loading: false,
      color: kind === 'success' ? 'green' : 'red',
      autoClose: TOAST_MS[kind],
      withCloseButton: true,
    }),
};
