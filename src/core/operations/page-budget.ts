/** The characters of a response body a page may fill: the bytes the response may take (limits.maxResponseBytes, or a batch part's share), less its context URL and room for its frame. */
export function pageBudget(responseBytes: number, context: string): number {
  return Math.max(0, responseBytes - context.length - 4096);
}
