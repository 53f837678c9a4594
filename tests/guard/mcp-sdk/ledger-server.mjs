// A small support-tools MCP server on the official SDK's McpServer, over stdio: get_order
// (read-only), issue_refund (money; performs by writing to a ledger file, and refuses a second
// effect for an idempotency key it has seen), send_voucher (annotated idempotent). Its ledger
// is the truth the tests check: how many refunds the "provider" made.
//   LEDGER=path          the ledger file (JSON lines), required
//   REFUND_MODE=answer   answer at once (default)
//               hang     perform, then never answer (the provider accepted; the answer is lost)
//               drop     never perform and never answer
//               late     perform, answer after LATE_MS (default 2500)
// The mode applies to the first refund of each order_id only; later ones answer at once.
//   TRANSPORT=http       serve Streamable HTTP at http://127.0.0.1:<port>/mcp (a session each), and
//                        print "listening on <url>"; stdio otherwise
import fs from 'node:fs';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const ledger = process.env.LEDGER;
if (!ledger) {
  console.error('ledger-server: set LEDGER');
  process.exit(2);
}
const mode = process.env.REFUND_MODE || 'answer';
const lateMs = Number(process.env.LATE_MS || 2500);

function entries() {
  if (!fs.existsSync(ledger)) return [];
  return fs.readFileSync(ledger, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}
function append(entry) {
  fs.appendFileSync(ledger, JSON.stringify(entry) + '\n');
}
const firstSeen = new Set();
let reads = 0;

function makeServer() {
  const server = new McpServer({ name: 'ledger-server', version: '1.0.0' });

  server.registerTool('get_order', {
    description: 'Look up an order',
    inputSchema: { order_id: z.string() },
    annotations: { readOnlyHint: true },
  }, async ({ order_id }) => {
    reads += 1;
    append({ kind: 'read', order_id, reads });
    return { content: [{ type: 'text', text: JSON.stringify({ order_id, status: 'delivered', amount_cents: 4599 }) }] };
  });

  server.registerTool('issue_refund', {
    description: 'Refund an order item to the buyer',
    inputSchema: {
      order_id: z.string(), item_id: z.string(), amount_cents: z.number().int(),
      idempotency_key: z.string().optional(),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  }, async ({ order_id, item_id, amount_cents, idempotency_key }) => {
    const first = !firstSeen.has(order_id);
    firstSeen.add(order_id);
    const how = first ? mode : 'answer';
    if (idempotency_key) {
      const seen = entries().find((e) => e.kind === 'refund' && e.idempotency_key === idempotency_key);
      if (seen)
        return { content: [{ type: 'text', text: JSON.stringify({ outcome: 'already_performed', refund_id: seen.refund_id }) }] };
    }
    if (how === 'drop') return new Promise(() => {});
    const refundId = `re_${order_id}_${entries().filter((e) => e.kind === 'refund').length + 1}`;
    append({ kind: 'refund', refund_id: refundId, order_id, item_id, amount_cents, idempotency_key: idempotency_key ?? null });
    const result = { content: [{ type: 'text', text: JSON.stringify({ refund_id: refundId, status: 'succeeded', amount_cents }) }] };
    if (how === 'hang') return new Promise(() => {});
    if (how === 'late') return new Promise((resolve) => setTimeout(() => resolve(result), lateMs));
    return result;
  });

  server.registerTool('send_voucher', {
    description: 'Send the buyer a goodwill voucher code by email',
    inputSchema: { order_id: z.string(), code: z.string() },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  }, async ({ order_id, code }) => {
    append({ kind: 'voucher', order_id, code });
    return { content: [{ type: 'text', text: `voucher ${code} sent for ${order_id}` }] };
  });

  return server;
}

if (process.env.TRANSPORT !== 'http') {
  await makeServer().connect(new StdioServerTransport());
} else {
  const transports = new Map();
  const httpServer = http.createServer(async (req, res) => {
    if (req.url !== '/mcp') return res.writeHead(404).end();
    let body;
    if (req.method === 'POST') {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    }
    const id = req.headers['mcp-session-id'];
    let transport = id ? transports.get(id) : undefined;
    if (!transport && req.method === 'POST' && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => transports.set(sid, transport),
      });
      await makeServer().connect(transport);
    }
    if (!transport) return res.writeHead(404).end('no such session');
    await transport.handleRequest(req, res, body);
  });
  httpServer.listen(0, '127.0.0.1', () => {
    console.log(`listening on http://127.0.0.1:${httpServer.address().port}/mcp`);
  });
}
