// An agent's conversation as the OpenTelemetry JavaScript SDK exports it: GenAI execute_tool
// spans of an order read and a refund that times out, through the OTLP/HTTP protobuf exporter,
// then the agent's retry of the refund through the OTLP/HTTP JSON exporter.
//
//   node send-refund.mjs RECEIVER_URL CONVERSATION_ID [TOKEN]
//
// With CONVERSATION_ON=root only each turn's agent span names the conversation, as many
// instrumentations do: its tool spans end, and are exported, before it.
//
// Exits 0 once both exporters were told their spans were taken, 1 with the reason otherwise.
import { context, trace, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExportResultCode } from '@opentelemetry/core';

const [receiver, conversation, token] = process.argv.slice(2);
if (!receiver || !conversation) {
  console.error('usage: node send-refund.mjs RECEIVER_URL CONVERSATION_ID [TOKEN]');
  process.exit(2);
}
const headers = token ? { Authorization: `Bearer ${token}` } : {};
const namedByRootOnly = process.env.CONVERSATION_ON === 'root';

// Counts what each export was told, so a refusal fails the script rather than vanishing.
function watched(exporter, failures) {
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) failures.push(String(result.error));
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

const failures = [];
const resource = resourceFromAttributes({ 'service.name': 'support-agent' });
const url = `${receiver}/v1/traces`;
const protobuf = new BasicTracerProvider({
  resource,
  spanProcessors: [new SimpleSpanProcessor(watched(new ProtoExporter({ url, headers }), failures))],
});
const json = new BasicTracerProvider({
  resource,
  spanProcessors: [new SimpleSpanProcessor(watched(new JsonExporter({ url, headers }), failures))],
});

const begin = Date.now();
const at = (ms) => new Date(begin + ms);

function agentTurn(provider, name, start) {
  const span = provider.getTracer('support-agent').startSpan(
    name,
    { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': conversation }, startTime: at(start) },
  );
  return span;
}

function tool(provider, parent, { name, callId, args, result, timeout, start, end }) {
  const tracer = provider.getTracer('support-agent');
  const span = tracer.startSpan(
    `execute_tool ${name}`,
    {
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': name,
        'gen_ai.tool.type': 'function',
        'gen_ai.tool.call.id': callId,
        ...(namedByRootOnly ? {} : { 'gen_ai.conversation.id': conversation }),
        'gen_ai.tool.call.arguments': JSON.stringify(args),
      },
      startTime: at(start),
    },
    trace.setSpan(context.active(), parent),
  );
  if (timeout) {
    span.setAttribute('error.type', 'timeout');
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'payments.internal did not answer within 30s' });
  } else {
    span.setAttribute('gen_ai.tool.call.result', JSON.stringify(result));
  }
  span.end(at(end));
}

const refund = { order_id: 'BW-30388', item_id: 'LMP-2', amount_cents: 18900 };

// The first turn: the order read, and the refund the payment provider took but never answered.
const first = agentTurn(protobuf, 'invoke_agent support-agent', 0);
tool(protobuf, first, {
  name: 'get_order', callId: 'call_O1', args: { order_id: 'BW-30388' },
  result: { order_id: 'BW-30388', status: 'delivered', seller_id: 'brightwell' }, start: 10, end: 300,
});
tool(protobuf, first, { name: 'issue_refund', callId: 'call_O2', args: refund, timeout: true, start: 400, end: 30400 });
first.end(at(30500));
await protobuf.forceFlush();

// The model read the timeout as a failure and sent the refund again: the second effect.
const second = agentTurn(json, 'invoke_agent support-agent', 31000);
tool(json, second, {
  name: 'issue_refund', callId: 'call_O3', args: refund,
  result: { refund_id: 're_3MtwBwLkdIwHu7ix', status: 'succeeded' }, start: 31100, end: 31900,
});
second.end(at(32000));
await json.forceFlush();

await Promise.all([protobuf.shutdown(), json.shutdown()]);
if (failures.length > 0) {
  console.error(`export failed: ${failures.join('; ')}`);
  process.exit(1);
}
console.log('sent');
