/** Whether the chat page runs inside the widget's iframe (a cross-origin parent counts). */
export function isEmbedded(): boolean {
  try {
    return window.parent !== window;
  } catch {
    return true;
  }
}
