// MCP agent: a real @modelcontextprotocol/sdk McpServer (tools get_order and
// issue_refund, with MCP tool annotations) served over Streamable HTTP on
// 127.0.0.1 (ephemeral port) in this process, and a real SDK Client calling it.
//
// @modelcontextprotocol/sdk 1.32.2 emits NO OpenTelemetry spans itself.
// Spans in this agent come from:
//  1. @traceloop/instrumentation-mcp (real package; wraps Client.connect /
//     Client.request / Client.close): spans "mcp.client.session",
//     "<method>.mcp" and "<tool>.tool" with traceloop.* attributes. It does
//     NOT follow the OTel MCP semantic conventions.
//  2. With MCP_SPANS=semconv instead of 1: a minimal wrapper in this file
//     (scope "verity-fw-mcp-semconv") around
//     the real Client.callTool / Client.listTools, following the OpenTelemetry
//     MCP semantic conventions (semantic-conventions-genai docs/gen-ai/mcp.md,
//     "mcp.client" span): name "{mcp.method.name} {gen_ai.tool.name}", kind
//     CLIENT, attributes mcp.method.name, gen_ai.tool.name,
//     gen_ai.operation.name=execute_tool, jsonrpc.request.id,
//     mcp.protocol.version, mcp.session.id, network.transport=tcp,
//     network.protocol.name=http, server.address, server.port, opt-in
//     gen_ai.tool.call.arguments / gen_ai.tool.call.result, and on a
//     CallToolResult with isError=true: error.type=tool_error + status ERROR.
//     It also injects W3C trace context into params._meta (semconv SHOULD).
//  3. The host "agent" (scripted model policy, no LLM framework) opens one
//     hand-written GenAI `invoke_agent support_agent` span carrying
//     gen_ai.conversation.id = CONVERSATION_ID.
// The MCP session id (mcp.session.id) is the real one the server transport
// generated (random UUID); the conversation id is on the invoke_agent span.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { context, propagation, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  ATTR_MCP_METHOD_NAME, ATTR_MCP_PROTOCOL_VERSION, ATTR_MCP_SESSION_ID,
  ATTR_GEN_AI_TOOL_NAME, ATTR_GEN_AI_OPERATION_NAME, GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, ATTR_GEN_AI_TOOL_CALL_RESULT, ATTR_JSONRPC_REQUEST_ID,
  ATTR_GEN_AI_CONVERSATION_ID, ATTR_GEN_AI_AGENT_NAME, ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_INPUT_MESSAGES,
} from '@opentelemetry/semantic-conventions/incubating';
import {
  ATTR_ERROR_TYPE, ATTR_NETWORK_TRANSPORT, ATTR_NETWORK_PROTOCOL_NAME, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import { McpInstrumentation } from '@traceloop/instrumentation-mcp';
import * as McpClientModule from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import {
  parseArgs, RecordingExporter, setupTracing, finish, fail, makeBackend,
  decideNext, USER_MESSAGE,
} from './otel-common.mjs';

const AGENT = 'mcp';
const { receiverUrl, conversationId, otlpFile } = parseArgs(AGENT);
const exporter = new RecordingExporter({ receiverUrl, otlpFile });
const provider = await setupTracing(`verity-fw-${AGENT}`, exporter);

// MCP_SPANS=traceloop (the default): the spans of @traceloop/instrumentation-mcp, a real package.
// MCP_SPANS=semconv: the conventions' mcp.client spans of the small wrapper below instead. Never
// both: two instrumentations of one client trace every call twice, as two unrelated spans.
const semconv = process.env.MCP_SPANS === 'semconv';
if (!semconv) {
  const traceloopMcp = new McpInstrumentation();
  traceloopMcp.setTracerProvider(provider);
  traceloopMcp.manuallyInstrument({ Client: McpClientModule.Client });
}
const { Client } = McpClientModule;

// ---------------------------------------------------------------- server ---
const backend = makeBackend();
const server = new McpServer({ name: 'support-tools', version: '1.0.0' });
const asText = (obj) => ({ content: [{ type: 'text', text: JSON.stringify(obj) }] });
server.registerTool(
  'get_order',
  {
    title: 'Get order',
    description: 'Look up an order by its id.',
    inputSchema: { order_id: z.string().describe('The order id, e.g. SU-12345') },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  async ({ order_id }) => asText(backend.getOrder(order_id)),
);
server.registerTool(
  'issue_refund',
  {
    title: 'Issue refund',
    description: 'Refund an order through the payment provider. Moves money.',
    inputSchema: {
      order_id: z.string(),
      amount_cents: z.number().int(),
      reason: z.string(),
      item_id: z.string().optional(),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  // A thrown error becomes a CallToolResult with isError: true (McpServer).
  async (args) => asText(backend.issueRefund(args)),
);
const serverTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
await server.connect(serverTransport);
const httpServer = http.createServer((req, res) => {
  if (req.url !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  serverTransport.handleRequest(req, res).catch((e) => {
    res.writeHead(500).end(String(e));
  });
});
await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
const port = httpServer.address().port;

// ---------------------------------------------------- semconv client span ---
const semconvTracer = trace.getTracer('verity-fw-mcp-semconv', '0.1.0');

/** Records the JSON-RPC id of each outgoing request (for jsonrpc.request.id). */
function recordRequestIds(transport) {
  const lastIdByMethod = new Map();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (message && message.method && message.id !== undefined) lastIdByMethod.set(message.method, message.id);
    return send(message, options);
  };
  return lastIdByMethod;
}

function parseToolResult(result) {
  const c = result?.content;
  if (Array.isArray(c) && c.length === 1 && c[0].type === 'text') {
    try {
      return JSON.parse(c[0].text);
    } catch {
      return c[0].text;
    }
  }
  return result?.structuredContent ?? c;
}

function commonAttrs(clientTransport, url) {
  return {
    [ATTR_MCP_SESSION_ID]: clientTransport.sessionId,
    [ATTR_MCP_PROTOCOL_VERSION]: clientTransport.protocolVersion,
    [ATTR_NETWORK_TRANSPORT]: 'tcp',
    [ATTR_NETWORK_PROTOCOL_NAME]: 'http',
    [ATTR_SERVER_ADDRESS]: url.hostname,
    [ATTR_SERVER_PORT]: Number(url.port),
  };
}

/** client.callTool wrapped in an OTel MCP semconv "mcp.client" span. */
async function tracedCallTool(client, clientTransport, url, ids, name, args) {
  if (!semconv) return client.callTool({ name, arguments: args });
  const attributes = {
    [ATTR_MCP_METHOD_NAME]: 'tools/call',
    [ATTR_GEN_AI_TOOL_NAME]: name,
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    ...commonAttrs(clientTransport, url),
    [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify(args),
  };
  return semconvTracer.startActiveSpan(`tools/call ${name}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      const _meta = {};
      propagation.inject(context.active(), _meta);
      const result = await client.callTool({ name, arguments: args, _meta });
      if (ids.has('tools/call')) span.setAttribute(ATTR_JSONRPC_REQUEST_ID, String(ids.get('tools/call')));
      if (result.isError) {
        const text = result.content?.find((p) => p.type === 'text')?.text ?? 'tool error';
        span.setAttribute(ATTR_ERROR_TYPE, 'tool_error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: text });
      } else {
        span.setAttribute(ATTR_GEN_AI_TOOL_CALL_RESULT, JSON.stringify(parseToolResult(result)));
      }
      return result;
    } catch (e) {
      // JSON-RPC error (McpError has a numeric code) or transport failure.
      if (ids.has('tools/call')) span.setAttribute(ATTR_JSONRPC_REQUEST_ID, String(ids.get('tools/call')));
      span.setAttribute(ATTR_ERROR_TYPE, e?.code !== undefined ? String(e.code) : (e?.name ?? '_OTHER'));
      if (e?.code !== undefined) span.setAttribute('rpc.response.status_code', String(e.code));
      span.recordException(e);
      span.setStatus({ code: SpanStatusCode.ERROR, message: e?.message });
      throw e;
    } finally {
      span.end();
    }
  });
}

/** client.listTools wrapped in an OTel MCP semconv "mcp.client" span. */
async function tracedListTools(client, clientTransport, url, ids) {
  if (!semconv) return client.listTools();
  const attributes = { [ATTR_MCP_METHOD_NAME]: 'tools/list', ...commonAttrs(clientTransport, url) };
  return semconvTracer.startActiveSpan('tools/list', { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      const result = await client.listTools();
      if (ids.has('tools/list')) span.setAttribute(ATTR_JSONRPC_REQUEST_ID, String(ids.get('tools/list')));
      return result;
    } catch (e) {
      span.setAttribute(ATTR_ERROR_TYPE, e?.code !== undefined ? String(e.code) : (e?.name ?? '_OTHER'));
      span.recordException(e);
      span.setStatus({ code: SpanStatusCode.ERROR, message: e?.message });
      throw e;
    } finally {
      span.end();
    }
  });
}

// ------------------------------------------------------------------ host ---
const hostTracer = trace.getTracer('verity-fw-mcp-host', '0.1.0');
let finalText;
try {
  await hostTracer.startActiveSpan(
    'invoke_agent support_agent',
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        [ATTR_GEN_AI_OPERATION_NAME]: 'invoke_agent',
        [ATTR_GEN_AI_AGENT_NAME]: 'support_agent',
        [ATTR_GEN_AI_CONVERSATION_ID]: conversationId,
        [ATTR_GEN_AI_INPUT_MESSAGES]: JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: USER_MESSAGE }] }]),
      },
    },
    async (root) => {
      try {
        const url = new URL(`http://127.0.0.1:${port}/mcp`);
        const clientTransport = new StreamableHTTPClientTransport(url);
        const ids = recordRequestIds(clientTransport);
        const client = new Client({ name: 'support-agent-host', version: '1.0.0' });
        await client.connect(clientTransport);
        const { tools } = await tracedListTools(client, clientTransport, url, ids);
        if (!tools.some((t) => t.name === 'issue_refund')) throw new Error('issue_refund not listed');

        const results = [];
        for (let turn = 0; turn < 6; turn++) {
          const next = decideNext(results);
          if (next.type === 'text') {
            finalText = next.text;
            break;
          }
          const r = await tracedCallTool(client, clientTransport, url, ids, next.name, next.args);
          results.push({ name: next.name, ok: !r.isError });
        }
        await client.close();
        root.setAttribute(ATTR_GEN_AI_OUTPUT_MESSAGES, JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: finalText }], finish_reason: 'stop' },
        ]));
      } catch (e) {
        root.recordException(e);
        root.setStatus({ code: SpanStatusCode.ERROR, message: e?.message });
        throw e;
      } finally {
        root.end();
      }
    },
  );
} catch (e) {
  fail(e);
}
console.log(`[${AGENT}] refundCalls=${backend.refundCalls} text=${JSON.stringify(finalText)}`);
await server.close();
httpServer.closeAllConnections?.();
await new Promise((resolve) => httpServer.close(resolve));
await finish(exporter, () => provider.shutdown(), () =>
  backend.refundCalls === 2 && finalText ? null : `story did not play out: refundCalls=${backend.refundCalls}`);
