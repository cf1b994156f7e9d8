/**
 * JSON-RPC error answers kinora writes itself, before a message reaches the SDK (unreadable
 * JSON, a wrong content type, a batch on a revision without batches), in the SDK's own shape
 * so a client sees one format whichever layer refused.
 */

/** `{"jsonrpc":"2.0","error":{code,message},"id":…}` with the HTTP status. */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id }, { status });
}
